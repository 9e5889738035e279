/**
 * The training dashboard: follows a training run's logs while the job writes them. The folder is
 * watched (fs.watch, with a slow poll as a fallback for file systems that do not report changes)
 * and the whole view is re-read and posted after each change, debounced.
 */
import * as vscode from "vscode";
import { existsSync, statSync, watch, type FSWatcher } from "node:fs";
import { basename, join } from "node:path";
import { groupEpisodeViews, readDashboard, type DashboardView } from "../../core/trace/dashboard-view";
import { Panel } from "./panel-base";
import type { WebviewMessage } from "./protocol";

const DEBOUNCE_MS = 150;
const POLL_MS = 2000;

export class DashboardPanel extends Panel {
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private lastSignature = "";
  private view: DashboardView | undefined;

  constructor(panel: vscode.WebviewPanel, context: vscode.ExtensionContext, readonly runDir: string) {
    super(panel, context, { kind: "dashboard", runDir }, `Training · ${basename(runDir)}`);
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") {
      this.refresh(true);
      this.startWatching();
    } else if (m.type === "dashboard/openGroup") {
      await this.openGroup(m.index);
    }
  }

  /** Sizes and mtimes of the files the view is made of: re-read only when one changed. */
  private signature(): string {
    return ["metrics.jsonl", "groups.jsonl", "checkpoints.jsonl", "episodes.jsonl"]
      .map((f) => {
        const p = join(this.runDir, f);
        if (!existsSync(p)) return "-";
        const s = statSync(p);
        return `${s.size}:${s.mtimeMs}`;
      })
      .join("|");
  }

  refresh(force = false): void {
    const sig = this.signature();
    if (!force && sig === this.lastSignature) return;
    this.lastSignature = sig;
    this.view = readDashboard(this.runDir);
    this.post({ type: "dashboard/data", data: this.view });
  }

  private startWatching(): void {
    if (this.watcher || this.poll) return;
    const schedule = () => {
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => this.refresh(), DEBOUNCE_MS);
    };
    try {
      this.watcher = watch(this.runDir, schedule);
    } catch {
      // Folder not there yet (job just launched): the poll picks it up.
    }
    this.poll = setInterval(() => this.refresh(), POLL_MS);
  }

  protected override onDispose(): void {
    this.watcher?.close();
    clearInterval(this.poll);
    clearTimeout(this.debounce);
  }

  private async openGroup(index: number): Promise<void> {
    const group = this.view?.groups[index];
    if (!group) throw new Error(`no group ${index} in this run`);
    const views = await groupEpisodeViews(this.runDir, group);
    this.post({ type: "dashboard/group", group: { step: group.step, group, episodes: views } });
  }
}

