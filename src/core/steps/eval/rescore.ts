/**
 * Recomputes every episode's metrics and reward of a run from its record, through the run's
 * environment's `rescore` (after the scorer changed, or on a run copied from elsewhere), rewrites
 * episodes.jsonl atomically and updates summary.json. `agent-lab score DIR` calls this for a run folder.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../base/errors";
import { SCORE_FIELDS } from "../../base/runs/episode-record";
import { manifestEnvironment } from "../../envs/manifest-environment";
import {
  EPISODES_FILE,
  MANIFEST_FILE,
  SUMMARY_FILE,
  episodesPath,
  readRun,
  readSummary,
  repairTornTail,
  type EpisodeRecord,
} from "../../base/runs/run-files";
import { writeFileAtomic, writeJsonAtomic } from "../../base/util/atomic-write";
import { summarize, type RunSummary } from "../../base/runs/summary";
import { environmentMetrics } from "../../envs/catalog";
import { environmentOfManifest } from "../../envs/registry";
import type { EnvItem, Environment, Rescored } from "../../harness/environment";

export interface RescoreResult {
  /** The rewritten summary (its metrics: the means of the environment's declared metrics). */
  summary: RunSummary;
  /** The run's environment (its metric labels, for the caller's line). */
  env: Environment<EnvItem>;
  /** Episodes whose metrics, reward or scored fields changed. */
  changed: number;
}

export function rescoreRun(runDir: string): RescoreResult {
  // Checked before anything is written: a folder that is not a run gets no episodes.jsonl or summary.json.
  if (!existsSync(episodesPath(runDir))) {
    throw new UserError(
      `${runDir} is not a run folder with episodes (no ${EPISODES_FILE}): give a folder that agent-lab eval wrote, or a JSONL file of predictions`,
    );
  }
  const { manifest, episodes } = readRun(runDir, environmentMetrics, SCORE_FIELDS);
  const env = knownEnvironment(runDir, manifest);
  const rescore = env.rescore?.bind(env);
  if (!rescore) throw new UserError(`${runDir}: the ${env.name} environment does not say how to rescore its episodes`);
  const summary = readSummary(runDir, environmentMetrics);
  repairTornTail(episodesPath(runDir));
  let changed = 0;
  const rescored = episodes.map((e) => {
    const r = rescore(e as unknown as Record<string, unknown>, manifest);
    if (differs(e, r)) changed++;
    return { ...e, ...r.fields, metrics: r.metrics, reward: r.reward };
  });
  writeFileAtomic(episodesPath(runDir), rescored.map((e) => JSON.stringify(e) + "\n").join(""));
  const next = summarize(rescored, {
    planned: summary?.planned ?? rescored.length,
    seconds: summary?.seconds ?? 0,
    status: summary?.status ?? "done",
    split: summary?.split ?? manifest?.split.name ?? "val",
    model: summary?.model ?? manifest?.policy.model ?? "unknown",
    checkpoint: summary?.checkpoint,
    metrics: env.metrics,
  });
  writeJsonAtomic(join(runDir, SUMMARY_FILE), next);
  if (manifest && manifest.scorer_version !== env.scorerVersion) {
    // The numbers now come from this scorer: say so in the fingerprint.
    writeJsonAtomic(join(runDir, MANIFEST_FILE), { ...manifest, scorer_version: env.scorerVersion });
  }
  return { summary: next, env, changed };
}

/** The run's environment, or a one-line refusal naming the one this build does not know. */
function knownEnvironment(runDir: string, manifest: unknown): Environment<EnvItem> {
  const env = environmentOfManifest(manifest);
  if (!env)
    throw new UserError(
      `${join(runDir, MANIFEST_FILE)}: environment "${manifestEnvironment(manifest).name}" is not one this build knows, so its episodes cannot be rescored`,
    );
  return env;
}

/** Whether the new scores differ from what the record holds. */
function differs(e: EpisodeRecord, r: Rescored): boolean {
  const record = e as unknown as Record<string, unknown>;
  const old = (record.metrics ?? {}) as Record<string, unknown>;
  return (
    r.reward !== e.reward ||
    Object.keys(r.metrics).length !== Object.keys(old).length ||
    Object.entries(r.metrics).some(([name, v]) => old[name] !== v) ||
    Object.entries(r.fields ?? {}).some(([k, v]) => record[k] !== v)
  );
}
