/**
 * The recipe's acceptance rule (rejection sampling, the STaR idea): of a question's attempts, keep
 * the shortest one that searched at least once and scored F1 ≥ minF1. Shortest, so the model
 * learns to ramble less; searched, so it learns to use the tool rather than to guess.
 */
import type { Episode } from "../../harness";

export interface AcceptanceRule {
  /** Lowest reward (F1 of an answered episode) to keep. */
  minF1: number;
  /** Keep only attempts with at least one search. */
  requireSearch: boolean;
}

export const DEFAULT_ACCEPTANCE: Readonly<AcceptanceRule> = Object.freeze({ minF1: 0.8, requireSearch: true });

/** In words, for the lineage manifest. */
export function describeRule(rule: AcceptanceRule): string {
  return `shortest attempt (fewest tokens after the prompt) with reward (F1) >= ${rule.minF1}${rule.requireSearch ? " and at least one search" : ""}`;
}

export function accepted(ep: Pick<Episode, "reward" | "searches">, rule: AcceptanceRule): boolean {
  return ep.reward >= rule.minF1 && (!rule.requireSearch || ep.searches.length > 0);
}

/** The attempt to keep, or undefined; ties go to the earlier attempt. */
export function chooseAttempt<E extends Pick<Episode, "reward" | "searches" | "tokens">>(
  attempts: readonly E[],
  rule: AcceptanceRule,
): E | undefined {
  let best: E | undefined;
  for (const ep of attempts) {
    if (accepted(ep, rule) && (!best || ep.tokens.length < best.tokens.length)) best = ep;
  }
  return best;
}

/** solved@N counts a question as solved when any attempt reached minF1, searched or not (the recipe's number). */
export function solved(attempts: readonly Pick<Episode, "reward">[], rule: AcceptanceRule): boolean {
  return attempts.some((ep) => ep.reward >= rule.minF1);
}
