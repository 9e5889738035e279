/**
 * Cost estimates shown before a step that bills Tinker, in the ledger's terms (an upper bound: no
 * prefix cache). Eval and data collection use the measured $/episode of earlier runs of the same
 * model when there are some, else the recipe's typical episode. vscode-free, tested in plain Node.
 */
import { pricesFor, type AgentLabConfig, type ModelPrices } from "../../core/config";
import type { RunRow } from "../runs/runs-model";

/** The recipe's typical episode: ~3 turns, ~2,000 prefill and ~80 sampled tokens. */
export const TYPICAL_EPISODE = { prefill: 2000, generated: 80 } as const;
/** Tokens of one finished episode's whole sequence, what a training step passes through the model. */
export const TYPICAL_SEQUENCE = 1000;
/** The recipe's GRPO batch: 32 questions × 8 episodes per step. */
export const RECIPE_GRPO = { questions: 32, group: 8 } as const;

export interface Estimate {
  usd: number;
  /** One line on how it was worked out. */
  basis: string;
}

function typicalEpisodeUsd(p: ModelPrices): number {
  return (TYPICAL_EPISODE.prefill * p.prefill + TYPICAL_EPISODE.generated * p.sample) / 1e6;
}

/** $/episode measured on earlier paid runs of this model (most episodes wins), if any. */
export function measuredEpisodeUsd(rows: readonly RunRow[], model: string): { usd: number; from: string } | undefined {
  const paid = rows.filter((r) => r.summary && r.summary.model === model && r.summary.n > 0 && r.summary.usd_per_q > 0);
  if (paid.length === 0) return undefined;
  const best = paid.reduce((a, b) => (b.summary!.n > a.summary!.n ? b : a));
  return { usd: best.summary!.usd_per_q, from: `${best.name} (${best.summary!.n} episodes)` };
}

function perEpisode(config: AgentLabConfig, model: string, rows: readonly RunRow[]): { usd: number; basis: string } {
  const measured = measuredEpisodeUsd(rows, model);
  if (measured) return { usd: measured.usd, basis: `$${measured.usd.toFixed(4)}/episode measured on ${measured.from}` };
  const usd = typicalEpisodeUsd(pricesFor(config, model));
  return { usd, basis: `$${usd.toFixed(4)}/episode for the recipe's typical episode (${TYPICAL_EPISODE.prefill} prefill + ${TYPICAL_EPISODE.generated} sampled tokens)` };
}

export function estimateEval(config: AgentLabConfig, model: string, questions: number, rows: readonly RunRow[]): Estimate {
  const e = perEpisode(config, model, rows);
  return { usd: questions * e.usd, basis: `${questions} questions × ${e.basis}` };
}

export function estimateSftData(config: AgentLabConfig, model: string, questions: number, tries: number, rows: readonly RunRow[]): Estimate {
  const e = perEpisode(config, model, rows);
  return { usd: questions * tries * e.usd, basis: `${questions} questions × ${tries} tries × ${e.basis}` };
}

export function estimateTrainSft(config: AgentLabConfig, model: string, examples: number, epochs: number): Estimate {
  const p = pricesFor(config, model);
  const tokens = examples * TYPICAL_SEQUENCE * epochs;
  return { usd: (tokens * p.train) / 1e6, basis: `${examples} examples × ~${TYPICAL_SEQUENCE} tokens × ${epochs} epochs at $${p.train}/1M train tokens` };
}

export function estimateTrainGrpo(config: AgentLabConfig, model: string, steps: number, rows: readonly RunRow[]): Estimate {
  const p = pricesFor(config, model);
  const e = perEpisode(config, model, rows);
  const episodes = steps * RECIPE_GRPO.questions * RECIPE_GRPO.group;
  const train = (episodes * TYPICAL_SEQUENCE * p.train) / 1e6;
  return {
    usd: episodes * e.usd + train,
    basis: `${steps} steps × ${RECIPE_GRPO.questions} questions × ${RECIPE_GRPO.group} episodes: sampling at ${e.basis}, plus ~${TYPICAL_SEQUENCE} train tokens per episode`,
  };
}

/** The confirmation text: estimate, basis, and the budget cap that the job will honour. */
export function confirmationText(what: string, estimate: Estimate, budgetUsd: number): string {
  const cap = budgetUsd > 0 ? `The budget cap of $${budgetUsd.toFixed(2)} stops the job cleanly before it would go over.` : "No budget cap is set (setting agentLab.budgetUsd).";
  return `${what} bills your Tinker account: about $${estimate.usd.toFixed(2)} (upper bound). ${estimate.basis}. ${cap}`;
}
