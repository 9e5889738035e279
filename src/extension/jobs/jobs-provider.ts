/** The Jobs tree (running first, then recent) and the status bar item (running jobs, today's spend). */
import * as vscode from "vscode";
import { describeJob } from "./job-progress";
import type { Job, JobRunner } from "./job-runner";
import { isFinal } from "./job-state";
import { readExitRecord } from "./job-store";

/** Clicking a job (its tree item, or the status bar while it is the one running). */
export const OPEN_JOB_LOG = "agentLab.openJobLog";
const JOBS_VIEW_FOCUS = "agentLab.jobs.focus";

const ICONS: Record<string, [string, string?]> = {
  starting: ["loading~spin"],
  running: ["sync~spin"],
  done: ["pass", "testing.iconPassed"],
  failed: ["error", "testing.iconFailed"],
  cancelled: ["circle-slash", "list.warningForeground"],
};

export class JobsProvider implements vscode.TreeDataProvider<Job>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Job | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(private readonly runner: JobRunner) {
    this.sub = runner.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(job?: Job): Job[] {
    if (job) return [];
    const all = this.runner.list();
    return [...all.filter((j) => !isFinal(j.status.state)), ...all.filter((j) => isFinal(j.status.state))];
  }

  getTreeItem(job: Job): vscode.TreeItem {
    const item = new vscode.TreeItem(job.record.title, vscode.TreeItemCollapsibleState.None);
    item.id = `job:${job.record.id}`;
    const s = job.status;
    // A finished job shows how long it ran (its exit record says when it ended).
    const ended = isFinal(s.state) ? Date.parse(readExitRecord(job.root, job.record.id)?.ended ?? "") : Date.now();
    const elapsed = Number.isFinite(ended) ? ended - Date.parse(job.record.started) : 0;
    item.description = `${s.state}${s.cancelRequested && !isFinal(s.state) ? " (stopping)" : ""} · ${describeJob(job.progress, elapsed)}`;
    item.tooltip = [
      job.record.title,
      `agent-lab ${job.record.command.join(" ")}`,
      `state ${s.state}${s.reason ? ` — ${s.reason}` : ""}`,
      `started ${job.record.started} · pid ${job.record.pid}`,
      job.record.run_dir ? `run folder ${job.record.run_dir}` : "",
      job.record.estimate_usd !== undefined ? `estimate $${job.record.estimate_usd.toFixed(2)}` : "",
      job.lastLine ? `last line: ${job.lastLine}` : "",
    ]
      .filter(Boolean)
      .join("\n");
    const [icon, color] = ICONS[s.state];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.contextValue = isFinal(s.state) ? "job.finished" : "job.running";
    item.command = { command: OPEN_JOB_LOG, title: "Open Log", arguments: [job] };
    return item;
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
