/**
 * Evaluation: Evaluate… (split, model or checkpoint, name, limit), closed-book, evaluate a
 * checkpoint from its node, rerun an eval with the current prompt, edit the prompt, rescore and
 * resume a run. Every job goes through `startStep` (estimate, confirm, start).
 *
 * Each first checks the environment's data is prepared (prepare-flow.ts: else one message offering Prepare Data).
 *
 *   agentLab.evaluate             pick environment, split, model/checkpoint, name, limit → job `eval --env …`
 *   agentLab.evaluateClosedBook   same with --closed-book
 *   agentLab.evaluateCheckpoint   (checkpoint node, or the dashboard's Evaluate) → `eval --env <its training run's> --split val --model-path …`
 *                                 (a tinker-cookbook checkpoint: its config.json's environment, else picked)
 *   agentLab.editSystemPrompt     open the workspace prompt (copied from the shipped default on first use)
 *   agentLab.rerunEvalWithPrompt  (prompt file from the code lens) the prompt loop; (run or palette) rerun a val eval's settings with the current prompt, then compare
 *   agentLab.rescoreRun           job `score RUN`
 *   agentLab.resumeRun            the run's own recorded command + --resume
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { checkpointEnvironment } from "../../core/envs/checkpoint-environment";
import type { Split } from "../../core/base/data/question";
import { TYPED_QUESTIONS } from "../../core/base/runs/manifest";
import { EVAL_STEP, findStep, SCORE_STEP } from "../../core/steps/catalog/catalog";
import { parseFlags } from "../../core/steps/specs/flags";
import type { Job } from "../jobs/job-runner";
import { openCompare } from "../panels";
import * as promptLoop from "./prompt-loop";
import { defaultEvalName, evalValues, uniqueRunName, type StepValues } from "./cli-args";
import { environmentRunName, runEnvironment } from "./environment-choices";
import { checkpointFrom, runFromArg, startStep, takenRunNames, type CommandTable, type Lab, type StepJob } from "./lab";
import type { CheckpointEntry } from "../checkpoints/checkpoints-model";
import * as pick from "./pickers";
import { ensureEnvironmentData } from "./prepare-flow";

export type EvalValues = StepValues<typeof EVAL_STEP>;

/** An eval of the workspace's backend; the title names it in the Jobs view and the confirmation. */
export function startEval(lab: Lab, values: Omit<EvalValues, "backend">, title: string): Promise<Job | undefined> {
  return startStep(lab, {
    spec: EVAL_STEP,
    values: evalValues({ ...values, backend: lab.workspace.backend() }),
    title,
  });
}

async function evaluate(lab: Lab, closedBook: boolean): Promise<void> {
  const title = closedBook ? "Agent Lab: Evaluate Closed-Book" : "Agent Lab: Evaluate";
  const config = lab.workspace.config();
  // The closed-book floor means "without the tools": only environments that have some.
  const env = await pick.pickEnvironment(title, config.env, closedBook ? (hasTools) => hasTools : undefined);
  if (!env) return;
  if (!(await ensureEnvironmentData(lab, env, closedBook ? "Evaluate Closed-Book" : "Evaluate", !closedBook))) return;
  const split = await pick.pickSplit(title);
  if (!split) return;
  const models = [config.model, ...Object.keys(config.prices).filter((m) => m !== config.model)];
  const model = closedBook ? {} : await pick.pickModel(title, models, lab.checkpoints.rows().rows);
  if (!model) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(
    title,
    uniqueRunName(environmentRunName(env, defaultEvalName(split, closedBook, model.checkpointName)), taken),
    taken,
  );
  if (!name) return;
  const limit = await pick.inputFlag(
    title,
    "Questions to run (blank = the whole split)",
    "limit",
    EVAL_STEP.flags.limit,
    undefined,
    true,
  );
  if (limit === null) return;
  await startEval(
    lab,
    { name, env, split, "closed-book": closedBook, limit, "model-path": model.modelPath, model: model.model },
    evalJobTitle(name, env, split, closedBook),
  );
}

/**
 * An eval job's title (the Jobs view's row, its notifications): the run first, since several evals
 * of one environment differ only there and a narrow side bar cuts a row's end.
 */
function evalJobTitle(name: string, env: string, split: string, closedBook: boolean): string {
  return `Evaluate ${name} (${env} ${split}${closedBook ? ", closed-book" : ""})`;
}

/**
 * The environment a checkpoint answers: the one its training run names, not the workspace default.
 * A tinker-cookbook checkpoint's is the one its folder's config.json names; when it names none, the user picks.
 */
export async function checkpointEvalEnvironment(lab: Lab, entry: CheckpointEntry): Promise<string | undefined> {
  return entry.cookbook
    ? (entry.cookbook.environment ??
        (await pick.pickEnvironment(
          `Agent Lab: Evaluate ${entry.name} — its config.json names no environment we know: which is it?`,
          lab.workspace.config().env,
        )))
    : (checkpointEnvironment(lab.workspace.requireFolder(), lab.workspace.runsDir(), entry)?.name ??
        lab.workspace.config().env);
}

