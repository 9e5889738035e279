/**
 * The base policy's tries at a task, for gen-tasks' solve-rate filter: k samples, each graded by the
 * target environment's own grader. The contract is written here, below steps, so each environment's
 * folder declares its own policy solver (env-tasks.ts); the filter itself is steps/tasks/solve-rate.ts.
 */
import type { Policy } from "../policy";

/** A task as the solve-rate filter hands it to a solver. */
export interface SolvableTask {
  id: string;
  problem: string;
  answer: string;
}

export interface SolverUsage {
  prefill: number;
  sampled: number;
}

export interface TaskSolver {
  /** Names the policy and its decoding: cached tries are reused only under the same id. */
  readonly id: string;
  readonly tries: number;
  solve(task: SolvableTask, onUsage: (u: SolverUsage) => void, signal?: AbortSignal): Promise<boolean[]>;
}

export interface PolicySolverOptions {
  policy: Policy;
  tries: number;
  temperature: number;
  maxTokens: number;
  seed: number;
}

/** The policy's name in a solver id ("local-backend:Qwen/…@ckpt"). */
export function describePolicy(policy: Policy): string {
  const i = policy.describe();
  return `${i.kind}:${i.model}${i.checkpoint ? `@${i.checkpoint}` : ""}`;
}
