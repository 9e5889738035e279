/**
 * The compare panel: `ablate` over the chosen runs (the first is the baseline) with the CLI's
 * settings — the same resamples and seed, so the panel prints the CLI's digits — rendered as the
 * ablation table, a forest plot of Δ and the per-question flips. The fields expected to differ
 * start from how the comparison was opened and change from the panel's control; a flip opens both
 * episodes aligned turn by turn in this panel.
 */
import * as vscode from "vscode";
import { basename } from "node:path";
import { loadAblationInputs, type AblationInput } from "../../core/analysis/ablate";
import { compareView, promptSearchDirs, type CompareOrigin } from "../../core/analysis/compare-setup";
import { Panel } from "./panel-base";
import type { WebviewMessage } from "./protocol";

const compareTitle = (runDirs: string[]) => `Compare · ${runDirs.map((d) => basename(d)).join(" vs ")}`;

export class ComparePanel extends Panel {
  private inputs: AblationInput[] | undefined;
  private names: string[] = [];

  constructor(
    panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    private runDirs: string[],
    private origin: CompareOrigin,
    private expect: string[] | undefined,
    private readonly openTraceAt: (runDir: string, episodeId: string) => Promise<void>,
  ) {
    // Computed on "ready", not at once (postFirstSoon): ablate holds the host for seconds at 10,000
    // episodes, and holding it right after creating the webview delayed the webview's start.
    super(panel, context, { kind: "compare", runDirs, origin, ...(expect ? { expect } : {}) }, compareTitle(runDirs));
  }

  /** Compares other runs in this panel (the open webview is reused); the same runs: nothing to do. */
  show(runDirs: string[], origin: CompareOrigin): void {
    if (origin === this.origin && runDirs.length === this.runDirs.length && runDirs.every((d, i) => d === this.runDirs[i])) return;
    this.runDirs = [...runDirs];
    this.origin = origin;
    this.expect = undefined;
    this.inputs = undefined;
    this.names = [];
    this.retarget({ kind: "compare", runDirs: this.runDirs, origin }, compareTitle(this.runDirs));
    this.postFirst(() => this.send(), true);
  }

  private send(): void {
    this.inputs ??= loadAblationInputs(this.runDirs);
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const { report, setup } = compareView(this.inputs, this.origin, this.expect, promptSearchDirs(this.runDirs, workspace));
    this.names = report.runs.map((r) => r.name);
    this.post({ type: "compare/report", report, setup });
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") this.postFirst(() => this.send());
    else if (m.type === "compare/setExpect") {
      if (!Array.isArray(m.expect) || !m.expect.every((f) => typeof f === "string")) throw new Error("compare/setExpect needs a list of field names");
      this.expect = [...m.expect];
      this.setState({ kind: "compare", runDirs: this.runDirs, origin: this.origin, expect: this.expect });
      this.send();
    } else if (m.type === "compare/openPair") {
      const [a, b] = m.runs.map((i) => this.runDirs[i]);
      if (!a || !b) throw new Error(`no run at positions ${m.runs.join(", ")}`);
      // Loaded when first asked: it brings the tokenizer, which activation must not load.
      const { loadPair } = await import("../../core/trace/load-pair");
      const pair = await loadPair([a, b], m.questionId, [this.names[m.runs[0]] ?? basename(a), this.names[m.runs[1]] ?? basename(b)]);
      this.post({ type: "compare/pair", pair });
    } else if (m.type === "compare/openTrace") {
      const dir = this.runDirs[m.run];
      if (!dir) throw new Error(`no run at position ${m.run}`);
      await this.openTraceAt(dir, m.questionId);
    }
  }
}
