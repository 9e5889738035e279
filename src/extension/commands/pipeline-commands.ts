/**
 * The whole recipe offline, in the workspace's own layout: `agent-lab pipeline --dir . --backend
 * local` writes data/, runs/ and agent-lab.json into the open folder, so the Runs and Checkpoints
 * views fill in as each stage finishes, and the Jobs view follows the pipeline's progress.json
 * (stage i/n and the running stage's own count). When it ends, Open Results compares its eval runs
 * and opens the GRPO dashboard.
 *
 *   agentLab.runOfflinePipeline    pick an environment and a size → job `pipeline --dir . --env E --backend local --size S`
 *                                  (its invented offline world: no account, no network)
 *   agentLab.openPipelineResults   Compare over the pipeline's evals (base first) + the GRPO dashboard;
 *                                  also a button on the Runs view's title while the workspace has results
 *                                  (the finish notification hides itself, and its button with it)
 */
import { existsSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { environmentInfo, PIPELINE_ENVIRONMENTS } from "../../core/envs/catalog";
import { PIPELINE_STEP } from "../../core/steps/catalog/catalog";
import type { PipelineSize } from "../../core/steps/pipeline/settings";
import { PIPELINE_SIZES } from "../../core/steps/specs/common-flags";
import { environmentItems, type EnvironmentItem } from "./environment-choices";
import { openCompare, openDashboard } from "../panels";
import { startStep, type CommandTable, type Lab } from "./lab";

export const OPEN_PIPELINE_RESULTS = "agentLab.openPipelineResults";

/** What each pipeline size means, beside its name; the sizes themselves are the pipeline spec's choices. */
const SIZE_NOTES: Record<string, string> = {
  full: "the offline recipe: a few minutes on a laptop",
  smoke: "every stage at tiny sizes, about a minute (its numbers mean nothing)",
};

async function pickSize(): Promise<PipelineSize | undefined> {
  const flag = PIPELINE_STEP.flags.size;
  const sizes = [flag.default, ...flag.choices.filter((c) => c !== flag.default)];
  const pick = await vscode.window.showQuickPick(
    sizes.map((size) => ({ label: size, description: SIZE_NOTES[size] })),
    {
      title: PIPELINE_TITLE,
      placeHolder: "Size (the local stand-in backend, synthetic data: free, offline)",
    },
  );
  return PIPELINE_SIZES.find((s) => s === pick?.label);
}

const PIPELINE_TITLE = "Agent Lab: Run Offline Pipeline";

/** The environments the pipeline runs offline (the catalog's, as the flag's choices), the workspace's default first. */
export function pipelineEnvironmentItems(defaultEnv: string): EnvironmentItem[] {
  // A folder a pipeline made names its world: the world's environment is the default then.
  const real = environmentInfo(defaultEnv)?.worldOf ?? defaultEnv;
  return environmentItems(real).filter((item) => PIPELINE_ENVIRONMENTS.includes(item.env));
}

async function pickPipelineEnvironment(defaultEnv: string): Promise<string | undefined> {
  const items = pipelineEnvironmentItems(defaultEnv);
  if (items.length === 1) return items[0].env;
  const pick = await vscode.window.showQuickPick(items, {
    title: PIPELINE_TITLE,
    placeHolder: "Environment (the pipeline runs on its invented offline world)",
    matchOnDetail: true,
  });
  return pick?.env;
}

/** The choices offered when the folder holds a pipeline run the picked one cannot continue. */
export const NEW_SUBFOLDER_ACTION = "Run in a New Subfolder";
export const REPLACE_RUN_ACTION = "Replace It…";
const REPLACE_CONFIRM = "Replace";

/**
 * Where the pipeline runs: the workspace folder ("."), unless it holds a pipeline run with other
 * settings (a smoke run, and now the full one), which the pipeline would refuse: then the user
 * picks a new subfolder, or replacing the old run (its files listed in a modal first). Undefined: cancelled.
 */
async function pipelineDir(folder: string, env: string, size: PipelineSize): Promise<string | undefined> {
  const conflict = await import("../../core/steps/pipeline/folder-conflict");
  const held = conflict.pipelineFolderConflict(folder, "local", { env, size });
  if (!held) return ".";
  const sub = conflict.freeSubfolder(folder, `pipeline-${size}`);
  const pick = await vscode.window.showWarningMessage(
    `Agent Lab: this folder holds ${held}; a ${size} run of ${env} cannot continue it. Run the ${size} one in a new subfolder (${sub}), or replace the old run?`,
    NEW_SUBFOLDER_ACTION,
    REPLACE_RUN_ACTION,
  );
  if (pick === NEW_SUBFOLDER_ACTION) return sub;
  if (pick !== REPLACE_RUN_ACTION) return undefined;
  const entries = conflict.pipelineRunEntries(folder);
  const confirm = await vscode.window.showWarningMessage(
    `Replace ${held} in ${folder}? This deletes ${entries.join(", ")}.`,
    { modal: true },
    REPLACE_CONFIRM,
  );
  if (confirm !== REPLACE_CONFIRM) return undefined;
  conflict.removePipelineRun(folder);
  return ".";
}

async function runOfflinePipeline(lab: Lab): Promise<void> {
  const folder = lab.workspace.requireFolder();
  const env = await pickPipelineEnvironment(lab.workspace.config().env);
  if (!env) return;
  const size = await pickSize();
  if (!size) return;
  const dir = await pipelineDir(folder, env, size);
  if (!dir) return;
  const { PIPELINE_RUNS_DIR } = await import("../../core/steps/pipeline/plan");
  const runDir = path.resolve(folder, dir);
  await startStep(lab, {
    spec: PIPELINE_STEP,
    // "." = the workspace folder (the job's working directory): the pipeline lays it out as a workspace.
    values: { dir, env, backend: "local", size },
    title: "Offline pipeline (local backend, synthetic data)",
    runDir,
    // A subfolder's runs live in its own runs/ (its agent-lab.json says so), not the workspace's.
    runsRoot: dir === "." ? lab.workspace.runsDir() : path.join(runDir, PIPELINE_RUNS_DIR),
    finish: { title: "Open Results", command: OPEN_PIPELINE_RESULTS },
  });
}

/** The pipeline's run folders, from core's own names (loaded when asked: the plan module is not needed at activation). */
async function pipelineRuns(runsDir: string): Promise<{ evals: string[]; grpo: string }> {
  const { RUN_NAMES } = await import("../../core/steps/pipeline/plan");
  const evals = [RUN_NAMES.base, RUN_NAMES.closedBook, RUN_NAMES.sftEval, RUN_NAMES.grpoEval].map((n) =>
    path.join(runsDir, n),
  );
  return { evals, grpo: path.join(runsDir, RUN_NAMES.grpo) };
}

/** What Open Results opens: the pipeline's evals that exist, and whether its GRPO run does. */
async function pipelineResults(runsDir: string): Promise<{ evals: string[]; grpo?: string }> {
  const runs = await pipelineRuns(runsDir);
  const evals = runs.evals.filter((d) => existsSync(d));
  return { evals, ...(existsSync(runs.grpo) ? { grpo: runs.grpo } : {}) };
}

function hasResults(r: { evals: string[]; grpo?: string }): boolean {
  return r.evals.length >= 2 || r.grpo !== undefined;
}

/** The context key that shows Open Results on the Runs view's title (package.json's view/title menu). */
export const HAS_PIPELINE_RESULTS = "agentLab.hasPipelineResults";

/** Keeps HAS_PIPELINE_RESULTS current as the Runs view changes (a pipeline's stages finishing, runs deleted). */
export function trackPipelineResults(lab: Lab): vscode.Disposable {
  let shown: boolean | undefined;
  const update = async () => {
    let has = false;
    try {
      has = hasResults(await pipelineResults(lab.workspace.runsDir()));
    } catch {
      has = false; // no folder, or unreadable settings: no button
    }
    if (has === shown) return;
    shown = has;
    await vscode.commands.executeCommand("setContext", HAS_PIPELINE_RESULTS, has);
  };
  void update();
  return lab.runs.onDidChangeTreeData(() => void update());
}

/** The runs folder of the pipeline whose folder a finished job names (a subfolder's own), else the workspace's. */
async function resultsRunsDir(lab: Lab, pipelineDir: unknown): Promise<string> {
  const folder = lab.workspace.requireFolder();
  if (typeof pipelineDir !== "string" || path.resolve(pipelineDir) === path.resolve(folder))
    return lab.workspace.runsDir();
  const { PIPELINE_RUNS_DIR } = await import("../../core/steps/pipeline/plan");
  return path.join(pipelineDir, PIPELINE_RUNS_DIR);
}

async function openPipelineResults(lab: Lab, pipelineDir?: unknown): Promise<void> {
  const runs = await pipelineResults(await resultsRunsDir(lab, pipelineDir));
  const evals = runs.evals;
  if (!hasResults(runs)) {
    void vscode.window.showInformationMessage(
      "Agent Lab: no pipeline results in this workspace yet (Run Offline Pipeline writes them).",
    );
    return;
  }
  if (runs.grpo) await openDashboard(lab.context, runs.grpo);
  if (evals.length >= 2) await openCompare(lab.context, evals, "pipeline");
  // The report last, so it is the editor in front: rendered, not markdown source.
  const { REPORT_FILE } = await import("../../core/steps/pipeline/plan");
  const report = path.join(typeof pipelineDir === "string" ? pipelineDir : lab.workspace.requireFolder(), REPORT_FILE);
  if (existsSync(report)) await vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.file(report));
}

export function pipelineCommands(lab: Lab): CommandTable {
  return {
    "agentLab.runOfflinePipeline": () => runOfflinePipeline(lab),
    [OPEN_PIPELINE_RESULTS]: (dir) => openPipelineResults(lab, dir),
  };
}
