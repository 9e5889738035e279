/**
 * What every panel shares: the webview's options (scripts on, resources only from dist/webview),
 * the CSP'd HTML shell, validated messages in both directions, chart export to a file the user
 * picks, and state kept for the serializer.
 */
import * as vscode from "vscode";
import { readFileSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import {
  hostMessage,
  parseWebviewMessage,
  ProtocolError,
  type HostMessage,
  type PanelState,
  type ProbeResult,
  type WebviewMessage,
} from "./protocol";
import { panelOf } from "./panels";
import { makeNonce, panelHtml } from "./webview-html";
import { afterSent } from "./after-sent";
import { exportTable } from "./table-export";

export type HostBody = Parameters<typeof hostMessage>[0];

/** A probe's answer: per selector what the DOM holds, whether a payload ran, the webview's timings. */
export interface ProbeAnswer {
  results: ProbeResult[];
  pwned: boolean;
  timings: Record<string, number>;
  /** The extension side's timings (e.g. the trace view model's build time). */
  host?: Record<string, number>;
}

/** Where scripts/build.mjs puts the panels' bundles and stylesheet, in the extension's folder. */
const WEBVIEW_DIR = "dist/webview";

export function webviewRoot(context: vscode.ExtensionContext): vscode.Uri {
  return vscode.Uri.joinPath(context.extensionUri, WEBVIEW_DIR);
}

/** Files of dist/webview read for a page, by path, with the size and mtime they were read at. */
const pageFiles = new Map<string, { size: number; mtimeMs: number; text: string }>();

/**
 * A file of dist/webview (a panel's bundle, panels.css) as text, read again only when it changed
 * (a rebuild while the extension runs). Undefined when it is missing: an extension folder
 * without its build.
 */
function webviewFile(root: vscode.Uri, name: string): string | undefined {
  const file = vscode.Uri.joinPath(root, name).fsPath;
  try {
    const stat = statSync(file);
    const known = pageFiles.get(file);
    if (known?.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.text;
    const text = readFileSync(file, "utf8");
    pageFiles.set(file, { size: stat.size, mtimeMs: stat.mtimeMs, text });
    return text;
  } catch {
    pageFiles.delete(file);
    return undefined;
  }
}

export function webviewOptions(context: vscode.ExtensionContext): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [webviewRoot(context)] };
}

/**
 * How long a visible panel may take from its HTML to its script's "ready" before the HTML is set
 * again, and how many times. While the bundle was linked, a webview whose script request went
 * out before VS Code's resource service worker controlled the page failed with
 * ERR_NAME_NOT_RESOLVED and stayed on "Loading…" for good; the bundle is in the page now, and this
 * stays for any other page that never comes up.
 */
export const LOAD_TIMEOUT_MS = 6000;
export const MAX_LOADS = 3;

export abstract class Panel {
  /** LOAD_TIMEOUT_MS; a test's subclass shortens it. */
  protected static loadTimeoutMs = LOAD_TIMEOUT_MS;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly probes = new Map<number, (r: ProbeAnswer) => void>();
  private nextProbe = 1;
  /** Durations the extension side measured (ms), returned with probe answers as `host`. */
  readonly hostTimings: Record<string, number> = {};
  private disposed = false;
  private ready = false;
  private loads = 0;
  private loadTimer: ReturnType<typeof setTimeout> | undefined;
  /** The page load the first data was posted to (0: not yet). */
  private firstPostedFor = 0;
  /** Whether that post went out before the page said "ready" (it can be lost: see "ready" again). */
  private firstPostedEarly = false;

