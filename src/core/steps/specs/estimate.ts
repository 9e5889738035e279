/**
 * What a step will cost, worked out before it starts: the one estimator behind `--dry-run`, the
 * extension's confirmation and the pipeline's plan. Upper bounds like the recipe's cost column (no
 * prefix cache). Sampling uses the $/episode measured on earlier paid runs of the same model when
 * the caller knows some, else the recipe's typical episode.
 */
import { pricesFor, type AgentLabConfig } from "../../base/config";
import { costUsd } from "../../base/ledger/ledger";
import { TYPICAL_EPISODE, TYPICAL_EPISODE_SEQUENCE } from "../../base/ledger/estimates";
import type { RunSummary } from "../../base/runs/summary";

export interface Estimate {
  usd: number;
  /** One line on how it was worked out. */
  basis: string;
}

export interface MeasuredEpisode {
  usd: number;
  from: string;
}

/** $/episode measured on earlier paid runs of this model (the run with most episodes wins), if any. */
export function measuredEpisodeUsd(
  runs: readonly { name: string; summary?: RunSummary }[],
  model: string,
): MeasuredEpisode | undefined {
  let best: { name: string; summary: RunSummary } | undefined;
  for (const r of runs) {
    const s = r.summary;
    if (!s || s.model !== model || s.n <= 0 || !(s.usd_per_q > 0)) continue;
    if (!best || s.n > best.summary.n) best = { name: r.name, summary: s };
  }
  return best && { usd: best.summary.usd_per_q, from: `${best.name} (${best.summary.n} episodes)` };
}

function perEpisode(
  config: AgentLabConfig,
  model: string,
  measured: MeasuredEpisode | undefined,
): { usd: number; basis: string } {
  if (measured) return { usd: measured.usd, basis: `$${measured.usd.toFixed(4)}/episode measured on ${measured.from}` };
  const usd = costUsd(pricesFor(config, model), {
    prefill: TYPICAL_EPISODE.prefill,
    sampled: TYPICAL_EPISODE.generated,
  });
  return {
    usd,
    basis: `$${usd.toFixed(4)}/episode for the recipe's typical episode (${TYPICAL_EPISODE.prefill} prefill + ${TYPICAL_EPISODE.generated} sampled tokens)`,
  };
}

export function estimateEpisodes(
  config: AgentLabConfig,
  model: string,
  episodes: number,
  what: string,
  measured?: MeasuredEpisode,
): Estimate {
  const e = perEpisode(config, model, measured);
  return { usd: episodes * e.usd, basis: `${what} × ${e.basis}` };
}

export function estimateSftTraining(config: AgentLabConfig, model: string, examples: number, epochs: number): Estimate {
  const p = pricesFor(config, model);
  const tokens = examples * TYPICAL_EPISODE_SEQUENCE * epochs;
  return {
    usd: costUsd(p, { trained: tokens }),
    basis: `${examples} examples × ~${TYPICAL_EPISODE_SEQUENCE} tokens × ${epochs} epochs at $${p.train}/1M train tokens`,
  };
}

export function estimateGrpoTraining(
  config: AgentLabConfig,
  model: string,
  steps: number,
  questions: number,
  group: number,
  measured?: MeasuredEpisode,
): Estimate {
  const p = pricesFor(config, model);
  const e = perEpisode(config, model, measured);
  const episodes = steps * questions * group;
  const train = costUsd(p, { trained: episodes * TYPICAL_EPISODE_SEQUENCE });
  return {
    usd: episodes * e.usd + train,
    basis: `${steps} steps × ${questions} questions × ${group} episodes: sampling at ${e.basis}, plus ~${TYPICAL_EPISODE_SEQUENCE} train tokens per episode`,
  };
}

/** "$1.23" with enough digits for cents-sized runs. */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd > 0 && usd < 0.1 ? 4 : 2)}`;
}

/** The confirmation text: estimate, basis, and the budget cap that the job will honour. */
export function confirmationText(what: string, estimate: Estimate, budgetUsd: number): string {
  const cap =
    budgetUsd > 0
      ? `The budget cap of $${budgetUsd.toFixed(2)} stops the job cleanly before it would go over.`
      : "No budget cap is set (setting agentLab.budgetUsd).";
  return `${what} bills your Tinker account: about ${formatUsd(estimate.usd)} (upper bound). ${estimate.basis}. ${cap}`;
}

/** What `--dry-run` prints. */
export function dryRunText(step: string, estimate: Estimate, budgetUsd: number): string {
  const cap = budgetUsd > 0 ? `budget cap $${budgetUsd.toFixed(2)}` : "no budget cap";
  return `agent-lab ${step} would cost about ${formatUsd(estimate.usd)} (upper bound; ${cap}): ${estimate.basis}`;
}

/** A generation prompt's size in tokens, for estimates (the shipped prompt is ~250 tokens; margin for edits). */
export const GEN_PROMPT_TOKENS = 400;
/** A solve-rate try's prompt (the target environment's few-shot turn and the problem). */
export const SOLVE_PROMPT_TOKENS = 300;

/**
 * gen-tasks: `draws` sampled drafts, then k tries at each — as an upper bound every draft is
 * assumed to survive the other filters (the seed's real yield was ~50% before the solve rate).
 */
export function estimateGenTasks(
  config: AgentLabConfig,
  model: string,
  draws: number,
  tries: number,
  maxTokens: number,
  generate: boolean,
  solve: boolean,
): Estimate {
  const p = pricesFor(config, model);
  const gen = generate ? costUsd(p, { prefill: draws * GEN_PROMPT_TOKENS, sampled: draws * maxTokens }) : 0;
  const solveUsd = solve
    ? costUsd(p, { prefill: draws * tries * SOLVE_PROMPT_TOKENS, sampled: draws * tries * maxTokens })
    : 0;
  const parts = [
    generate ? `${draws} drafts × (${GEN_PROMPT_TOKENS} prefill + ${maxTokens} sampled tokens)` : "",
    solve ? `solve rate: up to ${draws} tasks × ${tries} tries × (${SOLVE_PROMPT_TOKENS} + ${maxTokens} tokens)` : "",
  ].filter(Boolean);
  return { usd: gen + solveUsd, basis: `${parts.join("; ")} at ${model}'s prices` };
}
