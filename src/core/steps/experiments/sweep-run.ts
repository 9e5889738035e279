/**
 * How a sweep runs: its arms' phase chains (tasks, SFT data, SFT, GRPO, eval — in that order within
 * an arm) run side by side, at most `max_concurrent_arms` chains at once, each phase still through
 * the recipe engine (which skips finished phases, so a resumed sweep runs only its unfinished arms,
 * and checks the one budget before each phase against spend plus the phases in flight). And what
 * `--dry-run` says of it: every arm with its values and its estimate, and the total.
 */
import type { ExperimentEstimate } from "./estimate";
import type { ExperimentSpec } from "./spec";

/** An arm's phases, by the prefix of their names (`train:<arm>`), in the order an arm's chain runs them. */
export const ARM_PHASES = ["tasks", "sft-data", "sft", "train", "eval"] as const;

/** The phase name of an arm's phase (phases.json's key). */
export const armPhase = (prefix: (typeof ARM_PHASES)[number], arm: string) => `${prefix}:${arm}`;

/** What an arm's own phases are estimated at (its tasks, SFT, GRPO and evaluation). */
export function armEstimateUsd(estimate: ExperimentEstimate, arm: string): number {
  return ARM_PHASES.reduce((s, p) => s + (estimate.phases[armPhase(p, arm)] ?? 0), 0);
}

/** The dry run's lines for a sweep: how it expands, each arm with its values and estimate, the total. */
export function sweepPlanLines(spec: ExperimentSpec, estimate: ExperimentEstimate): string[] {
  const sweep = spec.sweep;
  if (!sweep) return [];
  const values = (name: string) => {
    const pt = sweep.points.find((p) => p.name === name);
    return pt
      ? sweep.params
          .filter((k) => k in pt.values)
          .map((k) => `${k}=${pt.values[k]}`)
          .join(" ")
      : "(as written)";
  };
  const width = Math.max(...spec.arms.map((a) => a.name.length));
  const shared = estimate.usd - spec.arms.reduce((s, a) => s + armEstimateUsd(estimate, a.name), 0);
  return [
    `sweep over ${sweep.params.join(", ")} of arm ${sweep.arm}: ${spec.arms.length} arms, up to ${sweep.max_concurrent_arms} at once, ranked against ${sweep.baseline}`,
    ...spec.arms.map(
      (a) => `  ${a.name.padEnd(width)}  ${values(a.name)} — ≈ $${armEstimateUsd(estimate, a.name).toFixed(2)}`,
    ),
    `  shared phases (data, init, eval:base) ≈ $${shared.toFixed(2)}; all arms together ≈ $${(estimate.usd - shared).toFixed(2)}; total ≈ $${estimate.usd.toFixed(2)}`,
  ];
}

/**
 * Runs each chain's items in order, up to `limit` chains at once. A failing chain stops only
 * itself at once; the others finish the item they are in and start no new chain; the first error
 * is thrown once every chain in flight has settled (so no phase is left half recorded).
 */
export async function runChains<T>(
  chains: readonly T[][],
  limit: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < chains.length) {
      const chain = chains[next++];
      try {
        for (const item of chain) {
          if (failure) return;
          await run(item);
        }
      } catch (e) {
        failure ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, chains.length)) }, worker));
  if (failure) throw failure.error;
}
