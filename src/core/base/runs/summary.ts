/** summary.json: the numbers a run is known by, recomputed from its episodes. */
import type { RunSplit } from "./manifest";
import type { EpisodeRecord } from "./run-files";
import { FileFormatError } from "../errors";
import { replaceV1Slots, v1Slots } from "./episode-v1";
import { hasOneMetric, metricRoles, metricValue, UNKNOWN_ENV_METRICS, type MetricDeclaration } from "./metrics";

export type RunStatus = "running" | "done" | "failed" | "interrupted";

/**
 * The summary format this build writes (`format` in summary.json). Format 1 (no `format` field) had
 * two fixed slots for the binary and the primary metric's means; normaliseSummary reads it as this one.
 */
export const SUMMARY_FORMAT = 2;

export interface RunSummary {
  format: number;
  /** Episodes finished. */
  n: number;
  /** Episodes this job set out to run (split size after --limit). */
  planned: number;
  /** The mean of every metric the run's environment declares (base/runs/metrics.ts), by name. */
  metrics: Record<string, number>;
  searches_per_q: number;
  /** Share of episodes that ended with a final answer (the environment's answer action). */
  answered: number;
  /** How episodes ended: answer / no_action / length / budget → count. */
  ends: Record<string, number>;
  usd_per_q: number;
  usd_total: number;
  /** Wall-clock seconds spent running, summed over resumes. */
  seconds: number;
  status: RunStatus;
  split: RunSplit;
  model: string;
  checkpoint?: string;
  updated: string;
}

/** The fields that mean the same in every summary format (what spend and resume read). */
export type SummaryHead = Omit<RunSummary, "format" | "metrics">;

export interface SummaryContext {
  planned: number;
  seconds: number;
  status: RunStatus;
  split: RunSplit;
  model: string;
  checkpoint?: string;
  /** The run's environment's declared metrics (absent: those of an environment this build does not know). */
  metrics?: readonly MetricDeclaration[];
}

export function summarize(episodes: readonly EpisodeRecord[], ctx: SummaryContext): RunSummary {
  const n = episodes.length;
  const mean = (pick: (e: EpisodeRecord) => number) => (n === 0 ? 0 : episodes.reduce((s, e) => s + pick(e), 0) / n);
  const ends: Record<string, number> = {};
  for (const e of episodes) ends[e.end] = (ends[e.end] ?? 0) + 1;
  const usdTotal = episodes.reduce((s, e) => s + e.usd, 0);
  const declared = ctx.metrics ?? UNKNOWN_ENV_METRICS;
  return {
    format: SUMMARY_FORMAT,
    n,
    planned: ctx.planned,
    metrics: Object.fromEntries(declared.map((m) => [m.name, mean((e) => metricValue(e, m))])),
    searches_per_q: mean((e) => e.searches.length),
    answered: mean((e) => (e.end === "answer" ? 1 : 0)),
    ends,
    usd_per_q: n === 0 ? 0 : usdTotal / n,
    usd_total: usdTotal,
    seconds: Math.round(ctx.seconds),
    status: ctx.status,
    split: ctx.split,
    model: ctx.model,
    ...(ctx.checkpoint ? { checkpoint: ctx.checkpoint } : {}),
    updated: new Date().toISOString(),
  };
}

/** What the closing line needs of an environment: its declared metrics and whether it has tools. */
export interface MetricNames {
  metrics: readonly MetricDeclaration[];
  tools: readonly unknown[];
  /** What the closing line calls its tool calls (absent: "tool calls"). */
  toolCallsLabel?: string;
}

/** The tool-call count's label of a run whose environment is unknown: the v1 line's. */
const UNKNOWN_ENV_TOOL_CALLS = "searches";

/**
 * The recipe's closing line: `NAME: <binary> … <primary> … <tool calls> … answered …% $…/q (total $…, …s)`
 * with the metrics' labels (one, when the binary metric is the primary) and the environment's name
 * for its tool calls; without tools, no tool-call count. Without `env`, an unknown environment's
 * (the v1 line: EM, F1, searches).
 */
export function finalLine(name: string, s: RunSummary, env?: MetricNames): string {
  const roles = metricRoles(env?.metrics ?? UNKNOWN_ENV_METRICS);
  const primary = `${roles.primary.label} ${metricValue(s, roles.primary).toFixed(3)}`;
  const cost = `$${s.usd_per_q.toFixed(4)}/q  (total $${s.usd_total.toFixed(2)}, ${s.seconds}s)`;
  const answered = `answered ${Math.round(s.answered * 100)}%`;
  const scores = hasOneMetric(roles)
    ? primary
    : `${roles.binary.label} ${metricValue(s, roles.binary).toFixed(3)}  ${primary}`;
  if (env && env.tools.length === 0) return `${name}: ${scores}  ${answered}  ${cost}`;
  const calls = env ? (env.toolCallsLabel ?? "tool calls") : UNKNOWN_ENV_TOOL_CALLS;
  return `${name}: ${scores}  ${calls} ${s.searches_per_q.toFixed(2)}  ${answered}  ${cost}`;
}

/**
 * A parsed summary.json in the current format: a format-1 one's slots become `metrics` named by the
 * run's environment's declarations (`metrics`), with the same numbers (episode-v1.ts holds the v1
 * layout). Fields other than the metrics are read as they are, as every earlier build did.
 */
export function normaliseSummary(raw: unknown, file: string, metrics: readonly MetricDeclaration[]): RunSummary {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new FileFormatError(file, undefined, "expected a JSON object");
  const row = raw as Record<string, unknown>;
  if (!("format" in row)) {
    const current = replaceV1Slots(row, v1Slots(metricRoles(metrics)), SUMMARY_FORMAT);
    // A v1 summary without either slot (not one summarize wrote) still reads: its metrics are unknown, so none.
    if (!("metrics" in current)) current.metrics = {};
    return current as unknown as RunSummary;
  }
  if (typeof row.format !== "number" || row.format > SUMMARY_FORMAT)
    throw new FileFormatError(
      file,
      undefined,
      `summary format ${JSON.stringify(row.format)} is not one this build reads (up to ${SUMMARY_FORMAT}): update Agent Lab`,
    );
  if (typeof row.metrics !== "object" || row.metrics === null || Array.isArray(row.metrics))
    throw new FileFormatError(file, undefined, 'no "metrics" object (the mean of each declared metric)');
  return row as unknown as RunSummary;
}
