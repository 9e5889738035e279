/**
 * Experiments from the palette:
 *
 *   agentLab.runExperiment       pick a spec JSON in the workspace (a Tinker spec: run, or rehearse against
 *                                TINKER_BASE_URL) → the estimate from `--dry-run`'s numbers in the confirmation
 *                                → job `experiment run SPEC --yes`, its progress (phase i/n, the phase's step
 *                                n/N, spend of budget, one ETA) in the Jobs view, the status bar and the panel
 *   agentLab.openExperiment      (Experiments node, or pick among every experiment in the folder) → panel
 *   agentLab.resumeExperiment    (interrupted or failed experiment) → the same `experiment run` into its folder
 *   agentLab.rerunExperiment     (experiment) → its spec again from scratch, into a new folder beside it
 *   agentLab.validateExperiment  (experiment) → job `experiment validate DIR` → each check, in a list and the panel
 *   agentLab.revealExperiment    (experiment) → its record folder in the Explorer
 *   agentLab.openExperimentRun   (a run under an arm) → its dashboard (training) or traces (eval)
 */
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { EXPERIMENT_STEP } from "../../core/steps/catalog/catalog";
import { UserError } from "../../core/base/errors";
import { sha256Hex } from "../../core/base/runs/manifest";
import { readJsonFile } from "../../core/base/runs/run-files";
import { runFile } from "../../core/base/runs/run-folder";
import { readExperimentSpec } from "../../core/steps/experiments/spec";
import { rehearsalSpec } from "../../core/steps/experiments/rehearsal";
import { readValidationFile } from "../../core/steps/experiments/validation-file";
import type { ExperimentEntry } from "../../core/views/experiments/experiment-list";
import type { ExperimentNode, ExperimentsProvider } from "../experiments/experiments-provider";
import { OPEN_EXPERIMENT_RUN_COMMAND } from "../experiments/experiments-provider";
import { openDashboard, openExperiment, openTrace } from "../panels";
import { experimentJob, findExperimentSpecs } from "./experiment-specs";
import { runFromArg, startStep, type CommandTable, type Lab } from "./lab";

const TITLE = "Agent Lab: Run Experiment";

async function runExperiment(lab: Lab): Promise<void> {
  const folder = lab.workspace.requireFolder();
  const specs = findExperimentSpecs(folder);
  if (specs.length === 0) {
    void vscode.window.showInformationMessage(
      `Agent Lab: no experiment spec (a JSON file with "format": "agent-lab.experiment/1") in this workspace; examples/ in the Agent Lab repository has two.`,
    );
    return;
  }
  const picked = await vscode.window.showQuickPick(
    specs.map((s) => ({ label: s.name, description: `${s.backend} · ${s.rel}`, detail: s.title, spec: s })),
    { title: TITLE, placeHolder: "Experiment spec", matchOnDescription: true },
  );
  if (!picked) return;
  let rehearse = false;
  if (picked.spec.backend === "tinker") {
    const how = await vscode.window.showQuickPick(
      [
        { label: "Run on Tinker", description: "the spec as written (its estimate is shown next)", rehearse: false },
        {
          label: "Rehearse",
          description: "every phase at tiny sizes against TINKER_BASE_URL (serve-local: free), stand-in tokenizer",
          rehearse: true,
        },
      ],
      { title: TITLE, placeHolder: picked.spec.name },
    );
    if (!how) return;
    rehearse = how.rehearse;
  }
  const job = experimentJob(picked.spec.file, folder, rehearse);
  await startStep(lab, {
    spec: EXPERIMENT_STEP,
    values: job.values,
    positionals: job.positionals,
    title: job.title,
    runDir: job.runDir,
    runsRoot: job.runsRoot,
    showProgress: true,
  });
}

