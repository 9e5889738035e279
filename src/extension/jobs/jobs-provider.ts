/**
 * The Jobs tree (running first, then recent) and the status bar item (running jobs, today's spend).
 *
 * A job is two rows: its title (with its state) and, under it, its progress line. One row held
 * both and the sidebar cut it off mid-title ("Offline pipeline (local backend, synth…"); the
 * tooltip holds the whole text. A finished job whose step names a finish action (the pipeline's
 * Open Results) offers it on its row as well as in its notification, which hides itself.
 */
import * as vscode from "vscode";
import { describeJob } from "./job-progress";
import type { Job, JobRunner } from "./job-runner";
import { isFinal } from "./job-state";
import { readExitRecord } from "./job-store";

/** Clicking a job (its tree item, or the status bar while it is the one running). */
export const OPEN_JOB_LOG = "agentLab.openJobLog";
/** A finished job's finish action (the button its notification offered), from its row. */
export const RUN_JOB_FINISH_ACTION = "agentLab.runJobFinishAction";
/** contextValue of a finished job that has a finish action (package.json's menus show the action's button on it). */
export const JOB_WITH_FINISH_ACTION = "job.finished.action";

/** The second row of a job: its progress line. */
export interface JobLine {
  lineOf: Job;
}

export type JobsNode = Job | JobLine;

function isJobLine(node: JobsNode): node is JobLine {
  return "lineOf" in node;
}
const JOBS_VIEW_FOCUS = "agentLab.jobs.focus";

const ICONS: Record<string, [string, string?]> = {
  starting: ["loading~spin"],
  running: ["sync~spin"],
  done: ["pass", "testing.iconPassed"],
  failed: ["error", "testing.iconFailed"],
  cancelled: ["circle-slash", "list.warningForeground"],
};

export class JobsProvider implements vscode.TreeDataProvider<JobsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<JobsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly runner: JobRunner) {
    this.sub = runner.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(node?: JobsNode): JobsNode[] {
    if (node) return isJobLine(node) ? [] : [{ lineOf: node }];
    const all = this.runner.list();
    return [...all.filter((j) => !isFinal(j.status.state)), ...all.filter((j) => isFinal(j.status.state))];
  }

  getTreeItem(node: JobsNode): vscode.TreeItem {
    return isJobLine(node) ? this.lineItem(node.lineOf) : this.jobItem(node);
  }

  /** The job's progress line (describeJob): what it is doing, or how long it ran. */
  line(job: Job): string {
    const s = job.status;
    // A finished job shows how long it ran (its exit record says when it ended).
    const ended = isFinal(s.state) ? Date.parse(readExitRecord(job.root, job.record.id)?.ended ?? "") : Date.now();
    const elapsed = Number.isFinite(ended) ? ended - Date.parse(job.record.started) : 0;
    return describeJob(job.progress, elapsed);
  }

  private lineItem(job: Job): vscode.TreeItem {
    const item = new vscode.TreeItem(this.line(job), vscode.TreeItemCollapsibleState.None);
    item.id = `job:${job.record.id}:line`;
    item.tooltip = this.tooltip(job);
    item.command = { command: OPEN_JOB_LOG, title: "Open Log", arguments: [job] };
    return item;
  }

  private jobItem(job: Job): vscode.TreeItem {
    const s = job.status;
    // Running jobs show their progress line open; finished ones keep it one click away (and in the tooltip).
    const item = new vscode.TreeItem(
      job.record.title,
      isFinal(s.state) ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = `job:${job.record.id}`;
    item.description = `${s.state}${s.cancelRequested && !isFinal(s.state) ? " (stopping)" : ""}`;
    item.tooltip = this.tooltip(job);
    const [icon, color] = ICONS[s.state];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.contextValue = !isFinal(s.state)
      ? "job.running"
      : s.state === "done" && job.record.finish
        ? JOB_WITH_FINISH_ACTION
        : "job.finished";
    item.command = { command: OPEN_JOB_LOG, title: "Open Log", arguments: [job] };
    return item;
  }

  private tooltip(job: Job): string {
    const s = job.status;
    return [
      job.record.title,
      this.line(job),
      `agent-lab ${job.record.command.join(" ")}`,
      `state ${s.state}${s.reason ? ` — ${s.reason}` : ""}`,
      `started ${job.record.started} · pid ${job.record.pid}`,
      job.record.run_dir ? `run folder ${job.record.run_dir}` : "",
      job.record.estimate_usd !== undefined ? `estimate $${job.record.estimate_usd.toFixed(2)}` : "",
      job.lastLine ? `last line: ${job.lastLine}` : "",
    ]
      .filter(Boolean)
      .join("\n");
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}

/**
 * "$(sync~spin) Agent Lab: 1 job · $0.42 today": one item. A job whose progress notification is
 * open (VS Code shows it in the status bar while hidden) is counted, not repeated; a job without
 * one (re-attached, quiet) shows its line here. Click: the one running job's log, else the Jobs view.
 */
export class JobsStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("agentLab.jobs", vscode.StatusBarAlignment.Left, 50);
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly runner: JobRunner,
    private readonly todaySpend: () => number,
  ) {
    this.item.name = "Agent Lab Jobs";
    this.item.command = JOBS_VIEW_FOCUS;
    this.sub = runner.onDidChange(() => this.update());
    this.update();
  }

  update(): void {
    const running = this.runner.running();
    const spend = this.todaySpend();
    if (running.length === 0 && spend === 0) {
      this.item.hide();
      return;
    }
    // The newest running job's progress line, as the Jobs view shows it, unless its notification shows it.
    const quiet = running.filter((j) => j.progress && !this.runner.hasProgressNotification(j));
    const line = quiet.length === 1 && running.length === 1 ? this.runner.describe(quiet[0]) : undefined;
    const count =
      running.length === 0 ? "no jobs" : line ? undefined : `${running.length} job${running.length === 1 ? "" : "s"}`;
    const jobs = [count, line].filter(Boolean).join(" · ");
    this.item.text = `$(${running.length > 0 ? "sync~spin" : "beaker"}) Agent Lab: ${jobs} · $${spend.toFixed(2)} today`;
    const one = running.length === 1 ? running[0] : undefined;
    this.item.command = one
      ? { command: OPEN_JOB_LOG, title: "Open Log", arguments: [one] }
      : { command: JOBS_VIEW_FOCUS, title: "Jobs" };
    this.item.tooltip = [
      ...running.map((j) => `${j.record.title}: ${this.runner.describe(j)}`),
      one
        ? "Agent Lab: click for this job's log"
        : "Agent Lab: running jobs and today's Tinker spend (click for the Jobs view)",
    ].join("\n");
    this.item.show();
  }

  /** The command a click runs (for tests). */
  get command(): vscode.Command | undefined {
    return typeof this.item.command === "string" ? { command: this.item.command, title: "" } : this.item.command;
  }

  /** The text shown (for tests). */
  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.sub.dispose();
    this.item.dispose();
  }
}
