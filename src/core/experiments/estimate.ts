/**
 * An experiment's cost before it starts, phase by phase, in the ledger's terms (upper bounds, like
 * every step's estimate): generation and solve-rate tries, each arm's GRPO sampling and training,
 * and the evaluation of base and every arm. The local backend is free.
 */
import { DEFAULT_CONFIG, pricesFor } from "../config";
import { costUsd } from "../ledger";
import { TYPICAL_EPISODE } from "../ledger/estimates";
import { estimateGenTasks, SOLVE_PROMPT_TOKENS } from "../steps/estimate";
import type { ExperimentSpec } from "./spec";

export interface ExperimentEstimate {
  usd: number;
  lines: { phase: string; what: string; usd: number }[];
}

/** One episode's tokens in the evaluated environment: the recipe's search episode, or one GSM8K reply. */
function episodeSize(spec: ExperimentSpec): { prefill: number; generated: number } {
  return spec.evaluation.env === "gsm8k" ? { prefill: SOLVE_PROMPT_TOKENS, generated: spec.evaluation.decoding.max_tokens } : TYPICAL_EPISODE;
}

export function estimateExperiment(spec: ExperimentSpec): ExperimentEstimate {
  const lines: ExperimentEstimate["lines"] = [];
  const paid = spec.backend === "tinker";
  const config = { ...DEFAULT_CONFIG, model: spec.base_model };
  const prices = paid ? pricesFor(config, spec.base_model) : null;
  const ep = episodeSize(spec);
  const episodeUsd = costUsd(prices, { prefill: ep.prefill, sampled: ep.generated });
  for (const a of spec.arms) {
    if (a.data.kind === "tasks" && a.data.generate) {
      const g = a.data.generate;
      const e = paid ? estimateGenTasks(config, spec.base_model, g.count, g.solve_rate.tries, g.max_tokens ?? ep.generated, g.generator === "model", g.solve_rate.mode === "policy") : { usd: 0, basis: "local backend: free" };
      lines.push({ phase: `tasks:${a.name}`, what: `${g.count} ${g.generator} drafts, solve rate ${g.solve_rate.mode} × ${g.solve_rate.tries}: ${e.basis}`, usd: e.usd });
    }
  }
  for (const a of spec.arms) {
    const g = a.grpo!;
    const episodes = g.steps * g.questions * g.group;
    const usd = episodes * episodeUsd + costUsd(prices, { trained: episodes * (ep.prefill + ep.generated) });
    lines.push({ phase: `train:${a.name}`, what: `GRPO ${g.steps} steps × ${g.questions} × ${g.group} = ${episodes} episodes (~${ep.prefill} + ${ep.generated} tokens each, all trained)`, usd });
  }
  const n = spec.evaluation.n ?? (spec.evaluation.env === "gsm8k" ? 1319 : 7405);
  const evals = spec.arms.length + 1;
  lines.push({ phase: "eval", what: `base + ${spec.arms.length} arms × ${n} items × ~${ep.prefill} + ${ep.generated} tokens${spec.evaluation.n === null ? " (the whole split)" : ""}`, usd: evals * n * episodeUsd });
  return { usd: lines.reduce((s, l) => s + l.usd, 0), lines };
}
