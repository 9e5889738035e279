/**
 * Prepare Data for any environment, and the "data ready?" check every command that reads an
 * environment's data makes before its first question about the step itself (and, for one that
 * searches the workspace's index, that the index is built) (so nobody is walked
 * through five prompts to then read "val.jsonl is missing"). What a prepared folder holds is core's
 * (envs/data-dirs.ts); which sources an environment takes is its info's (`prepareSources`).
 *
 *   prepareData(lab, env?)  environment (unless given), then its sources: the hub, or local files
 *                           (one open dialog per role the environment declares) → job `prepare --env ENV …`
 */
import * as vscode from "vscode";
import { environmentInfo } from "../../core/envs/catalog";
import { missingCorpusLine, missingDataLine, missingIndexLine } from "../../core/envs/data-dirs";
import { INDEX_STEP, PREPARE_STEP } from "../../core/steps/catalog/catalog";
import type { Job } from "../jobs/job-runner";
import { prepareValues, type PrepareFiles } from "./cli-args";
import { prepareSourceItems } from "./environment-choices";
import { startStep, type Lab } from "./lab";
import * as pick from "./pickers";

export const PREPARE_TITLE = "Agent Lab: Prepare Data";
/** The button of the data check's message. */
export const PREPARE_BUTTON = "Prepare Data";
/** The button of the index check's message, and the job it starts (Build Index's own). */
export const INDEX_BUTTON = "Build Index";
export const BUILD_INDEX_TITLE = "Build search index";

/**
 * Prepare Data: `env` given (the data check's button) skips the environment pick; `only` narrows it
 * (Build Index: the environments with tools). Undefined when cancelled at any prompt (nothing started).
 */
export async function prepareData(
  lab: Lab,
  env?: string,
  only?: (hasTools: boolean) => boolean,
): Promise<Job | undefined> {
  const picked = env ?? (await pick.pickEnvironment(PREPARE_TITLE, lab.workspace.config().env, only));
  if (!picked) return undefined;
  // An offline world has no records to fetch: its seeded generator writes them (the pipeline's, or the demo's, first stage).
  const world = environmentInfo(picked)?.worldOf;
  if (world) {
    void vscode.window.showInformationMessage(
      `Agent Lab: ${picked} is an offline world: Run Offline Pipeline (${world}) writes its data; Prepare Data fetches real ${world} records.`,
    );
    return undefined;
  }
  const source = await vscode.window.showQuickPick(prepareSourceItems(picked), {
    title: `${PREPARE_TITLE} (${picked})`,
    placeHolder: "Where its records come from",
  });
  if (!source) return undefined;
  const files: PrepareFiles = {};
  for (const role of source.local?.roles ?? []) {
    const uris = await vscode.window.showOpenDialog({
      title: `${PREPARE_TITLE} (${picked}): ${role.label}`,
      canSelectMany: true,
      openLabel: role.label,
      filters: source.local!.filters,
    });
    if (!uris?.length) return undefined;
    files[role.flag] = uris.map((u) => u.fsPath);
  }
  return startStep(lab, { spec: PREPARE_STEP, values: prepareValues(picked, files), title: `Prepare ${picked} data` });
}

/** One message offering Prepare Data; the button runs it (for `env`, or with the pick `only` allows). */
async function offerPrepare(lab: Lab, line: string, what: string, env?: string, only?: (t: boolean) => boolean) {
  const answer = await vscode.window.showWarningMessage(
    `Agent Lab: ${line}. ${what} reads it: prepare it first.`,
    PREPARE_BUTTON,
  );
  if (answer === PREPARE_BUTTON) await prepareData(lab, env, only);
}

/**
 * Whether `env`'s data is prepared in the workspace; when not, one message offering Prepare Data
 * (for that environment) and false: the command stops before asking anything more. `what`: the
 * command's name in the message ("Evaluate").
 */
export async function ensureEnvironmentData(lab: Lab, env: string, what: string, searches = true): Promise<boolean> {
  const folder = lab.workspace.requireFolder();
  const config = lab.workspace.config();
  const line = missingDataLine(folder, config, env);
  if (line) {
    await offerPrepare(lab, line, what, env);
    return false;
  }
  // Its episodes search the workspace's index (closed-book ones do not): built before asking more.
  const index = searches ? missingIndexLine(folder, config, env) : undefined;
  if (!index) return true;
  const answer = await vscode.window.showWarningMessage(
    `Agent Lab: ${index}. ${what} needs it: build it first.`,
    INDEX_BUTTON,
  );
  if (answer === INDEX_BUTTON) await startStep(lab, { spec: INDEX_STEP, values: {}, title: BUILD_INDEX_TITLE });
  return false;
}

/** Build Index's check: the corpus `agent-lab index` reads is there; else one message offering Prepare Data (environments with tools). */
export async function ensureIndexCorpus(lab: Lab): Promise<boolean> {
  const line = missingCorpusLine(lab.workspace.requireFolder(), lab.workspace.config());
  if (!line) return true;
  await offerPrepare(lab, line, "Build Index", undefined, (hasTools) => hasTools);
  return false;
}
