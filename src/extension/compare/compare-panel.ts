/**
 * The compare panel: `ablate` over the chosen runs (the first is the baseline) with the CLI's
 * settings — the same resamples and seed, so the panel prints the CLI's digits — rendered as the
 * ablation table, a forest plot of Δ, the failure labels compared and the per-question flips. The fields expected to differ
 * start from how the comparison was opened and change from the panel's control; a flip opens both
 * episodes aligned turn by turn in this panel. The report of large runs is computed in a worker
 * thread (core/steps/ablate/compare-off-thread.ts): at 10,000 episodes ablate's resamples take seconds,
 * which no longer hold the extension host (nor the webview's start, so a new panel starts computing
 * at once), and the table goes to the page before its intervals; small runs are compared on the
 * host, quicker than a worker starts.
 */
import * as vscode from "vscode";
import { basename } from "node:path";
import {
  CompareWorker,
  episodesBytes,
  ON_THREAD_MAX_BYTES,
  type CompareView,
} from "../../core/steps/ablate/compare-off-thread";
import type { RequestWorker } from "../../core/base/util/request-worker";
import type { FailureComparison } from "../../core/views/failures/compare-failures";
import type { FailuresRequest } from "../../core/views/failures/failures-off-thread";
import { promptSearchDirs, type CompareOrigin } from "../../core/steps/ablate/compare-setup";
import { traceDecoder } from "../trace/trace-off-thread";
import { Panel } from "../webview/panel-base";
import type { WebviewMessage } from "../webview/protocol";

const compareTitle = (runDirs: string[]) => `Compare · ${runDirs.map((d) => basename(d)).join(" vs ")}`;