/** The experiment a command was given (a node of the Experiments view, a record folder), else one picked. */
async function experimentFromArg(
  experiments: ExperimentsProvider,
  arg: unknown,
  title: string,
  filter: (e: ExperimentEntry) => boolean = () => true,
): Promise<ExperimentEntry | undefined> {
  const node = arg as ExperimentNode | undefined;
  if (node && typeof node === "object" && "entry" in node) return node.entry;
  const all = experiments.list();
  if (typeof arg === "string") return all.find((e) => e.recordDir === path.resolve(arg));
  const candidates = all.filter(filter);
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(
      `Agent Lab: no experiments in this folder for "${title}"; start one with Agent Lab: Run Experiment….`,
    );
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((e) => ({
      label: e.name,
      description: `${e.state}${e.verdict ? ` · ${e.verdict}` : ""} · ${path.relative(lab0(experiments), e.recordDir)}`,
      detail: e.title,
      entry: e,
    })),
    { title, matchOnDescription: true },
  );
  return picked?.entry;
}

/** The opened folder (the picks show record folders relative to it). */
const lab0 = (experiments: ExperimentsProvider) => experiments.folder() ?? "";

async function openExperimentCommand(lab: Lab, experiments: ExperimentsProvider, arg: unknown): Promise<void> {
  // A run of the Runs view (an experiment run there) still opens.
  const run = typeof arg === "string" ? undefined : runFromArg(lab, arg);
  if (run?.kind === "experiment") return openExperiment(lab.context, run.dir);
  const e = await experimentFromArg(experiments, arg, "Agent Lab: Open Experiment");
  if (e) await openExperiment(lab.context, e.recordDir);
}

/**
 * The spec file and flags that run `e` again: for a spec on the local backend its record's spec.json
 * (the spec exactly as it ran: the same hash, so its phases resume); for a Tinker spec (or a
 * rehearsal of one) the workspace's spec file of that name, so a rehearsal is never rerun as a paid run.
 */
function specToRerun(e: ExperimentEntry, folder: string): { file: string; rehearse: boolean } {
  const stored = readJsonFile<{ backend?: unknown }>(e.specFile);
  if (stored?.backend === "local") return { file: e.specFile, rehearse: false };
  const manifestHash = readJsonFile<{ spec_sha256?: unknown }>(runFile(e.recordDir, "manifest"))?.spec_sha256;
  for (const s of findExperimentSpecs(folder)) {
    if (s.name === e.name && sha256Hex(readFileSync(s.file, "utf8")) === manifestHash)
      return { file: s.file, rehearse: false };
    if (s.backend === "tinker" && rehearsalSpec(readExperimentSpec(s.file).spec).name === e.name)
      return { file: s.file, rehearse: true };
  }
  throw new UserError(
    `no spec file in this folder runs ${e.name} as it ran (${path.relative(folder, e.specFile)} is a Tinker spec: keep its original file in the workspace, then run it with Agent Lab: Run Experiment…)`,
  );
}

async function startExperimentRun(lab: Lab, e: ExperimentEntry, dir: string, title: string): Promise<void> {
  const folder = lab.workspace.requireFolder();
  const spec = specToRerun(e, folder);
  const name = path.basename(e.recordDir);
  await startStep(lab, {
    spec: EXPERIMENT_STEP,
    values: { yes: true, dir, ...(spec.rehearse ? { rehearse: true } : {}) },
    positionals: ["run", spec.file],
    title,
    runDir: path.join(dir, "runs", name),
    runsRoot: path.join(dir, "runs"),
    showProgress: true,
  });
}

async function resumeExperiment(lab: Lab, experiments: ExperimentsProvider, arg: unknown): Promise<void> {
  const title = "Agent Lab: Resume Experiment";
  const e = await experimentFromArg(experiments, arg, title, (x) => x.state === "interrupted" || x.state === "failed");
  if (!e) return;
  if (e.state === "running") throw new UserError(`${e.name} is running (${e.recordDir}); it needs no resume`);
  await startExperimentRun(lab, e, e.workspaceDir, `Experiment: ${e.name} (resumed)`);
  experiments.refreshSoon();
}

