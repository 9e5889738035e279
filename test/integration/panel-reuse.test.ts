/**
 * A second open reuses the open panel: opening another run in the trace viewer, Compare on other
 * runs, or the dashboard on another training run posts the new data into the same webview (one
 * webview tab of that kind, its script started once: the same `scriptAt`), the new content is
 * shown, and nothing of the page's "Loading…" is left.
 */
import * as assert from "node:assert/strict";
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import { PANEL_VIEW_TYPES } from "../../src/extension/webview/protocol";
import { activeExports, compareFromPalette, probeUntil, workspaceDir } from "./helpers";

const runDir = (name: string) => join(workspaceDir(), "runs", name);

/** The open webview tabs of one panel kind (VS Code prefixes the view type it was registered with). */
function webviewTabs(viewType: string): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(viewType));
}

function firstLine(run: string, n = 0): { id: string; question: string } {
  const line = readFileSync(join(runDir(run), "episodes.jsonl"), "utf8").split("\n")[n];
  const e = JSON.parse(line) as { id: string; question: string };
  return { id: e.id, question: e.question };
}

describe("panels are reused on a second open (real VS Code)", function () {
  this.timeout(120_000);
  before(async () => {
    await activeExports<Lab>();
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });
  afterEach(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("trace: another run opens in the same webview, showing that run's episode", async () => {
    const a = firstLine("heuristic");
    const b = firstLine("closed-book", 3);
    await vscode.commands.executeCommand("agentLab.openTraceAt", runDir("heuristic"), a.id);
    const first = await probeUntil(
      "trace",
      ["#question", ".run-name", "#stream .tok"],
      (r) => r[0].text === a.question && r[1].text === "heuristic" && r[2].count > 0,
      "the first run's list and episode",
    );

    await vscode.commands.executeCommand("agentLab.openTraceAt", runDir("closed-book"), b.id);
    const sel = [
      "#question",
      ".run-name",
      "#stream .tok",
      "#app .loading",
      "#episode-list .row.current",
      "#text-search",
    ];
    const second = await probeUntil(
      "trace",
      sel,
      (r) => r[0].text === b.question && r[1].text === "closed-book" && r[2].count > 0 && r[4].count === 1,
      "the second run's episode in the same panel",
    );
    assert.equal(second.results[3].count, 0, "no Loading… left");
    assert.equal(
      second.results[4].text.trim().endsWith(b.question),
      true,
      "the second run's episode is the current row",
    );
    assert.equal(webviewTabs(PANEL_VIEW_TYPES.trace).length, 1, "one trace webview");
    assert.equal(second.timings.scriptAt, first.timings.scriptAt, "the webview's script did not start again");
    assert.ok(Number.isFinite(second.timings.retargetAt), "the page was told it shows another run");

    // The first run again, another episode: still the same page.
    const c = firstLine("heuristic", 1);
    await vscode.commands.executeCommand("agentLab.openTraceAt", runDir("heuristic"), c.id);
    const third = await probeUntil(
      "trace",
      ["#question", ".run-name"],
      (r) => r[0].text === c.question && r[1].text === "heuristic",
      "the first run again",
    );
    assert.equal(third.timings.scriptAt, first.timings.scriptAt);
    assert.equal(webviewTabs(PANEL_VIEW_TYPES.trace).length, 1);
  });

  it("compare: other runs are compared in the same webview", async () => {
    await compareFromPalette("heuristic", "closed-book");
    const sel = ["h2", "#ablation-table tbody tr", "#app .loading", "#errors"];
    const first = await probeUntil("compare", sel, (r) => r[1].count === 2, "the first comparison");
    assert.match(first.results[1].text, /^\s*heuristic/, "heuristic is the baseline");
    await compareFromPalette("closed-book", "heuristic");
    const second = await probeUntil(
      "compare",
      sel,
      (r) => r[1].count === 2 && /^\s*closed-book/.test(r[1].text),
      "the second comparison (other baseline)",
    );
    assert.equal(second.results[2].count, 0, "no Loading… left");
    assert.equal(webviewTabs(PANEL_VIEW_TYPES.compare).length, 1, "one compare webview");
    assert.equal(second.timings.scriptAt, first.timings.scriptAt, "the webview's script did not start again");
  });

  it("dashboard: another training run is shown in the same webview", async () => {
    const copy = runDir("it-reuse-training");
    rmSync(copy, { recursive: true, force: true });
    cpSync(runDir("sft-it"), copy, { recursive: true });
    try {
      await vscode.commands.executeCommand("agentLab.openDashboard", runDir("sft-it"));
      const sel = ["h2", "#metrics .metric", "#app .loading", "#errors"]; // #errors: in the failure message
      const first = await probeUntil(
        "dashboard",
        sel,
        (r) => r[0].text === "Training · sft-it" && r[1].count > 0,
        "the first run's charts",
      );
      await vscode.commands.executeCommand("agentLab.openDashboard", copy);
      const second = await probeUntil(
        "dashboard",
        sel,
        (r) => r[0].text === "Training · it-reuse-training" && r[1].count > 0,
        "the second run's charts in the same panel",
      );
      assert.equal(second.results[2].count, 0, "no Loading… left");
      assert.equal(webviewTabs(PANEL_VIEW_TYPES.dashboard).length, 1, "one dashboard webview");
      assert.equal(second.timings.scriptAt, first.timings.scriptAt, "the webview's script did not start again");
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
