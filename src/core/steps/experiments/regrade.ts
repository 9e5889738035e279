/**
 * An eval run's per-item scores as its environment's grader gives them again from each episode's
 * record (Environment.rescore), beside what the episodes say. An experiment's numbers are built from
 * these and validated against them, so a score edited in episodes.jsonl cannot move a number:
 * `experiment run` refuses to build a record over such a run, `experiment validate` fails its check.
 */
import { join } from "node:path";
import type { MetricDeclaration } from "../../base/runs/metrics";
import { metricValue } from "../../base/runs/metrics";
import { readEpisodes, readJsonFile } from "../../base/runs/run-files";
import { RUN_FILES, runFile } from "../../base/runs/run-folder";
import { environmentOfManifest } from "../../envs/registry";
import { environmentMetrics } from "../../envs/catalog";

export interface RegradedRun {
  /** Item id → the metric as the run's grader gives it now (the recorded value where it has no grader here). */
  scores: Map<string, number>;
  /** Episodes whose recorded value is not what their grader gives, in file order. */
  edited: { id: string; recorded: number; regraded: number }[];
  /** The environment whose grader regraded; undefined where this build cannot regrade the run (its recorded values stand). */
  grader: string | undefined;
}

/** Scores equal up to float noise (a grader's arithmetic is deterministic, but be lenient). */
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

export function regradeRun(runDir: string, metric: MetricDeclaration): RegradedRun {
  const manifest = readJsonFile<Record<string, unknown>>(runFile(runDir, "manifest"));
  const env = environmentOfManifest(manifest);
  const rescore = env?.rescore?.bind(env);
  const scores = new Map<string, number>();
  const edited: RegradedRun["edited"] = [];
  for (const e of readEpisodes(runDir, environmentMetrics)) {
    const recorded = metricValue(e, metric);
    const regraded = rescore
      ? metricValue(rescore(e as unknown as Record<string, unknown>, manifest), metric)
      : recorded;
    if (!close(recorded, regraded)) edited.push({ id: e.id, recorded, regraded });
    scores.set(e.id, regraded);
  }
  return { scores, edited, grader: rescore ? env!.name : undefined };
}

/**
 * One line for a run whose episodes record scores their grader does not give (`run` as the
 * record names it, relative to the workspace).
 */
export function describeEdited(run: string, r: RegradedRun, metric: MetricDeclaration): string {
  const first = r.edited[0];
  const count = r.edited.length === 1 ? "1 episode records" : `${r.edited.length} episodes record`;
  return `${join(run, RUN_FILES.episodes)}: ${count} a ${metric.name} its grader does not give (item ${first.id}: ${first.recorded} recorded, ${first.regraded} regraded by ${r.grader}'s grader)`;
}
