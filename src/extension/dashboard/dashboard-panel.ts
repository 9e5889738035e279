/**
 * The training dashboard: follows a training run's logs while the job writes them; the whole view
 * is re-read and posted after each change (see folder-watch.ts). Other training runs of the
 * workspace can be overlaid on its charts (picked here, remembered in the panel state), and a
 * checkpoint's "Evaluate" runs the Checkpoints view's Evaluate on Val command for it.
 */
import * as vscode from "vscode";
import { basename, dirname, resolve } from "node:path";
import { registryPath } from "../../core/base/checkpoints/registry";
import { readDashboard, type DashboardView } from "../../core/views/trace/dashboard-view";
import { traceDecoder } from "../trace/trace-off-thread";
import { isCookbookLogDir } from "../../core/views/interop/cookbook";
import { cookbookDashboardAsync } from "../../core/views/interop/cookbook-dashboard";
import { overlayCandidates, readOverlay } from "../../core/views/trace/overlay-runs";
import { checkpointRows, cookbookCheckpointEntries, readCheckpointRegistry } from "../checkpoints/checkpoints-model";
import { watchRunFiles, type FolderWatch } from "../webview/folder-watch";
import { Panel } from "../webview/panel-base";
import type { WebviewMessage } from "../webview/protocol";
import { RUN_FILES } from "../../core/base/runs/run-folder";

const WATCHED = [RUN_FILES.metrics, RUN_FILES.groups, RUN_FILES.checkpoints, RUN_FILES.episodes];
/** The command the Checkpoints view runs for "Evaluate on Val" (package.json). */
const EVALUATE_CHECKPOINT_COMMAND = "agentLab.evaluateCheckpoint";

export class DashboardPanel extends Panel {
  private watch: FolderWatch | undefined;
  private view: DashboardView | undefined;
  private overlays: string[];
  private readonly viewState: vscode.Disposable;

  constructor(
    panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    private runDir: string,
    overlays: string[] = [],
  ) {
    super(panel, context, { kind: "dashboard", runDir, overlays }, `Training · ${basename(runDir)}`);
    this.overlays = overlays;
    this.postFirstSoon(() => this.follow());
    // An eval started from here writes to another folder: re-read when the panel is shown again.
    this.viewState = panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.visible && this.view) this.refresh();
    });
  }

  /** Follows another training run in this panel (the open webview is reused), without overlays. */
  show(runDir: string): void {
    if (runDir === this.runDir) return;
    this.watch?.dispose();
    this.watch = undefined;
    this.view = undefined;
    this.runDir = runDir;
    this.overlays = [];
    this.retarget({ kind: "dashboard", runDir, overlays: [] }, `Training · ${basename(runDir)}`);
    this.postFirst(() => this.follow(), true);
  }

  /** Posts the view and re-reads it after each change of the run's logs. */
  private follow(): void {
    this.refresh();
    this.watch ??= watchRunFiles(this.runDir, WATCHED, () => this.refresh());
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") this.postFirst(() => this.follow());
    else if (m.type === "dashboard/openGroup") {
      const group = this.view?.groups[m.index];
      if (!group) throw new Error(`no group ${m.index} in this run`);
      const episodes = await traceDecoder.group(this.runDir, group); // decoded off the host's thread
      this.post({ type: "dashboard/group", group: { step: group.step, group, episodes } });
    } else if (m.type === "dashboard/evaluate") {
      await this.evaluate(m.checkpoint);
    } else if (m.type === "dashboard/addOverlay") {
      await this.pickOverlay();
    } else if (m.type === "dashboard/removeOverlay") {
      this.setOverlays(this.overlays.filter((d) => basename(d) !== m.run));
    }
  }

  private async evaluate(name: string): Promise<void> {
    if (this.cookbook) {
      // The view lists the run's checkpoints.jsonl in file order, as the entries do.
      const index = this.view?.checkpoints.findIndex((c) => c.name === name) ?? -1;
      const entry = index >= 0 ? cookbookCheckpointEntries(this.runDir)[index] : undefined;
      if (!entry) throw new Error(`checkpoint ${name} is not in ${this.runDir}/checkpoints.jsonl any more`);
      const [row] = checkpointRows({ entries: [entry], badLines: [] });
      await vscode.commands.executeCommand(EVALUATE_CHECKPOINT_COMMAND, { type: "checkpoint", row });
      return;
    }
    // The registry's later line wins for a name; checkpointRows lists newest first.
    const row = checkpointRows(readCheckpointRegistry(dirname(this.runDir))).find((r) => r.entry.name === name);
    if (!row)
      throw new Error(
        `checkpoint ${name} is not in ${registryPath(dirname(this.runDir))}: evaluate it from a terminal with agent-lab eval and its sampler path`,
      );
    await vscode.commands.executeCommand(EVALUATE_CHECKPOINT_COMMAND, { type: "checkpoint", row });
  }

  private async pickOverlay(): Promise<void> {
    const candidates = overlayCandidates(this.runDir).filter((d) => !this.overlays.includes(d));
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage(
        `Agent Lab: no other training run beside ${basename(this.runDir)} to overlay.`,
      );
      return;
    }
    const picked = await vscode.window.showQuickPick(
      candidates.map((dir) => ({ label: basename(dir), dir })),
      { title: `Overlay on ${basename(this.runDir)}'s charts`, canPickMany: true },
    );
    if (picked?.length) this.setOverlays([...this.overlays, ...picked.map((p) => p.dir)]);
  }

  private setOverlays(dirs: string[]): void {
    this.overlays = dirs.map((d) => resolve(d));
    this.setState({ kind: "dashboard", runDir: this.runDir, overlays: this.overlays });
    this.refresh();
  }

  /** A tinker-cookbook log folder: read through core's cookbook reader. */
  private get cookbook(): boolean {
    return isCookbookLogDir(this.runDir);
  }

  /** Refreshes since the panel opened: a read that finishes after a newer one started is dropped. */
  private refreshes = 0;

  /**
   * A cookbook run's metrics.jsonl (hundreds of MB for a long run) is read asynchronously, a chunk
   * at a time, so the extension host's thread is never held for the whole file.
   */
  private refresh(): void {
    const mine = ++this.refreshes;
    const runDir = this.runDir;
    void (this.cookbook ? cookbookDashboardAsync(runDir) : Promise.resolve(readDashboard(runDir))).then(
      (view) => {
        if (mine === this.refreshes && runDir === this.runDir) this.present(view);
      },
      (e: unknown) => void vscode.window.showErrorMessage(`Agent Lab dashboard: ${(e as Error).message}`),
    );
  }

  private present(view: DashboardView): void {
    for (const dir of this.overlays) {
      const o = readOverlay(dir);
      if (o.problem) view.problems.push(`overlay ${o.run}: ${o.problem}`);
      view.overlays.push({ run: o.run, series: o.series, ...(o.xAxes ? { xAxes: o.xAxes } : {}) });
    }
    this.view = view;
    this.post({ type: "dashboard/data", data: view });
  }

  protected override onDispose(): void {
    this.watch?.dispose();
    this.viewState.dispose();
  }
}
