/**
 * Owns every open panel of this extension window: opens or reveals them (one trace panel, one
 * compare panel and one dashboard, each pointed at the run last opened; one experiment panel per
 * record), restores them after a reload
 * (a WebviewPanelSerializer per view type) and provides the "Open trace" code lens on the lines of
 * an episodes.jsonl.
 */
import * as vscode from "vscode";
import { dirname, resolve } from "node:path";
import type { CompareOrigin } from "../../core/steps/ablate/compare-setup";
import { ComparePanel } from "../compare/compare-panel";
import { DashboardPanel } from "../dashboard/dashboard-panel";
import { ExperimentPanel } from "../experiments/experiment-panel";
import { Panel, webviewOptions } from "../webview/panel-base";
import { PANELS } from "../webview/panels";
import { PANEL_VIEW_TYPES, PROBE_PANEL_COMMAND, REFERENCE_PANEL_COMMAND, type PanelState } from "../webview/protocol";
import { openReferencePanel } from "../webview/reference-panel";
import { TracePanel } from "../trace/trace-panel";
import { PlaygroundPanel, type PlaygroundState, type StartPlayground } from "../playground/playground-panel";
import { RUN_FILES } from "../../core/base/runs/run-folder";

export { PANEL_VIEW_TYPES };

/** Command the episodes.jsonl code lens runs: (runDir, episodeId). */
export const OPEN_TRACE_AT_COMMAND = "agentLab.openTraceAt";

const hosts = new WeakMap<vscode.ExtensionContext, PanelHost>();

/**
 * The id on one line of episodes.jsonl, read without parsing the (possibly huge) line: the first
 * key, or the second after format 2's leading `"format": N`.
 */
