/**
 * What an environment's folder declares for `gen-tasks --env NAME` (its optional gen-tasks.ts,
 * exporting GEN_TASKS; envs/folder-convention.json): the offline scripted generator and the policy
 * solver of the solve-rate filter, graded as its episodes are. gen-tasks finds them through the
 * registry and names no environment.
 */
import type { AgentLabConfig } from "../../base/config";
import type { TaskGenerator } from "./generator";
import type { PolicySolverOptions, TaskSolver } from "./solver";
import type { ScriptedGeneratorOptions } from "./template-generator";

/** Where gen-tasks runs: the workspace, its settings, and the data folder the tasks are about. */
export interface GenTasksPlace {
  workspaceDir: string;
  config: AgentLabConfig;
  /** `--world DIR`, else the config's dataDir, resolved against the workspace. */
  dataDir: string;
}

export interface EnvTaskGeneration {
  /** `--generator scripted`: seeded drafts, a share broken on purpose. */
  scriptedGenerator(o: ScriptedGeneratorOptions & GenTasksPlace): TaskGenerator;
  /** `--solve-rate policy`: the base policy's k tries at a task (`maxTokens` is gen-tasks' --max-tokens). */
  policySolver(o: PolicySolverOptions & GenTasksPlace): TaskSolver;
}
