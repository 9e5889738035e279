/**
 * The training dashboard: follows a training run's logs while the job writes them; the whole view
 * is re-read and posted after each change (see folder-watch.ts).
 */
import * as vscode from "vscode";
import { basename } from "node:path";
import { groupEpisodeViews, readDashboard, type DashboardView } from "../../core/trace/dashboard-view";
import { watchRunFiles, type FolderWatch } from "./folder-watch";
import { Panel } from "./panel-base";
import type { WebviewMessage } from "./protocol";

const WATCHED = ["metrics.jsonl", "groups.jsonl", "checkpoints.jsonl", "episodes.jsonl"];

export class DashboardPanel extends Panel {
  private watch: FolderWatch | undefined;
  private view: DashboardView | undefined;

  constructor(panel: vscode.WebviewPanel, context: vscode.ExtensionContext, readonly runDir: string) {
    super(panel, context, { kind: "dashboard", runDir }, `Training · ${basename(runDir)}`);
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") {
      this.refresh();
      this.watch ??= watchRunFiles(this.runDir, WATCHED, () => this.refresh());
    } else if (m.type === "dashboard/openGroup") {
      const group = this.view?.groups[m.index];
      if (!group) throw new Error(`no group ${m.index} in this run`);
      const episodes = await groupEpisodeViews(this.runDir, group);
      this.post({ type: "dashboard/group", group: { step: group.step, group, episodes } });
    }
  }

  private refresh(): void {
    this.view = readDashboard(this.runDir);
    this.post({ type: "dashboard/data", data: this.view });
  }

  protected override onDispose(): void {
    this.watch?.dispose();
  }
}
