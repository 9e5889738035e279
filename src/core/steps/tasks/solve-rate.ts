/**
 * The solve-rate filter: the base policy tries each task k times; a task it always solves (k/k) or
 * never solves (0/k) gives GRPO no signal (every sample in the group gets the same reward) and is
 * dropped. The policy itself comes from the caller; this module only decides.
 */
import type { SolvableTask } from "../../harness/tasks/solver";

export const DEFAULT_SOLVE_TRIES = 8;

export type { SolvableTask };

/** k tries of the base policy at one task: whether each try's answer was correct. */
export type SolveRate = (task: SolvableTask) => Promise<boolean[]>;

export type SolveRateVerdict =
  | { keep: true; rate: number; solved: number; tries: number }
  | { keep: false; reason: "solve-rate:all-solved" | "solve-rate:none-solved"; solved: number; tries: number };

export function solveRateVerdict(tries: boolean[]): SolveRateVerdict {
  if (tries.length === 0) throw new Error("a solve-rate check needs at least one try");
  const solved = tries.filter(Boolean).length;
  if (solved === tries.length) return { keep: false, reason: "solve-rate:all-solved", solved, tries: tries.length };
  if (solved === 0) return { keep: false, reason: "solve-rate:none-solved", solved, tries: tries.length };
  return { keep: true, rate: solved / tries.length, solved, tries: tries.length };
}
