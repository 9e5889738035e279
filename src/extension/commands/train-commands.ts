/**
 * Training: SFT on a data run, GRPO from a state checkpoint (the palette, or "Continue GRPO" on a
 * checkpoint node). Defaults (epochs, steps) are the step specs'.
 *
 *   agentLab.trainSft      pick an environment, one of its SFT data runs, epochs, name → job `train-sft`
 *   agentLab.trainGrpo     pick an environment, a state checkpoint, steps, name → job `train-grpo --env …`
 *   agentLab.continueGrpo  (checkpoint node) train-grpo from its state path
 */
import { existsSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { worldOf } from "../../core/envs/catalog";
import { SFT_FILE } from "../../core/steps/sft/sft-files";
import { TRAIN_GRPO_STEP, TRAIN_SFT_STEP } from "../../core/steps/catalog/catalog";
import { trainingBackend, uniqueRunName } from "./cli-args";
import { runEnvironment } from "./environment-choices";
import { checkpointFrom, startStep, takenRunNames, type CommandTable, type Lab } from "./lab";
import * as pick from "./pickers";
import { ensureEnvironmentData } from "./prepare-flow";

async function trainSft(lab: Lab): Promise<void> {
  const title = "Agent Lab: Train SFT";
  const flags = TRAIN_SFT_STEP.flags;
  // SFT data records its environment: train-sft takes it from there, so the pick narrows the data runs.
  const env = await pick.pickEnvironment(title, lab.workspace.config().env);
  if (!env) return;
  const run = await pick.pickRun(
    `${title} (${env} data)`,
    lab.runs.currentRows(),
    // An offline world's data trains the same model as its environment's (train-sft reads the environment from the data).
    (r) => existsSync(path.join(r.dir, SFT_FILE)) && [env, worldOf(env)].includes(runEnvironment(r)),
  );
  if (!run) return;
  const epochs = await pick.inputFlag(title, "Epochs", "epochs", flags.epochs);
  if (!epochs) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(title, uniqueRunName(flags.name.default, taken), taken);
  if (!name) return;
  await startStep(lab, {
    spec: TRAIN_SFT_STEP,
    values: { name, backend: trainingBackend(lab.workspace.backend()), data: path.join(run.dir, SFT_FILE), epochs },
    title: `Train SFT on ${env}: ${name}`,
  });
}

async function trainGrpo(lab: Lab, preset?: { initState: string; name?: string }): Promise<void> {
  const title = "Agent Lab: Train GRPO";
  const flags = TRAIN_GRPO_STEP.flags;
  const env = await pick.pickEnvironment(title, lab.workspace.config().env);
  if (!env) return;
  // GRPO samples the environment's train split: there before asking more.
  if (!(await ensureEnvironmentData(lab, env, "Train GRPO"))) return;
  const from = preset ?? (await pick.pickStateCheckpoint(title, lab.checkpoints.rows().rows));
  if (!from) return;
  const steps = await pick.inputFlag(title, "GRPO steps", "steps", flags.steps);
  if (!steps) return;
  const taken = takenRunNames(lab);
  const name = await pick.inputRunName(
    title,
    uniqueRunName(from.name ? `${flags.name.default}-from-${from.name}` : flags.name.default, taken),
    taken,
  );
  if (!name) return;
  await startStep(lab, {
    spec: TRAIN_GRPO_STEP,
    values: { name, env, backend: trainingBackend(lab.workspace.backend()), "init-state": from.initState, steps },
    title: `Train GRPO on ${env}: ${name}`,
  });
}

export function trainCommands(lab: Lab): CommandTable {
  return {
    "agentLab.trainSft": () => trainSft(lab),
    "agentLab.trainGrpo": () => trainGrpo(lab),
    "agentLab.continueGrpo": (a) => {
      const entry = checkpointFrom(a)?.row.entry;
      if (!entry?.state_path) {
        void vscode.window.showWarningMessage("Agent Lab: this checkpoint has no training state to continue from.");
        return;
      }
      return trainGrpo(lab, { initState: entry.state_path, name: entry.name });
    },
  };
}