export class ComparePanel extends Panel {
  private readonly worker = new CompareWorker();
  /** The failure labels of large runs (over ON_THREAD_MAX_BYTES), which held the host for seconds. */
  private labeller: RequestWorker<FailuresRequest, FailureComparison | undefined> | undefined;
  /** Counts requests for a report: one that answers after a newer request is dropped. */
  private requested = 0;
  private names: string[] = [];
  /** The request (as JSON) whose report is being made, until it is answered. */
  private computing: string | undefined;
  /** When the latest request was made (performance.now()): the host's timings count from it. */
  private requestedAt = 0;
  /** Resolves the wait of the latest whole report for the page's "compare/drawn" (nextDrawn). */
  private drawn: (() => void) | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    private runDirs: string[],
    private origin: CompareOrigin,
    private expect: string[] | undefined,
    private readonly openTraceAt: (runDir: string, episodeId: string) => Promise<void>,
  ) {
    super(panel, context, { kind: "compare", runDirs, origin, ...(expect ? { expect } : {}) }, compareTitle(runDirs));
    // Quick or off the host's thread, so it can start while VS Code creates the webview (posted when done).
    this.postFirstSoon(() => this.send());
  }

  /** Compares other runs in this panel (the open webview is reused); the same runs: nothing to do. */
  show(runDirs: string[], origin: CompareOrigin): void {
    if (
      origin === this.origin &&
      runDirs.length === this.runDirs.length &&
      runDirs.every((d, i) => d === this.runDirs[i])
    )
      return;
    this.runDirs = [...runDirs];
    this.origin = origin;
    this.expect = undefined;
    this.names = [];
    this.computing = undefined;
    // A report of the runs shown before still computing: stop it (the next request starts a worker).
    if (this.worker.busy) this.worker.dispose();
    if (this.labeller?.busy) this.labeller.dispose();
    this.retarget({ kind: "compare", runDirs: this.runDirs, origin }, compareTitle(this.runDirs));
    this.postFirst(() => this.send(), true);
  }

  private send(): void {
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const request = {
      runDirs: [...this.runDirs],
      origin: this.origin,
      expect: this.expect,
      searchDirs: promptSearchDirs(this.runDirs, workspace),
    };
    // The page asks again when no data came 2 s after its load (a post before it was up can be
    // lost), which the first Compare of large runs always outlasts: the request still computing
    // posts its answer to that page, where starting it over doubled the wait.
    const key = JSON.stringify(request);
    if (this.computing === key) return;
    this.computing = key;
    const n = ++this.requested;
    const answered = () => {
      if (n === this.requested) this.computing = undefined;
    };
    // When the table and the whole report were posted, from this request (bench/panels reads them).
    const t0 = (this.requestedAt = performance.now());
    for (const k of ["tableMs", "reportMs", "labelsMs", "postedAt"]) delete this.hostTimings[k];
    const table = ({ report, setup }: CompareView) => {
      if (n !== this.requested || this.isDisposed) return;
      this.hostTimings.tableMs = performance.now() - t0;
      this.post({ type: "compare/report", report, setup, intervalsPending: true });
    };
    this.worker.view(request, table).then(
      ({ report, setup }) => {
        if (n !== this.requested || this.isDisposed) return; // other runs or settings asked for since
        answered();
        this.hostTimings.reportMs = performance.now() - t0;
        this.names = report.runs.map((r) => r.name);
        const drawn = this.nextDrawn();
        // Wall clock, as the page's reportAt: the time between is the message's way to the page.
        this.hostTimings.postedAt = Date.now();
        this.post({ type: "compare/report", report, setup });
        void drawn.then(() => this.sendFailures(n));
      },
      (e: Error) => {
        answered();
        if (n === this.requested) this.post({ type: "error", message: e.message });
      },
    );
  }

  /**
   * Resolved when the page says it drew the report posted next ("compare/drawn"; a newer report, or
   * the panel's end, resolves it too, and its labels are then not made). Labelling decodes every
   * episode's text: 2.5-5 s of CPU for two 10,000-episode runs, which from the report on ran
   * beside VS Code's start of a new webview and the page's first frame, on the same cores.
   */
  private nextDrawn(): Promise<void> {
    this.drawn?.();
    return new Promise((resolve) => (this.drawn = resolve));
  }

  /** The runs' failure labels compared, after the report (labelling decodes every episode's text). */
  private async sendFailures(n: number): Promise<void> {
    try {
      // Loaded when first asked: the registry, which activation must not load.
      const { failuresRequest, failuresWorker } = await import("./compare-failures");
      // Closed or asked for other runs meanwhile: no labeller started for nothing (it would outlive the panel).
      if (n !== this.requested || this.isDisposed) return;
      this.hostTimings.labelsMs = performance.now() - this.requestedAt;
      // Never on the host's thread (labelling decodes every episode with the run's tokenizer): large
      // runs in a worker of the panel's own, which takes seconds; small ones in the window's trace
      // worker, which has the tokenizer loaded already when a trace was open.
      const req = failuresRequest(this.runDirs, this.names);
      const failures =
        episodesBytes(this.runDirs) > ON_THREAD_MAX_BYTES
          ? await (this.labeller ??= failuresWorker()).request(req)
          : await traceDecoder.compareFailures(req);
      if (failures && n === this.requested && !this.isDisposed) this.post({ type: "compare/failures", failures });
    } catch (e) {
      if (n === this.requested) this.post({ type: "error", message: `failure labels: ${(e as Error).message}` });
    }
  }

  protected override onDispose(): void {
    this.drawn?.();
    this.worker.dispose();
    this.labeller?.dispose();
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") this.postFirst(() => this.send());
    else if (m.type === "compare/drawn") {
      this.drawn?.();
      this.drawn = undefined;
    } else if (m.type === "compare/setExpect") {
      if (!Array.isArray(m.expect) || !m.expect.every((f) => typeof f === "string"))
        throw new Error("compare/setExpect needs a list of field names");
      this.expect = [...m.expect];
      this.setState({ kind: "compare", runDirs: this.runDirs, origin: this.origin, expect: this.expect });
      this.send();
    } else if (m.type === "compare/openPair") {
      const [a, b] = m.runs.map((i) => this.runDirs[i]);
      if (!a || !b) throw new Error(`no run at positions ${m.runs.join(", ")}`);
      const pair = await traceDecoder.pair([a, b], m.questionId, [
        this.names[m.runs[0]] ?? basename(a),
        this.names[m.runs[1]] ?? basename(b),
      ]);
      this.post({ type: "compare/pair", pair });
    } else if (m.type === "compare/openTrace") {
      const dir = this.runDirs[m.run];
      if (!dir) throw new Error(`no run at position ${m.run}`);
      await this.openTraceAt(dir, m.questionId);
    }
  }
}
