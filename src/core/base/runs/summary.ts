/** summary.json: the numbers a run is known by, recomputed from its episodes. */
import type { Split } from "../data/question";
import type { EpisodeRecord } from "./run-files";
import { hasOneMetric, metricRoles, metricValue, UNKNOWN_ENV_METRICS, type MetricDeclaration } from "./metrics";

export type RunStatus = "running" | "done" | "failed" | "interrupted";

export interface RunSummary {
  /** Episodes finished. */
  n: number;
  /** Episodes this job set out to run (split size after --limit). */
  planned: number;
  /**
   * Means of the environment's binary and primary metric (base/runs/metrics.ts). The keys are the
   * summary format's role names, kept from before metrics were declared, so summaries of old and new
   * runs read alike (for GSM8K both are its `correct`).
   */
  em: number;
  f1: number;
  searches_per_q: number;
  /** Share of episodes that ended with a final answer (HotpotQA: an <answer>; GSM8K: a \\boxed{}). */
  answered: number;
  /** How episodes ended: answer / no_action / length / budget → count. */
  ends: Record<string, number>;
  usd_per_q: number;
  usd_total: number;
  /** Wall-clock seconds spent running, summed over resumes. */
  seconds: number;
  status: RunStatus;
  split: Split;
  model: string;
  checkpoint?: string;
  updated: string;
}

export interface SummaryContext {
  planned: number;
  seconds: number;
  status: RunStatus;
  split: Split;
  model: string;
  checkpoint?: string;
  /** The run's environment's declared metrics (absent: the v1 slots, em and f1). */
  metrics?: readonly MetricDeclaration[];
}

export function summarize(episodes: readonly EpisodeRecord[], ctx: SummaryContext): RunSummary {
  const n = episodes.length;
  const mean = (pick: (e: EpisodeRecord) => number) => (n === 0 ? 0 : episodes.reduce((s, e) => s + pick(e), 0) / n);
  const ends: Record<string, number> = {};
  for (const e of episodes) ends[e.end] = (ends[e.end] ?? 0) + 1;
  const usdTotal = episodes.reduce((s, e) => s + e.usd, 0);
  const roles = metricRoles(ctx.metrics ?? UNKNOWN_ENV_METRICS);
  return {
    n,
    planned: ctx.planned,
    em: mean((e) => metricValue(e, roles.binary)),
    f1: mean((e) => metricValue(e, roles.primary)),
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
}

/**
 * The recipe's closing line: `NAME: EM … F1 … searches … answered …% $…/q (total $…, …s)`; for an
 * environment without tools whose two metrics are one (GSM8K), `NAME: accuracy … answered …% …`.
 */
export function finalLine(name: string, s: RunSummary, env?: MetricNames): string {
  const roles = env ? metricRoles(env.metrics) : undefined;
  if (env && roles && env.tools.length === 0 && hasOneMetric(roles)) {
    return `${name}: ${roles.primary.label} ${s.f1.toFixed(3)}  answered ${Math.round(s.answered * 100)}%  $${s.usd_per_q.toFixed(4)}/q  (total $${s.usd_total.toFixed(2)}, ${s.seconds}s)`;
  }
  return (
    `${name}: EM ${s.em.toFixed(3)}  F1 ${s.f1.toFixed(3)}  searches ${s.searches_per_q.toFixed(2)}  ` +
    `answered ${Math.round(s.answered * 100)}%  $${s.usd_per_q.toFixed(4)}/q  (total $${s.usd_total.toFixed(2)}, ${s.seconds}s)`
  );
}
