/**
 * The Experiments view: every experiment in the opened folder wherever `experiment run` wrote it
 * (core's listExperiments), with its state, verdict badge and spend against its budget — or, while
 * it runs, its progress line (phase i/n, the phase's step n/N, spend of budget, one ETA); under it
 * the arms → their runs → checkpoints, under short names. A run opens its dashboard (training) or
 * traces (eval). Refreshes on record and manifest changes, and every two seconds while one runs.
 */
import * as vscode from "vscode";
import { existsSync } from "node:fs";
import { describeProgress } from "../../core/base/runs/progress";
import { runFile } from "../../core/base/runs/run-folder";
import {
  listExperiments,
  SHARED_ARM,
  type ExperimentArm,
  type ExperimentEntry,
  type ExperimentRun,
} from "../../core/views/experiments/experiment-list";
import type { LabWorkspace } from "../workspace/lab-workspace";

export type ExperimentNode =
  | { type: "experiment"; entry: ExperimentEntry }
  | { type: "arm"; entry: ExperimentEntry; arm: ExperimentArm }
  | { type: "run"; entry: ExperimentEntry; run: ExperimentRun }
  | { type: "checkpoint"; run: ExperimentRun; name: string; short: string };

const STATE_ICONS: Record<ExperimentEntry["state"], [string, string?]> = {
  running: ["sync~spin"],
  done: ["beaker"],
  interrupted: ["debug-pause", "list.warningForeground"],
  failed: ["error", "testing.iconFailed"],
};

const VERDICT_COLORS: Record<string, string> = {
  supported: "testing.iconPassed",
  refuted: "testing.iconFailed",
  inconclusive: "list.warningForeground",
};

/** The view's id (package.json contributes it in the Agent Lab container). */
export const EXPERIMENTS_VIEW = "agentLab.experiments";

/** The opening command of a run node: its dashboard (training runs write metrics.jsonl) or its traces. */
export const OPEN_EXPERIMENT_RUN_COMMAND = "agentLab.openExperimentRun";

const POLL_MS = 2000;

/** "done · refuted · 7/7 checks · $0.00 of $5.00", or the progress line while it runs. */
export function experimentDescription(e: ExperimentEntry): string {
  if (e.state === "running" && e.progress) return describeProgress(e.progress);
  const spend = `$${e.spendUsd.toFixed(2)}${e.budgetUsd > 0 ? ` of $${e.budgetUsd.toFixed(2)}` : ""}`;
  return [
    e.state,
    e.verdict,
    e.checks ? `${e.checks.passed}/${e.checks.total} checks` : undefined,
    spend,
    e.state !== "done" && e.progress?.stage
      ? `stopped at phase ${e.progress.stage.index}/${e.progress.stage.count}`
      : undefined,
  ]
    .filter(Boolean)
    .join(" · ");
}

export class ExperimentsProvider implements vscode.TreeDataProvider<ExperimentNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ExperimentNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private entries: ExperimentEntry[] = [];
  private poll: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;

  constructor(private readonly workspace: LabWorkspace) {}

  folder(): string | undefined {
    return this.workspace.folder;
  }

  /** The experiments as last listed (listed again if the view has not asked yet). */
  current(): ExperimentEntry[] {
    return this.entries.length ? this.entries : this.list();
  }

  /** Lists the experiments now (the pick of Open Experiment… reads this). */
  list(): ExperimentEntry[] {
    const folder = this.workspace.folder;
    this.entries = folder ? listExperiments(folder) : [];
    this.schedulePoll();
    return this.entries;
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  refreshSoon(delayMs = 400): void {
    if (this.soon) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.refresh();
    }, delayMs);
  }

  /** While one runs, its progress changes without a file event this view watches: poll. */
  private schedulePoll(): void {
    if (this.poll || !this.entries.some((e) => e.state === "running")) return;
    this.poll = setTimeout(() => {
      this.poll = undefined;
      this.refresh();
    }, POLL_MS);
  }

  getChildren(node?: ExperimentNode): ExperimentNode[] {
    if (!node) return this.list().map((entry) => ({ type: "experiment", entry }));
    if (node.type === "experiment") return node.entry.arms.map((arm) => ({ type: "arm", entry: node.entry, arm }));
    if (node.type === "arm") return node.arm.runs.map((run) => ({ type: "run", entry: node.entry, run }));
    if (node.type === "run") return node.run.checkpoints.map((c) => ({ type: "checkpoint", run: node.run, ...c }));
    return [];
  }

  getTreeItem(node: ExperimentNode): vscode.TreeItem {
    const { Collapsed, None } = vscode.TreeItemCollapsibleState;
    if (node.type === "experiment") {
      const e = node.entry;
      const item = new vscode.TreeItem(e.name, Collapsed);
      item.id = `experiment:${e.recordDir}`;
      item.description = experimentDescription(e);
      item.tooltip = new vscode.MarkdownString().appendText(
        [e.title, e.recordDir, experimentDescription(e)].filter(Boolean).join("\n"),
      );
      const [icon, color] =
        e.state === "done" && e.verdict ? ["beaker", VERDICT_COLORS[e.verdict]] : STATE_ICONS[e.state];
      item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
      item.contextValue = `experiment.${e.state}`;
      item.command = { command: "agentLab.openExperiment", title: "Open Experiment", arguments: [node] };
      return item;
    }
    if (node.type === "arm") {
      const item = new vscode.TreeItem(node.arm.name, node.arm.runs.length ? Collapsed : None);
      item.id = `experiment:${node.entry.recordDir}:arm:${node.arm.name}`;
      item.description =
        node.arm.name === SHARED_ARM
          ? "what every arm starts from or is compared with"
          : `${node.arm.runs.length} run${node.arm.runs.length === 1 ? "" : "s"}`;
      item.iconPath = new vscode.ThemeIcon(node.arm.name === SHARED_ARM ? "references" : "git-branch");
      item.contextValue = "experimentArm";
      return item;
    }
    if (node.type === "run") {
      const item = new vscode.TreeItem(node.run.short, node.run.checkpoints.length ? Collapsed : None);
      item.id = `experiment-run:${node.run.dir}`;
      const training = existsSync(runFile(node.run.dir, "metrics"));
      item.description = training ? "training" : existsSync(runFile(node.run.dir, "episodes")) ? "eval" : "";
      item.tooltip = node.run.dir;
      item.iconPath = new vscode.ThemeIcon(training ? "graph-line" : "list-unordered");
      item.contextValue = "experimentRun";
      item.command = { command: OPEN_EXPERIMENT_RUN_COMMAND, title: "Open Run", arguments: [node] };
      return item;
    }
    const item = new vscode.TreeItem(node.short, None);
    item.id = `experiment-checkpoint:${node.run.dir}:${node.name}`;
    item.tooltip = node.name;
    item.iconPath = new vscode.ThemeIcon("package");
    item.contextValue = "experimentCheckpoint";
    return item;
  }

  dispose(): void {
    clearTimeout(this.poll);
    clearTimeout(this.soon);
    this.changed.dispose();
  }
}
