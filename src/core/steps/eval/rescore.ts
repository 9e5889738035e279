/**
 * Recomputes EM and F1 of every episode of a run from its prediction and gold answers (after the
 * scorer changed, or on a run copied from elsewhere), rewrites episodes.jsonl atomically and
 * updates summary.json. `agent-lab score DIR` calls this for a run folder.
 */
import { existsSync } from "node:fs";
import { UserError } from "../../base/errors";
import { SCORE_FIELDS } from "../../base/runs/episode-record";
import { join } from "node:path";
import { exactMatch, f1Score, SCORER_VERSION } from "../../envs/hotpotqa/score";
import {
  EPISODES_FILE,
  MANIFEST_FILE,
  SUMMARY_FILE,
  episodesPath,
  readRun,
  repairTornTail,
} from "../../base/runs/run-files";
import { writeFileAtomic, writeJsonAtomic } from "../../base/util/atomic-write";
import { summarize, type RunSummary } from "../../base/runs/summary";

export interface RescoreResult {
  n: number;
  em: number;
  f1: number;
  /** Episodes whose EM or F1 changed. */
  changed: number;
}

export function rescoreRun(runDir: string): RescoreResult {
  // Checked before anything is written: a folder that is not a run gets no episodes.jsonl or summary.json.
  if (!existsSync(episodesPath(runDir))) {
    throw new UserError(
      `${runDir} is not a run folder with episodes (no ${EPISODES_FILE}): give a folder that agent-lab eval wrote, or a JSONL file of predictions`,
    );
  }
  const { manifest, summary, episodes } = readRun(runDir, SCORE_FIELDS);
  repairTornTail(episodesPath(runDir));
  let changed = 0;
  const rescored = episodes.map((e) => {
    const em = exactMatch(e.prediction, e.answers);
    const f1 = f1Score(e.prediction, e.answers);
    const reward = e.end === "answer" ? f1 : 0;
    if (em !== e.metrics.em || f1 !== e.metrics.f1 || reward !== e.reward) changed++;
    return { ...e, metrics: { em, f1 }, reward };
  });
  const file = episodesPath(runDir);
  writeFileAtomic(file, rescored.map((e) => JSON.stringify(e) + "\n").join(""));
  const next: RunSummary = {
    ...summarize(rescored, {
      planned: summary?.planned ?? rescored.length,
      seconds: summary?.seconds ?? 0,
      status: summary?.status ?? "done",
      split: summary?.split ?? manifest?.split.name ?? "val",
      model: summary?.model ?? manifest?.policy.model ?? "unknown",
      checkpoint: summary?.checkpoint,
    }),
  };
  writeJsonAtomic(join(runDir, SUMMARY_FILE), next);
  if (manifest && manifest.scorer_version !== SCORER_VERSION) {
    // The numbers now come from this scorer: say so in the fingerprint.
    writeJsonAtomic(join(runDir, MANIFEST_FILE), { ...manifest, scorer_version: SCORER_VERSION });
  }
  return { n: next.n, em: next.em, f1: next.f1, changed };
}
