/**
 * The base policy's tries at a task, for the solve-rate filter: k samples at temperature T, each
 * graded by the target environment's own grader (its folder's gen-tasks.ts declares its policy
 * solver; harness/tasks/solver.ts is the contract). Offline, a scripted solver stands in: a seeded
 * coin per try whose bias is a per-task "difficulty" hashed from the task id — it exercises the
 * filter's k/k and 0/k drops without a model and says so in its id.
 */
import { createHash } from "node:crypto";
import type { TaskSolver } from "../../harness/tasks/solver";

export type { PolicySolverOptions, SolverUsage, TaskSolver } from "../../harness/tasks/solver";

const unit = (parts: unknown[]) =>
  createHash("sha256").update(JSON.stringify(parts)).digest().readUInt32BE(0) / 2 ** 32;

export function scriptedSolver(seed: number, tries: number): TaskSolver {
  return {
    id: `scripted-solver seed=${seed} k=${tries}`,
    tries,
    async solve(task) {
      // Difficulty spread over [0, 1] so some tasks are always, some never and most sometimes solved.
      const p = Math.min(1, Math.max(0, unit(["difficulty", seed, task.id]) * 1.4 - 0.2));
      return Array.from({ length: tries }, (_, k) => unit(["try", seed, task.id, k]) < p);
    },
  };
}
