/**
 * What every feature's commands share: the extension's parts (`Lab`), the one "estimate, confirm,
 * start" path every job goes through, and the small lookups commands make from their arguments
 * (a Runs node, a run folder, a checkpoint node, a job).
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { confirmationText } from "../../core/steps/specs/estimate";
import type { FlagSpecs, FlagValues } from "../../core/steps/specs/flags";
import type { StepSpec } from "../../core/steps/specs/spec";
import type { CheckpointNode, CheckpointsProvider } from "../checkpoints/checkpoints-provider";
import type { ExperimentsProvider } from "../experiments/experiments-provider";
import type { CheckpointsSidebar } from "../checkpoints/checkpoints-sidebar";
import type { Job, JobRequest, JobRunner } from "../jobs/job-runner";
import type { LabWorkspace } from "../workspace/lab-workspace";
import type { CookbookRuns } from "../runs/cookbook-runs";
import type { RunsNode, RunsProvider } from "../runs/runs-provider";
import type { RunRow } from "../runs/runs-model";
import type { ApiKeyStore } from "../secrets/api-key";
import { planStep } from "./step-plan";

export interface Lab {
  context: vscode.ExtensionContext;
  workspace: LabWorkspace;
  keys: ApiKeyStore;
  jobs: JobRunner;
  runs: RunsProvider;
  checkpoints: CheckpointsProvider;
  /** Every experiment in the folder, wherever it was run (the Experiments view). */
  experiments: ExperimentsProvider;
  /** The Checkpoints sidebar (a webview view): scores, Δ against a baseline, the best by val. */
  checkpointsSidebar: CheckpointsSidebar;
  /** tinker-cookbook log folders shown beside Agent Lab's runs. */
  cookbook: CookbookRuns;
}

/** A feature's commands: id → handler (registered, with one error guard, by registerCommands). */
export type CommandTable = Record<string, (...args: unknown[]) => unknown>;

export interface StepJob<F extends FlagSpecs> {
  spec: StepSpec<F>;
  values: Partial<FlagValues<F>>;
  positionals?: readonly string[];
  /** The job's title (Jobs view, notification, output channel). */
  title: string;
  /** The run folder the job writes (progress.json, Open, Compare); default runsDir/<values.name> for steps that write a run. */
  runDir?: string;
  showProgress?: boolean;
  revealOutput?: boolean;
  finish?: JobRequest["finish"];
  runsRoot?: string;
  /** The user already confirmed this job's cost (one confirmation for several jobs): no modal of its own. */
  confirmed?: boolean;
}

/**
 * Every job starts here: the argv from the step's spec, the cost from core's estimator (the number
 * `--dry-run` prints), a modal confirmation before anything that bills Tinker, then the job.
 * Undefined when the user declined.
 */
export async function startStep<F extends FlagSpecs>(lab: Lab, job: StepJob<F>): Promise<Job | undefined> {
  const plan = planStep(
    job.spec,
    job.values,
    { folder: lab.workspace.requireFolder(), overrides: lab.workspace.overrides() },
    job.positionals,
  );
  if (plan.estimate && !job.confirmed) {
    const text = confirmationText(job.title, plan.estimate, plan.config.budgetUsd);
    if ((await vscode.window.showWarningMessage(text, { modal: true }, "Start")) !== "Start") return undefined;
  }
  const name = (plan.values as Record<string, unknown>).name;
  const runDir =
    job.runDir ??
    (job.spec.writes && typeof name === "string" ? path.join(lab.workspace.runsDir(plan.config), name) : undefined);
  const request: JobRequest = {
    title: job.title,
    command: plan.argv,
    runDir,
    spendsMoney: plan.spendsMoney,
    estimateUsd: plan.estimate?.usd,
    showProgress: job.showProgress,
    revealOutput: job.revealOutput,
    finish: job.finish,
    runsRoot: job.runsRoot,
  };
  return lab.jobs.start(request);
}

export function takenRunNames(lab: Lab): Set<string> {
  return new Set(lab.runs.currentRows().map((r) => r.name));
}

/** A run folder from whatever a command was given: a tree node, a path or name, or nothing. */
export function runFromArg(lab: Lab, arg: unknown): RunRow | undefined {
  const rows = lab.runs.currentRows();
  if (typeof arg === "string") return rows.find((r) => r.dir === path.resolve(arg) || r.name === arg);
  const node = arg as RunsNode | undefined;
  if (node?.type === "run") return node.row;
  if (node && (node.type === "group" || node.type === "episode")) return node.run;
  return undefined;
}

export type CheckpointEntryNode = Extract<CheckpointNode, { type: "checkpoint" | "detail" }>;

export function checkpointFrom(arg: unknown): CheckpointEntryNode | undefined {
  const node = arg as CheckpointNode | undefined;
  return node && (node.type === "checkpoint" || node.type === "detail") ? (node as CheckpointEntryNode) : undefined;
}

export function isJob(arg: unknown): arg is Job {
  return typeof arg === "object" && arg !== null && "record" in arg && "status" in arg;
}
