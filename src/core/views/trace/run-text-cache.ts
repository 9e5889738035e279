/**
 * The trace viewer's work over a whole run, kept beside the run in a hidden file (RUN_FILES.textIndex)
 * so it is done once: the full-text index (with the decoded search results), gold-in-results per
 * episode and the run's drift counts. The cache holds episodes.jsonl's size and mtime when the work
 * began; any change to the file (an eval appending, a rescore rewriting it) makes it stale, and it
 * is rebuilt. It is a cache: a missing, stale, damaged or foreign file is ignored, never an error.
 */
import { existsSync, readFileSync } from "node:fs";
import { runFile } from "../../base/runs/run-folder";
import { episodesStamp, type EpisodesStamp } from "../../base/runs/run-files";
import { writeJsonAtomic } from "../../base/util/atomic-write";
import { DRIFT_CHECK_VERSION, type RunDriftCounts } from "./drift";
import type { GoldInResults } from "./gold-in-results";
import type { SavedRunSearch } from "./run-search";

export const TEXT_CACHE_FORMAT = "agent-lab/run-text-index-1";

export interface RunTextCache {
  format: typeof TEXT_CACHE_FORMAT;
  /** episodes.jsonl as it was when the work began. */
  episodes: EpisodesStamp;
  /** The tokenizer that decoded the results (another one would decode other text). */
  tokenizer: string;
  gold: Record<string, GoldInResults>;
  /** Null until the drift pass over every episode has finished (and when an older check counted it). */
  drift: RunDriftCounts | null;
  /** The check that counted `drift` (DRIFT_CHECK_VERSION; written by writeTextCache). */
  drift_check?: string;
  search: SavedRunSearch;
}

export { episodesStamp };

/** The cache when it matches episodes.jsonl as it is now and was made with `tokenizer`; else undefined. */
export function readTextCache(runDir: string, tokenizer: string): RunTextCache | undefined {
  const file = runFile(runDir, "textIndex");
  if (!existsSync(file)) return undefined;
  let cache: Partial<RunTextCache>;
  try {
    cache = JSON.parse(readFileSync(file, "utf8")) as Partial<RunTextCache>;
  } catch {
    return undefined; // damaged (a crash mid-write cannot leave one: it is renamed into place): rebuild
  }
  const now = episodesStamp(runDir);
  if (
    cache.format !== TEXT_CACHE_FORMAT ||
    cache.tokenizer !== tokenizer ||
    !cache.episodes ||
    !cache.search ||
    !cache.gold
  )
    return undefined;
  if (cache.episodes.size !== now.size || cache.episodes.mtime_ms !== now.mtime_ms) return undefined;
  // Counts an older drift check made are not these numbers: the pass counts again.
  if (cache.drift_check !== DRIFT_CHECK_VERSION) cache.drift = null;
  return cache as RunTextCache;
}

/**
 * Saves the cache unless episodes.jsonl changed since `cache.episodes` was taken (the work then
 * covers an older file) or a writer holds the run (an eval still appending: saving after every
 * episode would cost more than it saves). Returns whether it was written.
 */
export function writeTextCache(runDir: string, cache: RunTextCache): boolean {
  const now = episodesStamp(runDir);
  if (now.size !== cache.episodes.size || now.mtime_ms !== cache.episodes.mtime_ms) return false;
  if (existsSync(runFile(runDir, "lock"))) return false;
  try {
    writeJsonAtomic(runFile(runDir, "textIndex"), { ...cache, drift_check: DRIFT_CHECK_VERSION }, 0);
    return true;
  } catch {
    return false; // a read-only run folder (copied from elsewhere): the viewer works without its cache
  }
}
