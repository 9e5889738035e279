/**
 * Looking at results: Compare, traces, dashboards, a run's summary, the Runs and Checkpoints views'
 * context actions, spend. Nothing here starts a job.
 *
 *   agentLab.compareRuns          pick a baseline, then runs of its environment → compare panel (runs of two environments: one error, no panel)
 *   agentLab.openTrace            (episode/run node, or pick run + episode) → trace viewer
 *   agentLab.openDashboard        (training run node, or pick) → training dashboard
 *   (agentLab.openExperiment: experiment-commands.ts, which finds experiments wherever they were run)
 *   agentLab.openRun              summary.json; a training run's dashboard
 *   agentLab.openResult           what a finished job's "Open" shows: a report preview, a dashboard or a trace
 *   agentLab.openReport           report.md (the pipeline's, ablate --report's) in the markdown preview
 *   agentLab.compareWith          (run node) Compare with the run as baseline; (several selected) those runs
 *   agentLab.compareWithPrevious
 *   agentLab.revealRun / agentLab.deleteRun (confirmed)
 *   agentLab.copyCheckpointPath / agentLab.showTrainingRun
 *   agentLab.showSpend            today's and total spend per run (output channel + message), then the
 *                                 ledger's tokens beside the service's billing usage (spend --tinker)
 *   agentLab.refresh              re-read runs, checkpoints, jobs
 */
import { existsSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { checkpointRunDir } from "../../core/envs/checkpoint-environment";
import { EPISODES_FILE, SUMMARY_FILE } from "../../core/base/runs/run-files";
import { openCompare, openDashboard, openExperiment, openTrace } from "../panels";
import type { RunsNode } from "../runs/runs-provider";
import { formatUsd, previousComparableRun, type RunRow } from "../runs/runs-model";
import { spendReport } from "../workspace/spend";
import { cliMessage, runLabCli } from "../checkpoints/checkpoint-cli";
import { UserError } from "../../core/base/errors";
import { checkSameEnvironment } from "../../core/steps/ablate/ablate";
import { comparableRuns, runEnvironment } from "./environment-choices";
import { checkpointFrom, runFromArg, type CommandTable, type Lab } from "./lab";
import * as pick from "./pickers";

/** Compare: a baseline, then runs of its environment only (ablate pairs no others). */
async function compareRuns(lab: Lab, first?: RunRow): Promise<void> {
  const rows = lab.runs.currentRows().filter((r) => r.kind === "eval");
  const baseline = first ?? (await pick.pickRun("Agent Lab: Compare Runs — baseline", rows));
  if (!baseline) return;
  const others = await pick.pickRuns(
    "Agent Lab: Compare Runs",
    comparableRuns(rows, baseline),
    `Compare with ${baseline.name}`,
    `no other ${runEnvironment(baseline)} eval runs to compare ${baseline.name} with`,
  );
  if (!others) return;
  await openComparison(lab, [baseline, ...others]);
}

/**
 * The compare panel on runs of one environment; runs of several (the Runs view's multi-selection)
 * are refused here in ablate's own words, one message, before any panel opens.
 */
async function openComparison(lab: Lab, rows: readonly RunRow[]): Promise<void> {
  try {
    checkSameEnvironment(rows.map((r) => ({ name: r.name, manifest: r.manifest })));
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    void vscode.window.showErrorMessage(`Agent Lab: ${e.message}`);
    return;
  }
  await openCompare(
    lab.context,
    rows.map((r) => r.dir),
  );
}

/** Compare With…: with several runs selected in the Runs view, those; else the clicked run as the baseline. */
async function compareWith(lab: Lab, arg: unknown, selected: unknown): Promise<void> {
  const picked = Array.isArray(selected)
    ? selected.map((s) => runFromArg(lab, s)).filter((r): r is RunRow => r !== undefined)
    : [];
  if (picked.length >= 2) return openComparison(lab, picked);
  return compareRuns(lab, runFromArg(lab, arg));
}

async function openTraceCommand(lab: Lab, arg: unknown): Promise<void> {
  const node = arg as RunsNode | undefined;
  if (node?.type === "episode") return openTrace(lab.context, node.run.dir, node.episode.id);
  const run =
    runFromArg(lab, arg) ??
    (await pick.pickRun("Agent Lab: Open Trace", lab.runs.currentRows(), (r) => r.kind === "eval"));
  if (!run) return;
  const id = arg === undefined ? await pick.pickEpisode(run) : undefined;
  if (arg === undefined && !id) return;
  await openTrace(lab.context, run.dir, id);
}

async function openDashboardCommand(lab: Lab, arg: unknown): Promise<void> {
  const run =
    runFromArg(lab, arg) ??
    (await pick.pickRun("Agent Lab: Open Training Dashboard", lab.runs.currentRows(), (r) => r.kind === "training"));
  if (run) await openDashboard(lab.context, run.dir);
}

async function openRun(lab: Lab, arg: unknown): Promise<void> {
  const run = runFromArg(lab, arg) ?? (await pick.pickRun("Agent Lab: Open Summary", lab.runs.currentRows()));
  if (!run) return;
  if (run.kind === "training") return openDashboard(lab.context, run.dir);
  if (run.kind === "experiment") return openExperiment(lab.context, run.dir);
  const summary = path.join(run.dir, SUMMARY_FILE);
  if (existsSync(summary)) await vscode.window.showTextDocument(vscode.Uri.file(summary), { preview: true });
  else await vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(run.dir));
}

