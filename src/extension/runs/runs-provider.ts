/**
 * The Runs tree: run rows from runs-model, children = outcome groups and, for an eval run, its
 * failures by label (failure-groups.ts), grandchildren = episodes (click opens the trace).
 * Refreshes when a job writes summary.json / episodes.jsonl (debounced).
 */
import * as vscode from "vscode";
import { logtreeFiles } from "../../core/views/interop/cookbook";
import type { LabWorkspace } from "../workspace/lab-workspace";
import type { CookbookRuns } from "./cookbook-runs";
import { FailureGroupCache, type FailureGroup } from "./failure-groups";
import { EpisodeGroupCache, listRunRows, type EpisodeRow, type OutcomeGroup, type RunRow } from "./runs-model";

export type RunsNode =
  | { type: "run"; row: RunRow }
  | { type: "group"; run: RunRow; group: OutcomeGroup }
  | { type: "episode"; run: RunRow; episode: EpisodeRow }
  /** An eval run's failed episodes by label (their groups are computed when it is expanded). */
  | { type: "failures"; run: RunRow }
  | { type: "failureLabel"; run: RunRow; group: FailureGroup }
  /** A logtree file of a cookbook run (its transcripts open as text). */
  | { type: "transcript"; run: RunRow; iteration: number; base: string; file: string }
  | { type: "message"; text: string };

const STATUS_ICONS: Record<string, [string, string?]> = {
  running: ["sync~spin"],
  done: ["pass", "testing.iconPassed"],
  failed: ["error", "testing.iconFailed"],
  interrupted: ["debug-pause", "list.warningForeground"],
  stopped: ["debug-stop", "list.warningForeground"],
  unknown: ["circle-outline"],
};

const KIND_ICONS: Record<string, string> = { training: "graph-line", "sft-data": "database", experiment: "beaker" };

const OUTCOME_ICONS: Record<string, string> = {
  correct: "check",
  wrong: "close",
  no_action: "circle-slash",
  budget: "search-stop",
  length: "fold",
  other: "question",
};

/** Opens a cookbook logtree file's conversations as text: (file, title). */
export const OPEN_TRANSCRIPT_COMMAND = "agentLab.openCookbookTranscript";

