/**
 * Jobs, the local backend and the Tinker key.
 *
 *   agentLab.cancelJob / agentLab.openJobLog        (job node, or pick one)
 *   agentLab.runJobFinishAction                     a finished job's row: its finish action (Open Results)
 *   agentLab.startLocalBackend / agentLab.stopLocalBackend   job `serve-local` / cancel it
 *   agentLab.setApiKey / agentLab.clearApiKey       Tinker key in SecretStorage
 */
import * as vscode from "vscode";
import { SERVE_LOCAL_STEP } from "../../core/steps/catalog/catalog";
import type { Job } from "../jobs/job-runner";
import { isFinal } from "../jobs/job-state";
import { OPEN_JOB_LOG, RUN_JOB_FINISH_ACTION } from "../jobs/jobs-provider";
import { isJob, startStep, type CommandTable, type Lab } from "./lab";

function localBackendJob(lab: Lab): Job | undefined {
  return lab.jobs.running().find((j) => j.record.command[0] === SERVE_LOCAL_STEP.name);
}

async function startLocalBackend(lab: Lab): Promise<void> {
  if (localBackendJob(lab)) {
    void vscode.window.showInformationMessage("Agent Lab: the local backend is already running (see the Jobs view).");
    return;
  }
  await startStep(lab, {
    spec: SERVE_LOCAL_STEP,
    values: { port: lab.workspace.localBackendPort() },
    title: "Local backend (stand-in for Tinker)",
    showProgress: false,
  });
}

function stopLocalBackend(lab: Lab): void {
  const job = localBackendJob(lab);
  if (!job) {
    void vscode.window.showInformationMessage("Agent Lab: no local backend started from this workspace is running.");
    return;
  }
  lab.jobs.cancel(job);
}

async function pickJob(lab: Lab, running: boolean): Promise<Job | undefined> {
  const jobs = running ? lab.jobs.running() : lab.jobs.list();
  if (jobs.length === 0) {
    void vscode.window.showInformationMessage(`Agent Lab: no ${running ? "running " : ""}jobs.`);
    return undefined;
  }
  return (
    await vscode.window.showQuickPick(
      jobs.map((j) => ({ label: j.record.title, description: j.status.state, job: j })),
      { title: "Agent Lab: Jobs" },
    )
  )?.job;
}

export function jobCommands(lab: Lab): CommandTable {
  return {
    "agentLab.cancelJob": async (a) => {
      const job = isJob(a) ? a : await pickJob(lab, true);
      if (job && !isFinal(job.status.state)) lab.jobs.cancel(job);
    },
    [OPEN_JOB_LOG]: async (a) => {
      const job = isJob(a) ? a : await pickJob(lab, false);
      if (job) lab.jobs.showLog(job);
    },
    [RUN_JOB_FINISH_ACTION]: async (a) => {
      const finish = isJob(a) ? a.record.finish : undefined;
      if (isJob(a) && finish) await vscode.commands.executeCommand(finish.command, a.record.run_dir);
    },
    "agentLab.startLocalBackend": () => startLocalBackend(lab),
    "agentLab.stopLocalBackend": () => stopLocalBackend(lab),
    "agentLab.setApiKey": () => lab.keys.promptAndStore(),
    "agentLab.clearApiKey": () => lab.keys.clear(),
  };
}