/** A folder beside the experiment's workspace that does not exist yet: `<workspace>-rerun`, `-rerun-2`, … */
export function rerunFolder(workspaceDir: string): string {
  for (let k = 1; ; k++) {
    const dir = `${workspaceDir}-rerun${k === 1 ? "" : `-${k}`}`;
    if (!existsSync(dir)) return dir;
  }
}

async function rerunExperiment(lab: Lab, experiments: ExperimentsProvider, arg: unknown): Promise<void> {
  const e = await experimentFromArg(experiments, arg, "Agent Lab: Rerun Experiment");
  if (!e) return;
  const dir = rerunFolder(e.workspaceDir);
  const rel = path.relative(lab.workspace.requireFolder(), dir);
  const ok = await vscode.window.showInformationMessage(
    `Rerun ${e.name} from scratch into ${rel}? The experiment in ${path.relative(lab.workspace.requireFolder(), e.workspaceDir)} stays as it is.`,
    { modal: true },
    "Rerun",
  );
  if (ok !== "Rerun") return;
  await startExperimentRun(lab, e, dir, `Experiment: ${e.name} (rerun in ${rel})`);
  experiments.refreshSoon();
}

async function validateExperiment(lab: Lab, experiments: ExperimentsProvider, arg: unknown): Promise<void> {
  const title = "Agent Lab: Validate Experiment";
  const e = await experimentFromArg(experiments, arg, title, (x) => x.state === "done");
  if (!e) return;
  if (e.state !== "done") throw new UserError(`${e.name} has no record to validate yet (${e.state}); resume it first`);
  const job = await startStep(lab, {
    spec: EXPERIMENT_STEP,
    values: {},
    positionals: ["validate", e.recordDir],
    title: `Validate experiment: ${e.name}`,
  });
  if (!job) return;
  await job.finished;
  const v = readValidationFile(e.recordDir);
  experiments.refresh();
  if (!v)
    throw new UserError(`experiment validate ${e.recordDir} ended without its checks; see its output in the Jobs view`);
  await openExperiment(lab.context, e.recordDir);
  const mark = (s: string) => (s === "passed" ? "$(pass)" : s === "failed" ? "$(error)" : "$(question)");
  void vscode.window.showQuickPick(
    v.checks.map((c) => ({ label: `${mark(c.status)} ${c.check}`, description: c.status, detail: c.reason })),
    {
      title: `${e.name}: ${v.passed.length}/${v.checks.length} checks passed${v.failed.length ? `, ${v.failed.length} failed` : ""}`,
      canPickMany: false,
    },
  );
}

async function openExperimentRun(lab: Lab, arg: unknown): Promise<void> {
  const node = arg as ExperimentNode | undefined;
  if (node?.type !== "run") return;
  if (existsSync(runFile(node.run.dir, "metrics"))) await openDashboard(lab.context, node.run.dir);
  else if (existsSync(runFile(node.run.dir, "episodes"))) await openTrace(lab.context, node.run.dir);
  else await vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(node.run.dir));
}

export function experimentCommands(lab: Lab, experiments: ExperimentsProvider): CommandTable {
  return {
    "agentLab.runExperiment": async () => {
      await runExperiment(lab);
      experiments.refreshSoon();
    },
    "agentLab.openExperiment": (a) => openExperimentCommand(lab, experiments, a),
    "agentLab.resumeExperiment": (a) => resumeExperiment(lab, experiments, a),
    "agentLab.rerunExperiment": (a) => rerunExperiment(lab, experiments, a),
    "agentLab.validateExperiment": (a) => validateExperiment(lab, experiments, a),
    "agentLab.revealExperiment": async (a) => {
      const e = await experimentFromArg(experiments, a, "Agent Lab: Reveal Experiment Folder");
      if (e) await vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(e.recordDir));
    },
    [OPEN_EXPERIMENT_RUN_COMMAND]: (a) => openExperimentRun(lab, a),
  };
}
