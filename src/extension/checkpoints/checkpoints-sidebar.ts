/**
 * The Checkpoints sidebar: a webview view in the Agent Lab container (views.json) showing core's
 * checkpointsSidebarView for the chosen training runs — val score with CI per checkpoint, the Δ
 * against the picked baseline (Holm across the rows), the best by val — and the actions on it
 * (choose runs, Evaluate missing, Compare selected / Open full Compare), which it hands to the
 * commands (checkpoint-compare-commands.ts). It re-reads the runs when told (the runs watcher, a
 * job's end) and posts the new view; the webview keeps nothing of its own but the ticks it sent.
 */
import * as vscode from "vscode";
import type { BaselineId, CheckpointsSidebarView } from "../../core/views/checkpoints/sidebar-view";
import type { LabWorkspace } from "../workspace/lab-workspace";
import { hostMessage, parseWebviewMessage, ProtocolError, type WebviewMessage } from "../webview/protocol";
import type { HostBody, ProbeAnswer } from "../webview/panel-base";
import { webviewOptions, webviewRoot } from "../webview/panel-base";
import { makeNonce, panelHtml } from "../webview/webview-html";
import { viewOf } from "../webview/views";
import { readFileSync } from "node:fs";

/** What the view's buttons ask of the commands (wired by checkpoint-compare-commands.ts). */
export interface SidebarActions {
  chooseRuns(): Promise<void>;
  evaluateMissing(): Promise<void>;
  /** "selected": the ticked checkpoints; "all": the baseline and every scored row. */
  openCompare(which: "selected" | "all"): Promise<void>;
}

/** Quiet time after a burst of file events before the view is computed again. */
const REFRESH_DEBOUNCE_MS = 300;

export class CheckpointsSidebar implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = viewOf("checkpoints").viewId;
  private view: vscode.WebviewView | undefined;
  private chosen: string[] = [];
  private baseline: BaselineId | undefined;
  private selected: string[] = [];
  private readonly evaluating = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly probes = new Map<number, (a: ProbeAnswer) => void>();
  private nextProbe = 1;
  private readonly shown = new vscode.EventEmitter<CheckpointsSidebarView>();
  /** Fires with each view posted (tests wait on it). */
  readonly onDidPost = this.shown.event;
  /** The last view posted. */
  last: CheckpointsSidebarView | undefined;
  actions: SidebarActions | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly workspace: LabWorkspace,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const { enableScripts, localResourceRoots } = webviewOptions(this.context);
    view.webview.options = { enableScripts, localResourceRoots };
    const root = webviewRoot(this.context);
    const bundle = `${viewOf("checkpoints").bundle}.js`;
    const read = (name: string) => {
      try {
        return readFileSync(vscode.Uri.joinPath(root, name).fsPath, "utf8");
      } catch {
        return undefined; // an extension folder without its build: the page says what to run
      }
    };
    view.webview.html = panelHtml({
      kind: "checkpoints",
      title: "Checkpoints",
      cspSource: view.webview.cspSource,
      script: read(bundle) ?? { missing: `dist/webview/${bundle}` },
      stylesheet: read("panels.css") ?? "",
      nonce: makeNonce(),
    });
    view.webview.onDidReceiveMessage((raw) => void this.receive(raw));
    view.onDidChangeVisibility(() => view.visible && this.refresh());
    view.onDidDispose(() => (this.view = undefined));
  }

  /** Shows these training runs (all of them when empty), optionally these checkpoints ticked and a baseline. */
  show(runs: string[], selected: string[] = [], baseline?: BaselineId): void {
    this.chosen = [...runs];
    this.selected = [...selected];
    if (baseline) this.baseline = baseline;
    void this.post();
  }

  get chosenRuns(): readonly string[] {
    return this.chosen;
  }

  get selectedCheckpoints(): readonly string[] {
    return this.selected;
  }

  /** Marks a checkpoint's eval as running (true) or over (false). */
  setEvaluating(name: string, on: boolean): void {
    if (on) this.evaluating.add(name);
    else this.evaluating.delete(name);
    this.refresh();
  }

  /** Recomputes the view after a quiet moment (file events come in bursts). */
  refresh(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.post();
    }, REFRESH_DEBOUNCE_MS);
  }

  /** The view for the current choice, computed now (its module loads on first use: it reads eval runs). */
  async compute(): Promise<CheckpointsSidebarView> {
    const { checkpointsSidebarView } = await import("../../core/views/checkpoints/sidebar-view");
    return checkpointsSidebarView(this.workspace.runsDir(), this.chosen, this.baseline);
  }

  private async post(): Promise<void> {
    let view: CheckpointsSidebarView;
    try {
      view = await this.compute();
    } catch (e) {
      this.send({ type: "error", message: (e as Error).message });
      return;
    }
    this.last = view;
    this.send({ type: "checkpoints/view", view, evaluating: [...this.evaluating], selected: this.selected });
    this.shown.fire(view);
  }

  private send(body: HostBody): void {
    void this.view?.webview.postMessage(hostMessage(body));
  }

  private async receive(raw: unknown): Promise<void> {
    let m: WebviewMessage;
    try {
      m = parseWebviewMessage(raw);
    } catch (e) {
      if (e instanceof ProtocolError) this.send({ type: "error", message: e.message });
      return;
    }
    try {
      if (m.type === "ready") await this.post();
      else if (m.type === "probeResult") {
        this.probes.get(m.id)?.({ results: m.results, pwned: m.pwned, timings: m.timings });
        this.probes.delete(m.id);
      } else if (m.type === "checkpoints/setBaseline") {
        this.baseline = m.baseline;
        await this.post();
      } else if (m.type === "checkpoints/select") {
        if (!Array.isArray(m.selected) || !m.selected.every((s) => typeof s === "string"))
          throw new Error("checkpoints/select needs a list of checkpoint names");
        this.selected = [...m.selected];
      } else if (m.type === "checkpoints/chooseRuns") await this.actions?.chooseRuns();
      else if (m.type === "checkpoints/evaluateMissing") await this.actions?.evaluateMissing();
      else if (m.type === "checkpoints/openCompare")
        await this.actions?.openCompare(m.which === "selected" ? "selected" : "all");
    } catch (e) {
      this.send({ type: "error", message: (e as Error).message });
    }
  }

  /** What the view's DOM holds (integration tests, screenshots); `click` is clicked first. */
  probe(selectors: string[], timeoutMs = 5000, click?: string): Promise<ProbeAnswer> {
    if (!this.view) return Promise.reject(new Error("the Checkpoints sidebar view is not open"));
    const id = this.nextProbe++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.probes.delete(id);
        reject(new Error(`the Checkpoints sidebar did not answer a probe within ${timeoutMs} ms`));
      }, timeoutMs);
      this.probes.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      this.send({ type: "probe", id, selectors, ...(click ? { click } : {}) });
    });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.shown.dispose();
  }
}
