/**
 * The training dashboard's view of a tinker-cookbook run (apart from the reader: the dashboard's
 * module loads the tokenizer for group episodes, which the Runs view must not load at activation).
 */
import { existsSync, statSync } from "node:fs";
import { runXAxes } from "../trace/x-axes";
import { basename, join } from "node:path";
import { RUN_FILES } from "../../base/runs/run-folder";
import { healthByStep, lastLoggedStep, metricSeries, type DashboardView } from "../trace/dashboard-view";
import {
  cookbookGroups,
  cookbookTags,
  oversizeNote,
  readCookbookCheckpoints,
  readCookbookConfig,
  streamMetricRows,
} from "./cookbook";
import { cookbookEnvironment } from "./cookbook-environment";
import { runViewSpec } from "../trace/run-view";

/** What a cookbook run's val scores are called when the folder does not say which environment it is. */
export const UNKNOWN_COOKBOOK_METRIC = "score";

/**
 * The most of metrics.jsonl the charts read: a longer file is charted from its last this-many
 * bytes (its earlier steps skipped, and said so), so memory stays bounded however long the run.
 */
export const MAX_CHART_BYTES = 32 * 1024 * 1024;

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** metrics.jsonl's rows to chart (its tail when it is over MAX_CHART_BYTES), and what was skipped. */
function chartRows(dir: string, problems: string[]): Record<string, unknown>[] {
  const file = join(dir, RUN_FILES.metrics);
  const size = existsSync(file) ? statSync(file).size : 0;
  const from = Math.max(0, size - MAX_CHART_BYTES);
  const rows: Record<string, unknown>[] = [];
  const { streamed } = streamMetricRows(dir, (row) => rows.push(row), from);
  if (from > 0) {
    const firstStep = typeof rows[0]?.step === "number" ? ` (from step ${rows[0].step})` : "";
    problems.push(
      `${file} is ${mib(size)}: the charts show its last ${mib(MAX_CHART_BYTES)}${firstStep}; its first ${mib(from)} were skipped`,
    );
  }
  const note = oversizeNote(file, streamed, from);
  if (note) problems.push(note);
  return rows;
}

/** The training dashboard's view of a cookbook run: its metrics, group health and checkpoints. */
export function cookbookDashboard(dir: string): DashboardView {
  const problems: string[] = [];
  const attempt = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch (e) {
      problems.push((e as Error).message);
      return fallback;
    }
  };
  const rows = attempt(() => chartRows(dir, problems), []);
  const groups = attempt(() => cookbookGroups(dir), []);
  const checkpoints = attempt(() => readCookbookCheckpoints(dir), []);
  const keys = new Set(rows.flatMap((r) => Object.keys(r)));
  const env = cookbookEnvironment(readCookbookConfig(dir) ?? {}, cookbookTags(dir, keys));
  const series = metricSeries(rows);
  return {
    run: basename(dir),
    series,
    groups,
    health: healthByStep(groups),
    checkpoints: checkpoints.map((c) => ({
      name: c.name,
      step: c.batch ?? 0,
      ...(c.epoch !== undefined ? { epoch: c.epoch } : {}),
      otherEvals: [],
      ...(c.sampler_path ? { samplerPath: c.sampler_path } : {}),
    })),
    references: [],
    evalSettings: null,
    questions: {},
    overlays: [],
    xAxes: runXAxes(rows),
    lastStep: lastLoggedStep(series),
    problems,
    // The run's own environment's metric; a folder that names none gets no borrowed name.
    valMetric: env ? runViewSpec(env.name).primary.label : UNKNOWN_COOKBOOK_METRIC,
  };
}