export class RunsProvider implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly episodes = new EpisodeGroupCache();
  private readonly failures = new FailureGroupCache();
  private rows: RunRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private episodesListed = false;

  /**
   * `onEpisodesListed`: called once, the first time the tree lists a run with episodes, with the
   * tokenizer its manifest names (the extension loads it then for the traces to come).
   */
  constructor(
    private readonly workspace: LabWorkspace,
    private readonly liveRunDirs: () => Set<string>,
    private readonly cookbook?: CookbookRuns,
    private readonly onEpisodesListed?: (tokenizer: string) => void,
  ) {}

  /** The rows as last listed (commands use them for pickers and "previous run"). */
  currentRows(): RunRow[] {
    this.rows = this.list();
    return this.rows;
  }

  /** Debounced: a job appending episodes fires many file events. */
  refreshSoon(delayMs = 400): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.changed.fire(undefined);
    }, delayMs);
  }

  refresh(): void {
    this.cookbook?.rescan();
    this.changed.fire(undefined);
  }

  private list(): RunRow[] {
    let cookbook: string[] = [];
    try {
      cookbook = this.cookbook?.dirs() ?? [];
    } catch {
      cookbook = []; // an unreadable folder in the scan: Agent Lab's own runs still show
    }
    try {
      return listRunRows(this.workspace.runsDir(), this.liveRunDirs(), cookbook);
    } catch {
      return [];
    }
  }

  private noticeEpisodes(rows: RunRow[]): void {
    if (this.episodesListed || !this.onEpisodesListed) return;
    const tokenizer = rows.find((r) => r.hasEpisodes && typeof r.manifest?.tokenizer === "string")?.manifest?.tokenizer;
    if (!tokenizer) return;
    this.episodesListed = true;
    this.onEpisodesListed(tokenizer);
  }

  /** The run rows (sync); below a run, its groups; a "failures by label" node's children come when labelled. */
  getChildren(): RunsNode[];
  getChildren(node?: RunsNode): RunsNode[] | Promise<RunsNode[]>;
  getChildren(node?: RunsNode): RunsNode[] | Promise<RunsNode[]> {
    if (!node) {
      this.rows = this.list();
      this.noticeEpisodes(this.rows);
      // An empty list lets the welcome content (package.json viewsWelcome) show.
      return this.rows.map((row) => ({ type: "run", row }));
    }
    if (node.type === "run") {
      if (node.row.source === "cookbook") {
        return logtreeFiles(node.row.dir).map((t) => ({ type: "transcript", run: node.row, ...t }));
      }
      if (!node.row.hasEpisodes) return [];
      try {
        const groups = this.episodes.groups(node.row.dir, node.row.environment);
        if (groups.length === 0) return [{ type: "message", text: "no finished episodes yet" }];
        const outcomeNodes: RunsNode[] = groups.map((group) => ({ type: "group", run: node.row, group }));
        return node.row.kind === "eval" ? [...outcomeNodes, { type: "failures", run: node.row }] : outcomeNodes;
      } catch (e) {
        return [{ type: "message", text: `⚠ ${(e as Error).message}` }];
      }
    }
    if (node.type === "group")
      return node.group.episodes.map((episode) => ({ type: "episode", run: node.run, episode }));
    if (node.type === "failures") return this.failureChildren(node.run);
    if (node.type === "failureLabel")
      return node.group.episodes.map((episode) => ({ type: "episode", run: node.run, episode }));
    return [];
  }

  private async failureChildren(run: RunRow): Promise<RunsNode[]> {
    try {
      let dataDir: string | undefined;
      try {
        dataDir = this.workspace.dataDir();
      } catch {
        dataDir = undefined; // no folder open: the rules run without the environment's data
      }
      const groups = await this.failures.groups(run.dir, run.environment, dataDir);
      if (!groups) return [{ type: "message", text: "its environment declares no failure labels" }];
      if (groups.length === 0) return [{ type: "message", text: "no failed episodes" }];
      return groups.map((group) => ({ type: "failureLabel", run, group }));
    } catch (e) {
      return [{ type: "message", text: `⚠ ${(e as Error).message}` }];
    }
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    switch (node.type) {
      case "run": {
        const r = node.row;
        const expandable = r.hasEpisodes || r.kind === "eval" || r.source === "cookbook";
        const item = new vscode.TreeItem(
          r.label,
          expandable ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.id = `run:${r.dir}`;
        item.description = r.description;
        item.tooltip = r.tooltip;
        // A run without a recorded status (training runs) gets its kind's icon, not a blank one.
        const [icon, color] =
          r.status === "unknown" && KIND_ICONS[r.kind]
            ? [KIND_ICONS[r.kind]]
            : (STATUS_ICONS[r.status] ?? STATUS_ICONS.unknown);
        item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
        item.contextValue = r.source === "cookbook" ? "run.training.cookbook" : `run.${r.kind}`;
        item.resourceUri = vscode.Uri.file(r.dir);
        if (r.kind === "training")
          item.command = { command: "agentLab.openDashboard", title: "Open Dashboard", arguments: [node] };
        if (r.kind === "experiment")
          item.command = { command: "agentLab.openExperiment", title: "Open Experiment", arguments: [node] };
        return item;
      }
      case "group": {
        const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `group:${node.run.dir}:${node.group.outcome}`;
        item.description = node.group.description;
        item.iconPath = new vscode.ThemeIcon(OUTCOME_ICONS[node.group.outcome] ?? "question");
        item.contextValue = "outcome";
        return item;
      }
      case "failures": {
        const item = new vscode.TreeItem("failures by label", vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `failures:${node.run.dir}`;
        item.description = "the environment's failure labels";
        item.tooltip = "The failed episodes grouped by the environment's failure labels, largest group first";
        item.iconPath = new vscode.ThemeIcon("tag");
        item.contextValue = "failures";
        return item;
      }
      case "failureLabel": {
        const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `failure:${node.run.dir}:${node.group.label}`;
        item.description = node.group.description;
        item.tooltip = node.group.tooltip;
        item.iconPath = new vscode.ThemeIcon("debug-breakpoint-log");
        item.contextValue = "failureLabel";
        return item;
      }
      case "episode": {
        const item = new vscode.TreeItem(node.episode.label, vscode.TreeItemCollapsibleState.None);
        item.id = `episode:${node.run.dir}:${node.episode.id}`;
        item.description = node.episode.description;
        item.tooltip = node.episode.tooltip;
        item.contextValue = "episode";
        item.command = { command: "agentLab.openTrace", title: "Open Trace", arguments: [node] };
        return item;
      }
      case "transcript": {
        const item = new vscode.TreeItem(
          `iteration ${node.iteration} · ${node.base}`,
          vscode.TreeItemCollapsibleState.None,
        );
        item.id = `transcript:${node.file}`;
        item.description = "logtree transcripts";
        item.tooltip = node.file;
        item.iconPath = new vscode.ThemeIcon("comment-discussion");
        item.contextValue = "cookbookTranscript";
        item.command = {
          command: OPEN_TRANSCRIPT_COMMAND,
          title: "Open Transcripts",
          arguments: [node.file, `${node.run.name} · iteration ${node.iteration} · ${node.base}`],
        };
        return item;
      }
      case "message":
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.changed.dispose();
  }
}
