/** summary.json: the numbers a run is known by, recomputed from its episodes. */
import type { Split } from "../data/question";
import type { EpisodeRecord } from "./run-files";

export type RunStatus = "running" | "done" | "failed" | "interrupted";

export interface RunSummary {
  /** Episodes finished. */
  n: number;
  /** Episodes this job set out to run (split size after --limit). */
  planned: number;
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
}

export function summarize(episodes: readonly EpisodeRecord[], ctx: SummaryContext): RunSummary {
  const n = episodes.length;
  const mean = (pick: (e: EpisodeRecord) => number) => (n === 0 ? 0 : episodes.reduce((s, e) => s + pick(e), 0) / n);
  const ends: Record<string, number> = {};
  for (const e of episodes) ends[e.end] = (ends[e.end] ?? 0) + 1;
  const usdTotal = episodes.reduce((s, e) => s + e.usd, 0);
  return {
    n,
    planned: ctx.planned,
    em: mean((e) => e.em),
    f1: mean((e) => e.f1),
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

/** How an environment names its metrics (envs/types.ts), for the closing line. */
export interface MetricNames {
  metrics: { em: string; f1: string };
  tools: readonly unknown[];
}

/**
 * The recipe's closing line: `NAME: EM … F1 … searches … answered …% $…/q (total $…, …s)`; for an
 * environment without tools whose two metrics are one (GSM8K), `NAME: accuracy … answered …% …`.
 */
export function finalLine(name: string, s: RunSummary, env?: MetricNames): string {
  if (env && env.tools.length === 0 && env.metrics.em === env.metrics.f1) {
    return `${name}: ${env.metrics.f1} ${s.f1.toFixed(3)}  answered ${Math.round(s.answered * 100)}%  $${s.usd_per_q.toFixed(4)}/q  (total $${s.usd_total.toFixed(2)}, ${s.seconds}s)`;
  }
  return (
    `${name}: EM ${s.em.toFixed(3)}  F1 ${s.f1.toFixed(3)}  searches ${s.searches_per_q.toFixed(2)}  ` +
    `answered ${Math.round(s.answered * 100)}%  $${s.usd_per_q.toFixed(4)}/q  (total $${s.usd_total.toFixed(2)}, ${s.seconds}s)`
  );
}