/** The file name of the pipeline's report (ablate --report names its own); read from core's plan when asked. */
async function reportFile(): Promise<string> {
  return (await import("../../core/steps/pipeline/plan")).REPORT_FILE;
}

/** A report is markdown written for reading: it opens rendered, not as source. */
async function openReport(lab: Lab, arg: unknown): Promise<void> {
  let uri: vscode.Uri | undefined;
  if (arg instanceof vscode.Uri) uri = arg;
  else if (typeof arg === "string") uri = vscode.Uri.file(arg);
  else {
    const active = vscode.window.activeTextEditor?.document.uri;
    const file = await reportFile();
    if (active && path.basename(active.fsPath) === file) uri = active;
    else {
      const folder = lab.workspace.folder;
      if (folder && existsSync(path.join(folder, file))) uri = vscode.Uri.file(path.join(folder, file));
    }
  }
  if (!uri) {
    void vscode.window.showInformationMessage(
      "Agent Lab: no report.md here yet (Run Offline Pipeline, or agent-lab ablate --report FILE, writes one).",
    );
    return;
  }
  await vscode.commands.executeCommand("markdown.showPreview", uri);
}

/**
 * What a finished job's "Open" shows, readable rather than raw JSON: a folder's report in the
 * markdown preview, a training run's dashboard, an eval run's traces; the summary otherwise.
 */
async function openResult(lab: Lab, arg: unknown): Promise<void> {
  const dir = typeof arg === "string" ? path.resolve(arg) : runFromArg(lab, arg)?.dir;
  if (!dir) return openRun(lab, arg);
  const report = path.join(dir, await reportFile());
  if (existsSync(report)) return openReport(lab, report);
  const run = runFromArg(lab, dir);
  if (run?.kind === "training") return openDashboard(lab.context, dir);
  if (existsSync(path.join(dir, EPISODES_FILE))) return openTrace(lab.context, dir);
  return openRun(lab, arg);
}

async function compareWithPrevious(lab: Lab, arg: unknown): Promise<void> {
  const run = runFromArg(lab, arg);
  if (!run) return;
  const prev = previousComparableRun(lab.runs.currentRows(), run.dir);
  if (!prev) {
    void vscode.window.showInformationMessage(
      `Agent Lab: no earlier eval run on the same split to compare ${run.name} with.`,
    );
    return;
  }
  await openCompare(lab.context, [prev.dir, run.dir]);
}

async function deleteRun(lab: Lab, arg: unknown): Promise<void> {
  const run = runFromArg(lab, arg);
  if (!run) return;
  if (lab.jobs.liveRunDirs().has(run.dir)) {
    void vscode.window.showWarningMessage(`Agent Lab: a job is writing ${run.name}; cancel it first.`);
    return;
  }
  const ok = await vscode.window.showWarningMessage(
    `Delete the run "${run.name}" and all its files?`,
    { modal: true, detail: run.dir },
    "Delete",
  );
  if (ok !== "Delete") return;
  const uri = vscode.Uri.file(run.dir);
  try {
    await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: true });
  } catch {
    await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false }); // no trash on this file system (remote, web)
  }
  lab.runs.refresh();
}

