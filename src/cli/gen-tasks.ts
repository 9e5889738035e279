/**
 * `agent-lab gen-tasks --out DIR [--env NAME] (--candidates FILE | --generator scripted |
 *  --model ID | --model-path PATH) [--solve-rate policy|scripted|off] [--tries 8] [--dry-run]`
 * Candidates from a model (the generation prompt, data/prompts/gen-tasks.md by default), the
 * scripted generator or a file; each solution runs in the sandbox; errors, timeouts, escapes,
 * wrong answer types, duplicates, eval overlaps and tasks the base policy solves k/k or 0/k are
 * dropped, each counted. Flags, defaults and the cost estimate come from GEN_TASKS_STEP; the scripted
 * generator and the policy solver are the environment's own (its folder's gen-tasks.ts, via the registry).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { projectFile } from "../core/base/chat/package-files";
import { pricesFor } from "../core/base/config";
import { UserError } from "../core/base/errors";
import { makePolicy } from "../core/steps/eval/backends";
import { taskGeneration } from "../core/envs/registry";
import type { EnvTaskGeneration, GenTasksPlace } from "../core/harness/tasks/env-tasks";
import type { Policy } from "../core/harness/policy";
import { GEN_PROMPT_TOKENS, SOLVE_PROMPT_TOKENS } from "../core/steps/specs/estimate";
import { GEN_TASKS_STEP } from "../core/steps/catalog/catalog";
import type { FlagValues } from "../core/steps/specs/flags";
import { AUDIT_FILE, REJECTED_FILE, TASKS_FILE } from "../core/base/task-sets/files";
import { checkTasksFolder, genTasks, usdFor } from "../core/steps/tasks/gen-tasks";
import type { TaskGenerator } from "../core/steps/tasks/generators/generator";
import { ModelGenerator } from "../core/steps/tasks/generators/model";
import type { TaskEnv } from "../core/steps/tasks/task-env";
import { scriptedSolver, type TaskSolver } from "../core/steps/tasks/solvers";
import { printDryRun } from "./dry-run";
import { localBackendFor } from "./local-backend";
import { parseStepArgs, type StepArgs } from "./step-args";
import { interruptible } from "./interruptible";

type Values = FlagValues<typeof GEN_TASKS_STEP.flags>;

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(GEN_TASKS_STEP, argv);
  if (!args) return;
  const v = args.values;
  const generatorKind =
    v.candidates !== undefined
      ? undefined
      : (v.generator ?? (v.model !== undefined || v["model-path"] !== undefined ? "model" : undefined));
  if (v.candidates !== undefined && v.generator !== undefined)
    throw new UserError("--candidates and --generator exclude each other: filter a file, or generate");
  if (v.candidates === undefined && generatorKind === undefined)
    throw new UserError(
      "say where the candidates come from: --candidates FILE, --generator scripted, or --model/--model-path (with --backend)",
    );
  const needsPolicy = generatorKind === "model" || v["solve-rate"] === "policy";
  checkTasksFolder(v.out);
  if (v["dry-run"]) {
    printDryRun(GEN_TASKS_STEP, v, args.config, args.workspaceDir);
    return;
  }
  const local =
    needsPolicy && v.backend === "local" ? await localBackendFor(args.workspaceDir, v["local-port"]) : undefined;
  let policy: Policy | undefined;
  try {
    if (needsPolicy) {
      policy = await makePolicy({
        backend: v.backend,
        config: args.config,
        checkpoint: v["model-path"],
        model: v.model,
        localBackendUrl: local?.url,
      });
    }
    const generator = generatorKind ? await makeGenerator(generatorKind, v, args, policy) : undefined;
    const solver = await makeSolver(v, args, policy);
    const prices = v.backend === "tinker" && needsPolicy ? pricesFor(args.config, v.model ?? args.config.model) : null;
    await interruptible(async (signal) => {
      const r = await genTasks({
        outDir: v.out,
        env: v.env as TaskEnv,
        candidatesFile: v.candidates,
        generator: generator && {
          generator,
          count: v.count,
          promptFile: v.prompt,
          promptText: generatorKind === "model" ? promptText(v, args) : undefined,
        },
        evalItemsFile: v["eval-items"],
        solver,
        estimateDrawUsd: usdFor(prices, GEN_PROMPT_TOKENS, v["max-tokens"]),
        estimateTaskUsd: usdFor(prices, v.tries * SOLVE_PROMPT_TOKENS, v.tries * v["max-tokens"]),
        prices,
        budgetUsd: args.config.budgetUsd,
        limits: {
          ...(v["timeout-ms"] !== undefined ? { timeoutMs: v["timeout-ms"] } : {}),
          ...(v["memory-mib"] !== undefined ? { memoryBytes: v["memory-mib"] * 2 ** 20 } : {}),
        },
        command: ["agent-lab", "gen-tasks", ...argv],
        signal,
        log: (l) => console.error(l),
      });
      if (r.status !== "done" || !r.audit) throw new UserError(`${r.message ?? r.status}; what was done is kept`);
      const a = r.audit;
      const reasons = Object.entries(a.counts)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`);
      if (a.generation)
        console.log(
          `gen-tasks: ${a.generation.drawn} drafts from ${a.generation.generator} → ${a.generation.parsed} candidates (${a.generation.unparsed} unparsed)`,
        );
      console.log(
        `gen-tasks: ${a.candidates.count} candidates → ${a.accepted} tasks (yield ${a.yield}); rejected ${a.rejected}${reasons.length ? `: ${reasons.join(", ")}` : ""}`,
      );
      if (a.solve_rate.mode === "policy")
        console.log(
          `gen-tasks: solve rate by ${a.solve_rate.policy}: histogram ${JSON.stringify(a.solve_rate.histogram)}`,
        );
      console.log(`gen-tasks: wrote ${v.out}/${TASKS_FILE}, ${REJECTED_FILE}, ${AUDIT_FILE}`);
      if (!v["eval-items"])
        console.log("gen-tasks: note: no --eval-items, so no candidate was checked for overlap with an eval set");
    });
  } finally {
    policy?.close?.();
    await local?.close();
  }
}

function promptText(v: Values, args: StepArgs<typeof GEN_TASKS_STEP.flags>): string {
  const file = resolvePrompt(v.prompt, args.workspaceDir);
  return readFileSync(file, "utf8");
}

/** The prompt as given (relative to the workspace), else the shipped default next to the bundle. */
function resolvePrompt(file: string, workspaceDir: string): string {
  const inWorkspace = resolve(workspaceDir, file);
  if (existsSync(inWorkspace)) return inWorkspace;
  const shipped = projectFile(file);
  if (existsSync(shipped)) return shipped;
  throw new UserError(`--prompt ${file}: file not found`);
}

