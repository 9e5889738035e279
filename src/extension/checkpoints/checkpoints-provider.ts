/**
 * The Checkpoints tree: registry entries (newest first) with their paths and lineage as children,
 * then a collapsed group of the service's checkpoints that no registered name points at.
 */
import * as vscode from "vscode";
import type { LabWorkspace } from "../workspace/lab-workspace";
import type { CookbookRuns } from "../runs/cookbook-runs";
import {
  checkpointRows,
  cookbookCheckpointEntries,
  readCheckpointRegistry,
  type CheckpointRow,
} from "./checkpoints-model";
import type { CheckpointValScore } from "../../core/views/checkpoints/val-score-text";
import type { Checkpoint } from "../../core/base/tinker/wire/types";
import { outsideGroupLabel, outsideRow, withLifecycle, type OutsideCheckpoints } from "./checkpoint-lifecycle";

/** Where a row's lifecycle note (expiry, public) comes from: checkpoint-lifecycle-source.ts. */
export interface LifecycleNotes {
  note(name: string): string | undefined;
  outside(): OutsideCheckpoints | undefined;
  readonly onDidChange: vscode.Event<void>;
}

export type CheckpointNode =
  | { type: "checkpoint"; row: CheckpointRow }
  | { type: "detail"; row: CheckpointRow; label: string; value: string }
  | { type: "message"; text: string }
  | { type: "outsideGroup"; outside: OutsideCheckpoints }
  /** A checkpoint on the service that no registered name points at: its lifecycle verbs act on its path. */
  | { type: "outside"; checkpoint: Checkpoint };

export class CheckpointsProvider implements vscode.TreeDataProvider<CheckpointNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<CheckpointNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly workspace: LabWorkspace,
    private readonly cookbook?: CookbookRuns,
  ) {}

  /** Matched val scores by checkpoint name, read off the activation path (they read eval runs) after each refresh. */
  private scores: ReadonlyMap<string, CheckpointValScore> = new Map();
  private scoresKey = "";
  private scoresRead: Promise<void> | undefined;

  refresh(): void {
    this.changed.fire(undefined);
    this.scoresRead = this.readScores();
  }

  /** Resolves once the rows' val scores are read (integration tests wait on it). */
  whenScored(): Promise<void> {
    return (this.scoresRead ??= this.readScores());
  }

  private async readScores(): Promise<void> {
    let scores: ReadonlyMap<string, CheckpointValScore>;
    try {
      const { checkpointValScores } = await import("../../core/views/checkpoints/sidebar-view");
      scores = checkpointValScores(this.workspace.runsDir());
    } catch {
      scores = new Map(); // no folder yet, or a registry line the scores' stricter reader refuses: rows show without
    }
    const key = JSON.stringify([...scores]);
    if (key === this.scoresKey) return;
    this.scores = scores;
    this.scoresKey = key;
    this.changed.fire(undefined);
  }

  private lifecycle: LifecycleNotes | undefined;

  /** Rows gain their service state (expiry, public) from here, and redraw when it changes. */
  setLifecycle(source: LifecycleNotes): vscode.Disposable {
    this.lifecycle = source;
    return source.onDidChange(() => this.refresh());
  }

  rows(): { rows: CheckpointRow[]; badLines: number[] } {
    let own: { rows: CheckpointRow[]; badLines: number[] } = { rows: [], badLines: [] };
    try {
      const runsDir = this.workspace.runsDir();
      const registry = readCheckpointRegistry(runsDir);
      own = { rows: checkpointRows(registry, this.scores), badLines: registry.badLines };
    } catch {
      // no folder or settings yet: the cookbook runs' checkpoints still show
    }
    const cookbook = (this.cookbook?.dirs() ?? []).flatMap((dir) => {
      try {
        return checkpointRows({ entries: cookbookCheckpointEntries(dir), badLines: [] });
      } catch {
        return []; // a bad line in that run's checkpoints.jsonl: its dashboard names it
      }
    });
    return { rows: [...own.rows, ...cookbook], badLines: own.badLines };
  }

  getChildren(node?: CheckpointNode): CheckpointNode[] {
    if (!node) {
      void this.whenScored();
      const { rows, badLines } = this.rows();
      const nodes: CheckpointNode[] = rows.map((row) => ({ type: "checkpoint", row }));
      if (badLines.length > 0 && rows.length > 0)
        nodes.push({
          type: "message",
          text: `⚠ skipped unreadable registry line(s) ${badLines.slice(0, 5).join(", ")}`,
        });
      const outside = this.lifecycle?.outside();
      if (outside?.checkpoints.length) nodes.push({ type: "outsideGroup", outside });
      return nodes;
    }
    if (node.type === "outsideGroup")
      return node.outside.checkpoints.map((checkpoint) => ({ type: "outside", checkpoint }));
    if (node.type === "checkpoint")
      return node.row.details.map((d) => ({ type: "detail", row: node.row, label: d.label, value: d.value }));
    return [];
  }

  getTreeItem(node: CheckpointNode): vscode.TreeItem {
    if (node.type === "checkpoint") {
      const item = new vscode.TreeItem(node.row.label, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `ckpt:${node.row.entry.name}`;
      item.description = withLifecycle(node.row.description, this.lifecycle?.note(node.row.entry.name));
      item.tooltip = node.row.tooltip;
      item.iconPath = new vscode.ThemeIcon(
        node.row.entry.kind === "grpo" ? "rocket" : node.row.entry.kind?.startsWith("cookbook") ? "beaker" : "package",
      );
      item.contextValue = "checkpoint";
      return item;
    }
    if (node.type === "detail") {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
      item.description = node.value;
      item.tooltip = node.value;
      item.contextValue = node.label === "sampler" || node.label === "state" ? "checkpointPath" : "checkpointDetail";
      return item;
    }
    if (node.type === "outsideGroup") {
      const item = new vscode.TreeItem(outsideGroupLabel(node.outside), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = "ckpt-outside";
      item.tooltip = `The account's checkpoints that no name in this folder's checkpoints.jsonl points at (of ${node.outside.total} on the service)`;
      item.iconPath = new vscode.ThemeIcon("cloud");
      item.contextValue = "outsideCheckpoints";
      return item;
    }
    if (node.type === "outside") {
      const row = outsideRow(node.checkpoint);
      const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
      item.id = `ckpt-outside:${node.checkpoint.tinker_path}`;
      item.description = row.description;
      item.tooltip = node.checkpoint.tinker_path;
      item.iconPath = new vscode.ThemeIcon("cloud");
      item.contextValue = "outsideCheckpoint";
      return item;
    }
    return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
