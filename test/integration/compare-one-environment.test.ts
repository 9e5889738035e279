/**
 * Compare stays within one environment, in the real VS Code on the fixture workspace (HotpotQA runs
 * `heuristic` and `closed-book`, the GSM8K run `gsm8k-val`): the second pick offers only runs of the
 * baseline's environment; Compare With… on a Runs-view selection of a HotpotQA and a GSM8K run is
 * one error message, in ablate's words, and the open Compare panel keeps what it showed (no panel
 * left on "Loading…").
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import { activeExports, answerUi, compareFromPalette, labelOf, probePanel, probeUntil, treeRows } from "./helpers";

describe("Compare within one environment (real VS Code)", function () {
  this.timeout(60_000);
  let lab: Lab;
  before(async () => {
    lab = await activeExports<Lab>();
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  const compareTabs = () =>
    vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label)).filter((t) => t.startsWith("Compare"));

  it("the second pick lists only the baseline's environment: a lone GSM8K run has none to pair with", async () => {
    const seconds: string[][] = [];
    const ui = answerUi({
      quickPick: (items, options) => {
        if (options?.canPickMany) {
          seconds.push(items.map((i) => i.label));
          return undefined;
        }
        return items.find((i) => i.label === (seconds.length === 0 ? "heuristic" : "gsm8k-val"));
      },
    });
    try {
      await vscode.commands.executeCommand("agentLab.compareRuns");
      assert.ok(seconds[0].includes("closed-book"), seconds[0].join(", "));
      assert.ok(!seconds[0].includes("gsm8k-val"), `no GSM8K run for a HotpotQA baseline: ${seconds[0].join(", ")}`);
      await vscode.commands.executeCommand("agentLab.compareRuns");
      assert.equal(seconds.length, 1, "no second pick for gsm8k-val");
      assert.deepEqual(ui.messages("info"), ["Agent Lab: no other gsm8k eval runs to compare gsm8k-val with."]);
      assert.deepEqual(compareTabs(), []);
    } finally {
      ui.restore();
    }
  });

  it("Compare With… on a HotpotQA and a GSM8K run selected together: one error, and the open panel keeps its comparison", async () => {
    await compareFromPalette("heuristic", "closed-book");
    await probeUntil("compare", ["#ablation-table tbody tr"], (x) => x[0].count === 2, "the HotpotQA comparison");
    const tabs = compareTabs();

    const rows = await treeRows(lab.runs);
    const node = (name: string) => rows.find((r) => labelOf(r.item) === name)!.node;
    const ui = answerUi({});
    try {
      await vscode.commands.executeCommand("agentLab.compareWith", node("heuristic"), [
        node("heuristic"),
        node("gsm8k-val"),
      ]);
      await new Promise((r) => setTimeout(r, 2500)); // past the webview's ask-again: a second error would show by now
      assert.deepEqual(
        ui.calls.map((c) => [c.kind, c.text]),
        [
          [
            "error",
            "Agent Lab: cannot pair heuristic (hotpotqa-world v1) with gsm8k-val (gsm8k v1): runs of different environments are not comparable",
          ],
        ],
      );
    } finally {
      ui.restore();
    }
    assert.deepEqual(compareTabs(), tabs, "no other Compare panel, the open one not retargeted");
    const r = await probePanel("compare", ["#ablation-table tbody tr", ".loading", "#errors .error"]);
    assert.equal(r.results[0].count, 2, "still the HotpotQA comparison");
    assert.equal(r.results[1].count, 0, "not on Loading…");
    assert.equal(r.results[2].count, 0, "no error in the panel: it was never asked");
  });
});
