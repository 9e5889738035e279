/**
 * The trace viewer: one run's episode list and one episode's token stream. The extension reads
 * the run through core and decodes tokens with the run's own tokenizer (trace-run.ts); the
 * webview only renders.
 *
 * One panel serves every run: opening another run posts it into the open webview ("retarget",
 * then the new run's messages) instead of creating a webview, whose start is most of an open.
 * The first run's messages are posted as soon as they are read, before the page says "ready":
 * VS Code queues them for the page, so the first frame does not wait for a round trip.
 */
import * as vscode from "vscode";
import { basename } from "node:path";
import { Panel } from "../webview/panel-base";
import type { WebviewMessage } from "../webview/protocol";
import { TraceRun, type TraceSink } from "./trace-run";

const title = (runDir: string) => `Trace · ${basename(runDir)}`;

export class TracePanel extends Panel {
  private run: TraceRun;

  constructor(
    panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    runDir: string,
    episodeId: string | undefined,
  ) {
    super(panel, context, { kind: "trace", runDir, ...(episodeId ? { episodeId } : {}) }, title(runDir));
    this.run = this.start(runDir, episodeId);
  }

  get runDir(): string {
    return this.run.runDir;
  }

  /** Shows `episodeId` (or the run's first episode) of `runDir` in this panel, replacing another run. */
  show(runDir: string, episodeId: string | undefined): void {
    if (runDir === this.run.runDir) {
      this.run.select(episodeId);
      return;
    }
    this.run.close();
    for (const k of Object.keys(this.hostTimings)) if (k !== "loads") delete this.hostTimings[k];
    this.retarget({ kind: "trace", runDir, ...(episodeId ? { episodeId } : {}) }, title(runDir));
    this.run = this.start(runDir, episodeId);
  }

  private start(runDir: string, episodeId: string | undefined): TraceRun {
    const sink: TraceSink = {
      post: (body) => this.post(body),
      setState: (state) => this.setState(state),
      hostTimings: this.hostTimings,
    };
    const run = new TraceRun(sink, runDir, episodeId);
    // Posted once read: before "ready" (queued for this page by VS Code), or at once on a reused page.
    const deliver = () => this.deliver(run);
    void run.opening.then(deliver, deliver); // a failure too: load posts it as the panel's error

    return run;
  }

  /** The run's first messages, once per page load. */
  private deliver(run: TraceRun): void {
    if (run !== this.run || run.isDisposed || this.isDisposed || run.deliveredForPage === this.pageLoad) return;
    run.deliveredEarly = !this.isReady;
    run
      .load(this.pageLoad)
      .catch((e: unknown) => this.post({ type: "error", message: e instanceof Error ? e.message : String(e) }));
  }

  protected override onDispose(): void {
    this.run.close();
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") {
      // The page has no data: the run's messages, posted before it was up, were lost.
      if (m.again && this.run.deliveredEarly) this.run.deliveredForPage = 0;
      this.deliver(this.run);
    } else await this.run.onMessage(m);
  }
}