  constructor(
    readonly panel: vscode.WebviewPanel,
    protected readonly context: vscode.ExtensionContext,
    protected state: PanelState,
    title: string,
  ) {
    // Options are set where the panel is made (createWebviewPanel, or the serializer for a restored
    // one): setting them again here re-sent them to the webview while its first load was under way.
    panel.title = title;
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => void this.receive(raw)),
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState(() => this.armLoadCheck()),
    );
    this.loadPage();
  }

  /** Sets the page (a fresh nonce each time) and arms the check that it came up. */
  private loadPage(): void {
    this.loads++;
    this.hostTimings.loads = this.loads;
    const root = webviewRoot(this.context);
    const webview = this.panel.webview;
    const bundle = `${panelOf(this.state.kind).bundle}.js`;
    webview.html = panelHtml({
      kind: this.state.kind,
      title: this.panel.title,
      cspSource: webview.cspSource,
      script: webviewFile(root, bundle) ?? { missing: `${WEBVIEW_DIR}/${bundle}` },
      // Unstyled rather than no panel at all when the stylesheet is missing.
      stylesheet: webviewFile(root, "panels.css") ?? "",
      nonce: makeNonce(),
    });
    this.armLoadCheck();
  }

  /** A hidden webview need not load; the check runs while the panel is visible. */
  private armLoadCheck(): void {
    if (this.ready || this.disposed || this.loadTimer || this.loads >= MAX_LOADS || !this.panel.visible) return;
    this.loadTimer = setTimeout(
      () => {
        // After the host was busy (a tokenizer load), timers run before the messages that arrived
        // meanwhile are read: look once those are in, or a "ready" waiting there reloads the page.
        setImmediate(() => {
          this.loadTimer = undefined;
          if (this.ready || this.disposed) return;
          if (this.panel.visible) this.loadPage();
        });
      },
      (this.constructor as typeof Panel).loadTimeoutMs,
    );
  }

  /** Called when the panel closes; subclasses stop their watchers here. */
  protected onDispose(): void {}

  protected abstract onMessage(message: WebviewMessage): Promise<void>;

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Whether the current page's script said "ready" (a post now reaches it directly). */
  protected get isReady(): boolean {
    return this.ready;
  }

  /**
   * Which page load this is (1, then 2… after a reload): messages posted before a page is ready
   * are queued by VS Code for that page only, so a reload needs them posted again.
   */
  protected get pageLoad(): number {
    return this.loads;
  }

  /**
   * Posts the panel's data (`send`) once per page load: called right after creation, it goes out
   * before the page's "ready" (VS Code queues it for that page, so the first frame skips a round
   * trip) and the computing overlaps the webview's start; called again on "ready", it posts only
   * if the page was loaded again since. `again`: post even if this page has it (other data).
   */
  protected postFirst(send: () => void, again = false): void {
    if (this.disposed || (!again && this.firstPostedFor === this.loads)) return;
    this.firstPostedFor = this.loads;
    this.firstPostedEarly = !this.ready;
    try {
      send();
    } catch (e) {
      this.post({ type: "error", message: (e as Error).message });
    }
  }

  /**
   * postFirst(send) once the HTML has gone out (afterSent: the caller's constructor has returned). Only for
   * data that is quick to make: seconds of synchronous work here hold the extension host while
   * VS Code creates the webview, and its start waits (Compare at 10,000 episodes: 9.4 s).
   */
  protected postFirstSoon(send: () => void): void {
    afterSent(() => this.postFirst(send));
  }

  /**
   * Points this open webview at other data instead of creating another panel (VS Code's webview
   * start is most of an open): new title and state, and a "retarget" so the page forgets what it
   * showed. The subclass posts the new data after this.
   */
  protected retarget(state: PanelState, title: string): void {
    this.state = state;
    this.panel.title = title;
    this.post({ type: "retarget", state });
  }

  post(body: HostBody): void {
    if (this.disposed) return;
    void this.panel.webview.postMessage(hostMessage(body) satisfies HostMessage);
  }

  protected setState(state: PanelState): void {
    this.state = state;
    this.post({ type: "state", state });
  }

  private async receive(raw: unknown): Promise<void> {
    let message: WebviewMessage;
    try {
      message = parseWebviewMessage(raw);
    } catch (e) {
      if (e instanceof ProtocolError) this.post({ type: "error", message: e.message });
      return;
    }
    try {
      if (message.type === "ready") {
        // The page has no data: a post before it was up was lost; the subclass's ready posts it again.
        if (message.again && this.firstPostedEarly) this.firstPostedFor = 0;
        this.ready = true;
        if (this.loadTimer) clearTimeout(this.loadTimer);
        this.loadTimer = undefined;
        this.post({ type: "state", state: this.state });
      }
      if (message.type === "probeResult") {
        this.probes.get(message.id)?.({ results: message.results, pwned: message.pwned, timings: message.timings });
        this.probes.delete(message.id);
      } else if (message.type === "export") await this.exportChart(message.format, message.name, message.data);
      else if (message.type === "table/export") await exportTable(message.table, message.format, message.to);
      else await this.onMessage(message);
    } catch (e) {
      this.post({ type: "error", message: (e as Error).message });
    }
  }

  private async exportChart(format: "svg" | "png", name: string, data: string): Promise<void> {
    const safe = name.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 80) || "chart";
    const target = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.file(`${safe}.${format}`),
      filters: format === "svg" ? { "SVG image": ["svg"] } : { "PNG image": ["png"] },
    });
    if (!target) return;
    const bytes =
      format === "svg"
        ? Buffer.from(data, "utf8")
        : Buffer.from(data.replace(/^data:image\/png;base64,/, ""), "base64");
    await writeFile(target.fsPath, bytes);
    void vscode.window.showInformationMessage(`Chart saved to ${target.fsPath}`);
  }

  /** What the webview's DOM holds for each selector (integration tests, screenshots); `click` is clicked first. */
  probe(selectors: string[], timeoutMs = 5000, click?: string): Promise<ProbeAnswer> {
    const id = this.nextProbe++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.probes.delete(id);
        reject(new Error(`the ${this.state.kind} webview did not answer a probe within ${timeoutMs} ms`));
      }, timeoutMs);
      this.probes.set(id, (r) => {
        clearTimeout(timer);
        resolve({ ...r, host: { ...this.hostTimings } });
      });
      this.post({ type: "probe", id, selectors, ...(click ? { click } : {}) });
    });
  }

  get kind(): PanelState["kind"] {
    return this.state.kind;
  }

  reveal(): void {
    this.panel.reveal();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.loadTimer) clearTimeout(this.loadTimer);
    this.onDispose();
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
  }
}