/** The val eval of a checkpoint as Evaluate on Val starts it (the Checkpoints sidebar's Evaluate missing starts several). */
export function checkpointEvalJob(
  lab: Lab,
  env: string,
  name: string,
  samplerPath: string,
): StepJob<typeof EVAL_STEP.flags> {
  return {
    spec: EVAL_STEP,
    values: evalValues({ name, env, split: "val", "model-path": samplerPath, backend: lab.workspace.backend() }),
    title: evalJobTitle(name, env, "val", false),
  };
}

async function evaluateCheckpoint(lab: Lab, arg: unknown): Promise<void> {
  const entry = checkpointFrom(arg)?.row.entry;
  if (!entry?.sampler_path) {
    void vscode.window.showWarningMessage("Agent Lab: this checkpoint has no sampler path to evaluate.");
    return;
  }
  const env = await checkpointEvalEnvironment(lab, entry);
  if (!env) return;
  if (!(await ensureEnvironmentData(lab, env, "Evaluate Checkpoint"))) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(
    "Agent Lab: Evaluate Checkpoint on val",
    uniqueRunName(environmentRunName(env, entry.name), taken),
    taken,
  );
  if (!name) return;
  await startStep(lab, checkpointEvalJob(lab, env, name, entry.sampler_path));
}

/** From the palette or the Runs view: rerun a val eval's settings with the current prompt, then compare. */
async function rerunEvalWithPrompt(lab: Lab, arg: unknown): Promise<void> {
  // The prompt file's code lens passes the file: that is the prompt loop's own flow.
  if (typeof arg === "string" && promptLoop.isPromptFileArg(lab, arg)) {
    await promptLoop.rerunEvalWithPrompt(lab, arg);
    return;
  }
  const config = lab.workspace.config();
  // Typed questions (the playground's) are in no split: there is nothing to rerun them on.
  const rows = lab.runs
    .currentRows()
    .filter(
      (r) => r.kind === "eval" && r.manifest && r.summary?.split !== "test" && r.summary?.split !== TYPED_QUESTIONS,
    );
  const base =
    runFromArg(lab, arg) ?? (await pick.pickRun("Agent Lab: Rerun Eval With Current Prompt — which eval?", rows));
  if (!base?.manifest) return;
  if (
    !(await ensureEnvironmentData(
      lab,
      runEnvironment(base),
      "Rerun Eval",
      !(base.manifest.search?.closed_book ?? false),
    ))
  )
    return;
  const m = base.manifest;
  const stamp = new Date().toISOString().replace(/[-:]/g, "").slice(4, 13);
  const name = uniqueRunName(`${base.name}-prompt-${stamp}`, takenRunNames(lab));
  const job = await startEval(
    lab,
    {
      name,
      env: runEnvironment(base),
      split: m.split.name as Split,
      "closed-book": m.search?.closed_book ?? false,
      limit: m.job.limit,
      "model-path": m.policy.checkpoint,
      prompt: config.systemPromptFile || undefined,
    },
    `Rerun ${base.name} with the current prompt: ${name}`,
  );
  if (!job) return;
  void job.finished.then((s) =>
    s.state === "done"
      ? openCompare(lab.context, [base.dir, path.join(lab.workspace.runsDir(), name)], "prompt")
      : undefined,
  );
}

/** Resume with the run's own recorded command, parsed by its step's spec (so a changed flag set says so). */
async function resumeRun(lab: Lab, arg: unknown): Promise<void> {
  const run = runFromArg(lab, arg);
  const recorded = run?.manifest?.job?.command;
  const cliArgs = recorded && recorded[0] === "agent-lab" ? recorded.slice(1) : recorded;
  const spec = cliArgs && findStep(cliArgs[0]);
  if (!run || !cliArgs || !spec) {
    void vscode.window.showWarningMessage("Agent Lab: this run has no recorded command to resume.");
    return;
  }
  const { values, positionals } = parseFlags(spec.flags, cliArgs.slice(1), {
    command: `agent-lab ${spec.name}`,
    allowPositionals: spec.positionals !== undefined,
  });
  if (!("resume" in spec.flags)) {
    void vscode.window.showWarningMessage(`Agent Lab: agent-lab ${spec.name} runs cannot be resumed.`);
    return;
  }
  // Spec-generic values are typed loosely (any step's flags): resume is its boolean flag.
  const resumed = { ...values, resume: true } as unknown as typeof values;
  await startStep(lab, { spec, values: resumed, positionals, title: `Resume ${run.name}`, runDir: run.dir });
}

export function evalCommands(lab: Lab): CommandTable {
  return {
    "agentLab.evaluate": () => evaluate(lab, false),
    "agentLab.evaluateClosedBook": () => evaluate(lab, true),
    "agentLab.evaluateCheckpoint": (a) => evaluateCheckpoint(lab, a),
    "agentLab.editSystemPrompt": () => promptLoop.editSystemPrompt(lab),
    "agentLab.rerunEvalWithPrompt": (a) => rerunEvalWithPrompt(lab, a),
    "agentLab.rescoreRun": (a) => {
      const run = runFromArg(lab, a);
      return (
        run &&
        startStep(lab, {
          spec: SCORE_STEP,
          values: {},
          positionals: [run.dir],
          title: `Rescore ${run.name}`,
          runDir: run.dir,
        })
      );
    },
    "agentLab.resumeRun": (a) => resumeRun(lab, a),
  };
}
