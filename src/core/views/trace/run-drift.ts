/**
 * A run's drift counts for `show`: the numbers the trace viewer's run header shows. The viewer
 * counts a run once and saves the counts beside it (run-text-cache.ts); when that cache is fresh
 * (episodes.jsonl unchanged, same tokenizer, same check) its counts are read, otherwise every
 * episode is checked here, through the same per-episode function the viewer counts with.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import { DRIFT_FIELDS } from "../../base/runs/episode-record";
import { readEpisodes } from "../../base/runs/run-files";
import { runDriftCounts, type RunDriftCounts } from "./drift";
import { readTextCache } from "./run-text-cache";
import { environmentMetrics } from "../../envs/catalog";

export function runDrift(
  runDir: string,
  manifest: unknown,
  tok: ChatTokenizer,
  tokenizerName: string,
): { counts: RunDriftCounts; fromCache: boolean } {
  const cached = readTextCache(runDir, tokenizerName)?.drift;
  if (cached) return { counts: cached, fromCache: true };
  return {
    counts: runDriftCounts(tok, manifest, readEpisodes(runDir, environmentMetrics, DRIFT_FIELDS)),
    fromCache: false,
  };
}
