/**
 * The compare panel: `ablate` over the chosen runs (the first is the baseline), rendered as the
 * ablation table, a forest plot of Δ and the per-question flips. Clicking a flip opens the two
 * runs' traces of that question side by side.
 */
import * as vscode from "vscode";
import { basename } from "node:path";
import { ablate, loadAblationInputs } from "../../core/analysis/ablate";
import { Panel } from "./panel-base";
import type { WebviewMessage } from "./protocol";

import { PANEL_RESAMPLES } from "./compare-panel-resamples";

export { PANEL_RESAMPLES };

export class ComparePanel extends Panel {
  constructor(
    panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    readonly runDirs: string[],
    private readonly openTraceAt: (runDir: string, episodeId: string, column: vscode.ViewColumn) => Promise<void>,
  ) {
    super(panel, context, { kind: "compare", runDirs }, `Compare · ${runDirs.map((d) => basename(d)).join(" vs ")}`);
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") {
      const report = ablate(loadAblationInputs(this.runDirs), { resamples: PANEL_RESAMPLES });
      this.post({ type: "compare/report", report });
    } else if (m.type === "compare/openPair") {
      const [a, b] = m.runs.map((i) => this.runDirs[i]);
      if (!a || !b) throw new Error(`no run at positions ${m.runs.join(", ")}`);
      await this.openTraceAt(a, m.questionId, vscode.ViewColumn.One);
      await this.openTraceAt(b, m.questionId, vscode.ViewColumn.Two);
    }
  }
}