async function copyCheckpointPath(arg: unknown): Promise<void> {
  const node = checkpointFrom(arg);
  if (!node) return;
  let value: string | undefined;
  if (node.type === "detail") value = node.value;
  else {
    const choices = [
      ...(node.row.entry.sampler_path
        ? [{ label: "Sampler path", description: node.row.entry.sampler_path, value: node.row.entry.sampler_path }]
        : []),
      ...(node.row.entry.state_path
        ? [{ label: "State path", description: node.row.entry.state_path, value: node.row.entry.state_path }]
        : []),
    ];
    value =
      choices.length === 1
        ? choices[0].value
        : (await vscode.window.showQuickPick(choices, { title: `Copy a path of ${node.row.entry.name}` }))?.value;
  }
  if (!value) return;
  await vscode.env.clipboard.writeText(value);
  void vscode.window.setStatusBarMessage(`Agent Lab: copied ${value}`, 3000);
}

async function showTrainingRun(lab: Lab, arg: unknown): Promise<void> {
  const entry = checkpointFrom(arg)?.row.entry;
  if (!entry?.run) {
    void vscode.window.showInformationMessage("Agent Lab: the registry does not name this checkpoint's training run.");
    return;
  }
  await openDashboard(lab.context, checkpointRunDir(lab.workspace.runsDir(), entry.run));
}

/**
 * The ledger's tokens beside the service's billing usage (`agent-lab spend --tinker`), appended when
 * the CLI answers; an untrusted workspace runs no process of ours, so it shows the ledger only.
 */
function appendServiceBilling(lab: Lab, channel: vscode.OutputChannel): void {
  if (!vscode.workspace.isTrusted) return;
  void runLabCli(lab, "spend", ["--tinker"]).then((out) => {
    channel.appendLine("");
    if (out.code === 0) channel.append(out.stdout);
    else channel.appendLine(`the service's billing usage is not available: ${cliMessage(out)}`);
  });
}

async function showSpend(lab: Lab, channel: vscode.OutputChannel): Promise<void> {
  const report = spendReport(lab.workspace.runsDir());
  channel.clear();
  channel.appendLine(
    "Agent Lab spend (from run ledgers, or summaries where a run has no ledger; upper bounds: no prefix cache)",
  );
  channel.appendLine(`  ${"run".padEnd(32)} ${"total".padStart(10)} ${"today".padStart(10)}  source`);
  for (const r of report.perRun)
    channel.appendLine(
      `  ${r.name.padEnd(32)} ${formatUsd(r.usd).padStart(10)} ${formatUsd(r.todayUsd).padStart(10)}  ${r.source}`,
    );
  channel.appendLine(
    `  ${"all runs".padEnd(32)} ${formatUsd(report.totalUsd).padStart(10)} ${formatUsd(report.todayUsd).padStart(10)}`,
  );
  appendServiceBilling(lab, channel);
  const pickShow = await vscode.window.showInformationMessage(
    `Agent Lab: ${formatUsd(report.todayUsd)} today, ${formatUsd(report.totalUsd)} in all runs.`,
    "Show Details",
  );
  if (pickShow) channel.show(true);
}

/** `channel`: the spend report's output channel (created once by registerCommands). */
export function viewCommands(lab: Lab, channel: vscode.OutputChannel): CommandTable {
  return {
    "agentLab.compareRuns": () => compareRuns(lab),
    "agentLab.openTrace": (a) => openTraceCommand(lab, a),
    "agentLab.openDashboard": (a) => openDashboardCommand(lab, a),
    "agentLab.openRun": (a) => openRun(lab, a),
    "agentLab.openResult": (a) => openResult(lab, a),
    "agentLab.openReport": (a) => openReport(lab, a),
    "agentLab.compareWith": (a, selected) => compareWith(lab, a, selected),
    "agentLab.compareWithPrevious": (a) => compareWithPrevious(lab, a),
    "agentLab.revealRun": (a) => {
      const run = runFromArg(lab, a);
      return run && vscode.commands.executeCommand("revealInExplorer", vscode.Uri.file(run.dir));
    },
    "agentLab.deleteRun": (a) => deleteRun(lab, a),
    "agentLab.copyCheckpointPath": (a) => copyCheckpointPath(a),
    "agentLab.showTrainingRun": (a) => showTrainingRun(lab, a),
    "agentLab.showSpend": () => showSpend(lab, channel),
    "agentLab.refresh": () => {
      lab.runs.refresh();
      lab.checkpoints.refresh();
      lab.jobs.reattach();
    },
  };
}
