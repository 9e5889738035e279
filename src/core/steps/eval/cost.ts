/**
 * What an episode costs: prefill and sampled tokens at the model's price. It is an upper bound
 * (Tinker's prefix cache is not subtracted), as in the recipe. Sources that run on this machine are
 * free; any other source must have a row in the price table before anything is spent.
 */
import { pricesFor, type AgentLabConfig, type ModelPrices } from "../../base/config";
import type { PolicyInfo } from "../../harness/policy";

/** Policy kinds that run locally and cost nothing. */
export const FREE_POLICY_KINDS: ReadonlySet<string> = new Set([
  "scripted",
  "heuristic",
  "local-backend",
  "transformers",
]);

/** The price row to charge a policy with, null when it is free; throws UserError for an unpriced model. */
export function pricesForPolicy(config: AgentLabConfig, info: PolicyInfo): ModelPrices | null {
  if (FREE_POLICY_KINDS.has(info.kind)) return null;
  return pricesFor(config, info.model);
}

export function episodeUsd(prices: ModelPrices | null, prefill: number, generated: number): number {
  if (!prices) return 0;
  return (prefill * prices.prefill + generated * prices.sample) / 1e6;
}