export function episodeIdOnLine(line: string): string | undefined {
  const m = /^\s*\{\s*(?:"format"\s*:\s*\d+\s*,\s*)?"id"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(line);
  if (!m) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}

export class PanelHost {
  private readonly open = new Map<string, Panel>();

  static for(context: vscode.ExtensionContext): PanelHost {
    let host = hosts.get(context);
    if (!host) {
      host = new PanelHost(context);
      hosts.set(context, host);
    }
    return host;
  }

  private constructor(private readonly context: vscode.ExtensionContext) {}

  /** Panels currently open, by key (tests and screenshots look panels up here). */
  get panels(): ReadonlyMap<string, Panel> {
    return this.open;
  }

  /**
   * One panel per kind (trace, compare, dashboard): opening another run shows it in the open
   * panel (revealed, in `column` when given) rather than creating a webview, whose start is most of
   * the time to a first frame. Side by side is the compare panel's pair view.
   */
  private reuse<T extends Panel>(kind: PanelState["kind"], type: abstract new (...args: never[]) => T): T | undefined {
    const existing = this.open.get(kind);
    return existing instanceof type && !existing.isDisposed ? existing : undefined;
  }

  async openTrace(
    runDir: string,
    episodeId?: string,
    column: vscode.ViewColumn = vscode.ViewColumn.Active,
  ): Promise<TracePanel> {
    const existing = this.reuse("trace", TracePanel);
    if (existing) {
      existing.show(resolve(runDir), episodeId);
      existing.panel.reveal(column);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPES.trace,
      "Trace",
      column,
      webviewOptions(this.context),
    );
    return this.track("trace", new TracePanel(panel, this.context, resolve(runDir), episodeId));
  }

  /** `origin`: how the comparison was opened, which presets the fields expected to differ. */
  async openCompare(runDirs: string[], origin: CompareOrigin = "runs"): Promise<ComparePanel> {
    if (runDirs.length < 2) throw new Error("pick at least two runs to compare");
    const dirs = runDirs.map((d) => resolve(d));
    const existing = this.reuse("compare", ComparePanel);
    if (existing) {
      existing.show(dirs, origin);
      existing.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPES.compare,
      "Compare",
      vscode.ViewColumn.Active,
      webviewOptions(this.context),
    );
    return this.track("compare", this.comparePanel(panel, dirs, origin, undefined));
  }

  async openDashboard(runDir: string): Promise<DashboardPanel> {
    const existing = this.reuse("dashboard", DashboardPanel);
    if (existing) {
      existing.show(resolve(runDir));
      existing.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPES.dashboard,
      "Training",
      vscode.ViewColumn.Active,
      webviewOptions(this.context),
    );
    return this.track("dashboard", new DashboardPanel(panel, this.context, resolve(runDir)));
  }

  async openExperiment(recordDir: string): Promise<ExperimentPanel> {
    const key = `experiment:${resolve(recordDir)}`; // one per record: few, and they open runs rather than each other
    const existing = this.open.get(key);
    if (existing instanceof ExperimentPanel && !existing.isDisposed) {
      existing.reveal();
      existing.refresh(); // opened again after a change (Validate): read the files now, not on the next file event
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPES.experiment,
      "Experiment",
      vscode.ViewColumn.Active,
      webviewOptions(this.context),
    );
    return this.track(key, this.experimentPanel(panel, resolve(recordDir)));
  }

  private experimentPanel(panel: vscode.WebviewPanel, recordDir: string): ExperimentPanel {
    return new ExperimentPanel(panel, this.context, recordDir, async (runDir, kind) => {
      if (kind === "training") await this.openDashboard(runDir);
      else await this.openTrace(runDir, undefined, vscode.ViewColumn.Beside);
    });
  }

  /** How a Chat with Model panel starts its process and what a save refreshes (set by the playground's commands). */
  private playgroundStarter: { start: StartPlayground; onSaved: (runDir: string) => void } | undefined;

  setPlaygroundStarter(start: StartPlayground, onSaved: (runDir: string) => void): void {
    this.playgroundStarter = { start, onSaved };
  }

  /** A new Chat with Model panel on a model (one per open: chats on several checkpoints side by side). */
  openPlayground(state: PlaygroundState): PlaygroundPanel {
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPES.playground,
      "Chat",
      vscode.ViewColumn.Active,
      webviewOptions(this.context),
    );
    return this.playgroundPanel(panel, state);
  }

  private playgroundPanel(panel: vscode.WebviewPanel, state: PlaygroundState): PlaygroundPanel {
    const starter = this.playgroundStarter;
    if (!starter) throw new Error("the playground's commands are not registered");
    const key = `playground:${Date.now()}:${Math.random()}`;
    return this.track(
      key,
      new PlaygroundPanel(panel, this.context, state, starter.start, starter.onSaved, (runDir) =>
        this.openTrace(runDir, undefined, vscode.ViewColumn.Beside).then(() => undefined),
      ),
    );
  }

  registerSerializers(): void {
    const restore = (kind: PanelState["kind"]) => ({
      deserializeWebviewPanel: async (panel: vscode.WebviewPanel, state: unknown) => {
        const s = state as PanelState | undefined;
        if (!s || s.kind !== kind) {
          panel.dispose();
          return;
        }
        // A restored panel carries the options an older build saved (resource roots may have moved).
        panel.webview.options = webviewOptions(this.context);
        // Panels restored from a build that kept one per run: the last restored is the one reused.
        if (s.kind === "trace") this.track("trace", new TracePanel(panel, this.context, s.runDir, s.episodeId));
        else if (s.kind === "compare")
          this.track("compare", this.comparePanel(panel, s.runDirs, s.origin ?? "runs", s.expect));
        else if (s.kind === "experiment")
          this.track(`experiment:${s.recordDir}`, this.experimentPanel(panel, s.recordDir));
        // A restored chat starts its model again, with no episode (an unsaved one was not kept).
        else if (s.kind === "playground") this.playgroundPanel(panel, s);
        else this.track("dashboard", new DashboardPanel(panel, this.context, s.runDir, s.overlays ?? []));
      },
    });
    for (const { kind, viewType } of PANELS) {
      this.context.subscriptions.push(vscode.window.registerWebviewPanelSerializer(viewType, restore(kind)));
    }
    this.context.subscriptions.push(
      vscode.commands.registerCommand(
        PROBE_PANEL_COMMAND,
        async (kind: PanelState["kind"], selectors: string[], click?: string) => {
          const panel = [...this.open.values()].filter((p) => p.kind === kind && !p.isDisposed).pop();
          if (!panel) throw new Error(`no open ${kind} panel`);
          return panel.probe(selectors, 5000, typeof click === "string" ? click : undefined);
        },
      ),
      vscode.commands.registerCommand(REFERENCE_PANEL_COMMAND, () => openReferencePanel(this.context)),
    );
  }

  registerEpisodeCodeLens(): void {
    const provider: vscode.CodeLensProvider = {
      provideCodeLenses: (doc) => {
        const lenses: vscode.CodeLens[] = [];
        const runDir = dirname(doc.uri.fsPath);
        for (let i = 0; i < doc.lineCount; i++) {
          const id = episodeIdOnLine(doc.lineAt(i).text.slice(0, 4096));
          if (id === undefined) continue;
          lenses.push(
            new vscode.CodeLens(new vscode.Range(i, 0, i, 0), {
              title: "Open trace",
              command: OPEN_TRACE_AT_COMMAND,
              arguments: [runDir, id],
            }),
          );
        }
        return lenses;
      },
    };
    this.context.subscriptions.push(
      vscode.languages.registerCodeLensProvider({ pattern: `**/${RUN_FILES.episodes}` }, provider),
      vscode.commands.registerCommand(OPEN_TRACE_AT_COMMAND, (runDir: string, episodeId?: string) =>
        this.openTrace(runDir, episodeId),
      ),
    );
  }

  private comparePanel(
    panel: vscode.WebviewPanel,
    dirs: string[],
    origin: CompareOrigin,
    expect: string[] | undefined,
  ): ComparePanel {
    return new ComparePanel(panel, this.context, dirs, origin, expect, async (runDir, id) => {
      await this.openTrace(runDir, id, vscode.ViewColumn.Beside);
    });
  }

  private track<T extends Panel>(key: string, panel: T): T {
    this.open.set(key, panel);
    panel.panel.onDidDispose(() => {
      if (this.open.get(key) === panel) this.open.delete(key);
    });
    return panel;
  }
}