async function makeGenerator(
  kind: string,
  v: Values,
  args: StepArgs<typeof GEN_TASKS_STEP.flags>,
  policy: Policy | undefined,
): Promise<TaskGenerator> {
  if (kind === "model") {
    return new ModelGenerator({
      policy: policy!,
      promptText: promptText(v, args),
      seed: v.seed,
      temperature: v.temperature,
      maxTokens: v["max-tokens"],
      paid: v.backend === "tinker",
    });
  }
  return envTasks(v).scriptedGenerator({ seed: v.seed, ...place(v, args) });
}

/** What the environment declares for gen-tasks (every `--env` choice has it: the catalog offers those with a task answer format). */
function envTasks(v: Values): EnvTaskGeneration {
  const tasks = taskGeneration(v.env);
  if (!tasks) throw new UserError(`--env ${v.env}: this environment declares no scripted generator or policy solver`);
  return tasks;
}

function place(v: Values, args: StepArgs<typeof GEN_TASKS_STEP.flags>): GenTasksPlace {
  return {
    workspaceDir: args.workspaceDir,
    config: args.config,
    dataDir: resolve(args.workspaceDir, v.world ?? args.config.dataDir),
  };
}

async function makeSolver(
  v: Values,
  args: StepArgs<typeof GEN_TASKS_STEP.flags>,
  policy: Policy | undefined,
): Promise<TaskSolver | undefined> {
  if (v["solve-rate"] === "off") return undefined;
  if (v["solve-rate"] === "scripted") return scriptedSolver(v.seed, v.tries);
  return envTasks(v).policySolver({
    policy: policy!,
    tries: v.tries,
    temperature: v.temperature,
    maxTokens: v["max-tokens"],
    seed: v.seed,
    ...place(v, args),
  });
}
