/**
 * Experiments from the palette:
 *
 *   agentLab.runExperiment   pick a spec JSON in the workspace (a Tinker spec: run, or rehearse against
 *                            TINKER_BASE_URL) → the estimate from `--dry-run`'s numbers in the confirmation
 *                            → job `experiment run SPEC --yes`, its progress (phase i/n) in the Jobs view
 */
import * as vscode from "vscode";
import { EXPERIMENT_STEP } from "../../core/steps/catalog/catalog";
import { experimentJob, findExperimentSpecs } from "./experiment-specs";
import { startStep, type CommandTable, type Lab } from "./lab";

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

export function experimentCommands(lab: Lab): CommandTable {
  return { "agentLab.runExperiment": () => runExperiment(lab) };
}
