/**
 * An experiment's tasks phase for one arm: gen-tasks with the spec's generator (the base model
 * through the shipped or the workspace's generation prompt, or the scripted generator of the
 * arm's environment), the sandbox and every filter, and the solve rate by the init policy (the
 * environment's policy solver: its episodes or replies, graded as it grades) or the scripted
 * stand-in. The same pieces `agent-lab gen-tasks` puts together from its flags; the environment's
 * own ones come from its folder's gen-tasks.ts through the registry.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { projectFile } from "../../base/chat/package-files";
import { pricesFor, type AgentLabConfig } from "../../base/config";
import { UserError } from "../../base/errors";
import { makePolicy } from "../eval/backends";
import { taskGeneration } from "../../envs/registry";
import type { EnvTaskGeneration, GenTasksPlace } from "../../harness/tasks/env-tasks";
import { DEFAULT_GEN_PROMPT } from "../specs/common-flags";
import { GEN_PROMPT_TOKENS, SOLVE_PROMPT_TOKENS } from "../specs/estimate";
import { FILTER_ORDER } from "../tasks/filter";
import { genTasks, usdFor } from "../tasks/gen-tasks";
import type { TaskGenerator } from "../tasks/generators/generator";
import { ModelGenerator } from "../tasks/generators/model";
import { scriptedSolver, type TaskSolver } from "../tasks/solvers";
import type { UnitProgress } from "../../base/runs/progress";
import type { ExperimentEnv, GenerateRecipe } from "./spec";

export interface ArmTasksOptions {
  /** The tasks folder (a run folder under the experiment's runs/). */
  outDir: string;
  workspaceDir: string;
  /** The workspace's data folder (what the environment's scripted generator and policy solver read, e.g. a corpus and its index). */
  dataDir: string;
  /** The evaluation's items: candidates overlapping them are dropped. */
  evalItemsFile: string;
  config: AgentLabConfig;
  /** What is left of the experiment's budget: gen-tasks' own cap. */
  budgetUsd: number;
  backend: "local" | "tinker";
  /** The init point's sampler (undefined: the base model): it drafts and tries the tasks. */
  initSampler: string | undefined;
  tokenizer: string | undefined;
  localBackendUrl: string | undefined;
  /** Reply tokens when the recipe sets none (the evaluation's). */
  evalMaxTokens: number;
  command: string[];
  signal?: AbortSignal;
  log: (line: string) => void;
  /** gen-tasks' own progress (the experiment nests it under its phase). */
  onProgress?: (p: UnitProgress) => void;
}

export async function generateArmTasks(
  arm: string,
  env: ExperimentEnv,
  g: GenerateRecipe,
  o: ArmTasksOptions,
): Promise<void> {
  const paid = o.backend === "tinker";
  const prices = paid ? pricesFor(o.config, o.config.model) : null;
  const needsPolicy = g.generator === "model" || g.solve_rate.mode === "policy";
  const policy = needsPolicy
    ? await makePolicy({
        backend: o.backend,
        config: o.config,
        checkpoint: o.initSampler,
        tokenizer: o.tokenizer,
        localBackendUrl: o.localBackendUrl,
      })
    : undefined;
  try {
    const maxTokens = g.max_tokens ?? o.evalMaxTokens;
    const temperature = g.temperature ?? 1;
    const place: GenTasksPlace = { workspaceDir: o.workspaceDir, config: o.config, dataDir: o.dataDir };
    let generator: TaskGenerator;
    let promptText: string | undefined;
    if (g.generator === "model") {
      promptText = readFileSync(generationPrompt(g.prompt ?? DEFAULT_GEN_PROMPT, o.workspaceDir), "utf8");
      generator = new ModelGenerator({ policy: policy!, promptText, seed: g.seed, temperature, maxTokens, paid });
    } else {
      generator = envTasks(arm, env).scriptedGenerator({ seed: g.seed, ...place });
    }
    let solver: TaskSolver | undefined;
    if (g.solve_rate.mode === "scripted") solver = scriptedSolver(g.seed, g.solve_rate.tries);
    else if (g.solve_rate.mode === "policy")
      solver = envTasks(arm, env).policySolver({
        policy: policy!,
        tries: g.solve_rate.tries,
        temperature,
        maxTokens,
        seed: g.seed,
        ...place,
      });
    const r = await genTasks({
      outDir: o.outDir,
      env,
      generator: {
        generator,
        count: g.count,
        promptFile: g.generator === "model" ? (g.prompt ?? DEFAULT_GEN_PROMPT) : undefined,
        promptText,
      },
      evalItemsFile: o.evalItemsFile,
      solver,
      prices,
      budgetUsd: o.budgetUsd,
      estimateDrawUsd: usdFor(prices, GEN_PROMPT_TOKENS, maxTokens),
      estimateTaskUsd: usdFor(prices, g.solve_rate.tries * SOLVE_PROMPT_TOKENS, g.solve_rate.tries * maxTokens),
      limits: g.timeout_ms ? { timeoutMs: g.timeout_ms } : undefined,
      command: o.command,
      signal: o.signal,
      log: o.log,
      onProgress: o.onProgress,
    });
    if (r.status !== "done" || !r.audit) throw new UserError(`gen-tasks for ${arm} stopped: ${r.message ?? r.status}`);
    const c = r.audit.counts;
    o.log(
      `${r.audit.candidates.count} candidates → ${r.audit.accepted} tasks; ${FILTER_ORDER.filter((k) => c[k] > 0)
        .map((k) => `${k} ${c[k]}`)
        .join(", ")}`,
    );
  } finally {
    policy?.close?.();
  }
}

/** What the arm's environment declares for gen-tasks (its folder's gen-tasks.ts). */
function envTasks(arm: string, env: ExperimentEnv): EnvTaskGeneration {
  const tasks = taskGeneration(env);
  if (!tasks)
    throw new UserError(
      `arm ${arm}: ${env} declares no scripted generator or policy solver (its folder has no gen-tasks.ts); give the arm a tasks "dir" or use the model generator with solve_rate "scripted" or "off"`,
    );
  return tasks;
}

/** The generation prompt as the spec names it: in the workspace, else the shipped file. */
function generationPrompt(file: string, workspaceDir: string): string {
  const here = isAbsolute(file) ? file : join(workspaceDir, file);
  if (existsSync(here)) return here;
  const shipped = projectFile(file);
  if (existsSync(shipped)) return shipped;
  throw new UserError(`generate.prompt ${file}: file not found in ${workspaceDir} or among the shipped prompts`);
}
