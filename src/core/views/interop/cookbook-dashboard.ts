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
  streamMetricRowsAsync,
} from "./cookbook";
import type { StreamedJsonl } from "../../base/util/jsonl-stream";
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

/** Where the charts start reading metrics.jsonl: its last MAX_CHART_BYTES. */
function chartStart(dir: string): { file: string; size: number; from: number } {
  const file = join(dir, RUN_FILES.metrics);
  const size = existsSync(file) ? statSync(file).size : 0;
  return { file, size, from: Math.max(0, size - MAX_CHART_BYTES) };
}

/** What the charts skipped: the file's head when it is over MAX_CHART_BYTES, lines over the size limit. */
function chartProblems(
  at: ReturnType<typeof chartStart>,
  rows: Record<string, unknown>[],
  streamed: StreamedJsonl,
): string[] {
  const problems: string[] = [];
  if (at.from > 0) {
    const firstStep = typeof rows[0]?.step === "number" ? ` (from step ${rows[0].step})` : "";
    problems.push(
      `${at.file} is ${mib(at.size)}: the charts show its last ${mib(MAX_CHART_BYTES)}${firstStep}; its first ${mib(at.from)} were skipped`,
    );
  }
  const note = oversizeNote(at.file, streamed, at.from);
  if (note) problems.push(note);
  return problems;
}

/** The training dashboard's view of a cookbook run: its metrics, group health and checkpoints. */
export function cookbookDashboard(dir: string): DashboardView {
  const at = chartStart(dir);
  const rows: Record<string, unknown>[] = [];
  let problems: string[];
  try {
    problems = chartProblems(at, rows, streamMetricRows(dir, (row) => rows.push(row), at.from).streamed);
  } catch (e) {
    problems = [(e as Error).message];
    rows.length = 0; // an unreadable file charts nothing, not the rows before its bad line
  }
  return dashboardFrom(dir, problems, rows);
}

/**
 * The same, metrics.jsonl read asynchronously a chunk at a time: the extension host's thread stays
 * responsive while a long run's file (up to MAX_CHART_BYTES of it) is read.
 */
export async function cookbookDashboardAsync(dir: string): Promise<DashboardView> {
  const at = chartStart(dir);
  const rows: Record<string, unknown>[] = [];
  let problems: string[];
  try {
    problems = chartProblems(at, rows, (await streamMetricRowsAsync(dir, (row) => rows.push(row), at.from)).streamed);
  } catch (e) {
    problems = [(e as Error).message];
    rows.length = 0; // an unreadable file charts nothing, not the rows before its bad line
  }
  return dashboardFrom(dir, problems, rows);
}

function dashboardFrom(dir: string, problems: string[], rows: Record<string, unknown>[]): DashboardView {
  const attempt = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch (e) {
      problems.push((e as Error).message);
      return fallback;
    }
  };
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
