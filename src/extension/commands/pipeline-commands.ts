/**
 * The whole recipe offline, in the workspace's own layout: `agent-lab pipeline --dir . --backend
 * local` writes data/, runs/ and agent-lab.json into the open folder, so the Runs and Checkpoints
 * views fill in as each stage finishes, and the Jobs view follows the pipeline's progress.json
 * (stage i/n and the running stage's own count). When it ends, Open Results compares its eval runs
 * and opens the GRPO dashboard.
 *
 *   agentLab.runOfflinePipeline    pick an environment and a size → job `pipeline --dir . --env E --backend local --size S`
 *                                  (its invented offline world: no account, no network)
 *   agentLab.openPipelineResults   Compare over the pipeline's evals (base first) + the GRPO dashboard
 */
import { existsSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { environmentInfo, PIPELINE_ENVIRONMENTS } from "../../core/envs/catalog";
import { PIPELINE_STEP } from "../../core/steps/catalog/catalog";
import { environmentItems, type EnvironmentItem } from "./environment-choices";
import { openCompare, openDashboard } from "../panels";
import { startStep, type CommandTable, type Lab } from "./lab";

export const OPEN_PIPELINE_RESULTS = "agentLab.openPipelineResults";

/** What each pipeline size means, beside its name; the sizes themselves are the pipeline spec's choices. */
const SIZE_NOTES: Record<string, string> = {
  full: "the offline recipe: a few minutes on a laptop",
  smoke: "every stage at tiny sizes, about a minute (its numbers mean nothing)",
};

async function pickSize(): Promise<string | undefined> {
  const flag = PIPELINE_STEP.flags.size;
  const sizes = [flag.default, ...flag.choices.filter((c) => c !== flag.default)];
  const pick = await vscode.window.showQuickPick(
    sizes.map((size) => ({ label: size, description: SIZE_NOTES[size] })),
    {
      title: PIPELINE_TITLE,
      placeHolder: "Size (the local stand-in backend, synthetic data: free, offline)",
    },
  );
  return pick?.label;
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

async function runOfflinePipeline(lab: Lab): Promise<void> {
  const folder = lab.workspace.requireFolder();
  const env = await pickPipelineEnvironment(lab.workspace.config().env);
  if (!env) return;
  const size = await pickSize();
  if (!size) return;
  await startStep(lab, {
    spec: PIPELINE_STEP,
    // "." = the workspace folder (the job's working directory): the pipeline lays it out as a workspace.
    values: { dir: ".", env, backend: "local", size },
    title: "Offline pipeline (local backend, synthetic data)",
    runDir: folder,
    runsRoot: lab.workspace.runsDir(),
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

async function openPipelineResults(lab: Lab): Promise<void> {
  const runs = await pipelineRuns(lab.workspace.runsDir());
  const evals = runs.evals.filter((d) => existsSync(d));
  if (evals.length < 2 && !existsSync(runs.grpo)) {
    void vscode.window.showInformationMessage(
      "Agent Lab: no pipeline results in this workspace yet (Run Offline Pipeline writes them).",
    );
    return;
  }
  if (existsSync(runs.grpo)) await openDashboard(lab.context, runs.grpo);
  if (evals.length >= 2) await openCompare(lab.context, evals, "pipeline");
  // The report last, so it is the editor in front: rendered, not markdown source.
  const { REPORT_FILE } = await import("../../core/steps/pipeline/plan");
  const report = path.join(lab.workspace.requireFolder(), REPORT_FILE);
  if (existsSync(report)) await vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.file(report));
}

export function pipelineCommands(lab: Lab): CommandTable {
  return {
    "agentLab.runOfflinePipeline": () => runOfflinePipeline(lab),
    [OPEN_PIPELINE_RESULTS]: () => openPipelineResults(lab),
  };
}
