/**
 * After the offline pipeline in an empty folder (offline-pipeline.test.ts runs it first), the
 * researcher's path through its results in the real VS Code: Compare of its four evals cuts nothing
 * in the webview a 1,280 px window leaves with the sidebar open, and lists the last pair's flips
 * first; sft-final vs grpo-final picked by hand compares checkpoints without warning about them;
 * the dashboard's val intervals are Compare's to the digit; the pipeline's own prompt is not linted.
 */
import * as assert from "node:assert/strict";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { RUN_NAMES } from "../../../src/core/steps/pipeline/plan";
import { OFFLINE_PROMPT } from "../../../src/core/steps/pipeline/pipeline-folder";
import { answerUi, compareFromPalette, probeUntil, waitFor, workspaceDir } from "../helpers";

/** The webview's width in a 1,280 px window with the sidebar open (activity bar 48 px, sidebar about 300 px). */
const SIDEBAR_OPEN_WEBVIEW_PX = 930;

const EVALS = [RUN_NAMES.base, RUN_NAMES.closedBook, RUN_NAMES.sftEval, RUN_NAMES.grpoEval];

/** Compare Runs… with `baseline` first and every other in `others` ticked in the second picker. */
async function compareMany(baseline: string, others: string[]): Promise<void> {
  const ui = answerUi({
    quickPick: (items, options) =>
      // In the order given (the pipeline's: closed-book, SFT, GRPO), not the picker's newest-first.
      options?.canPickMany
        ? others.map((o) => items.find((i) => i.label === o)!)
        : items.find((i) => i.label === baseline),
  });
  try {
    await vscode.commands.executeCommand("agentLab.compareRuns");
  } finally {
    ui.restore();
  }
}

const CI = /\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]/g;

describe("after the offline pipeline: Compare, the dashboard and the prompt (real VS Code)", function () {
  this.timeout(120_000);
  afterEach(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await vscode.commands.executeCommand("vscode.setEditorLayout", { orientation: 0, groups: [{}] });
  });

  it("Compare of the four evals at 1,280 px with the sidebar open: nothing cut; the flips start at the last pair", async () => {
    await vscode.commands.executeCommand("workbench.view.explorer"); // the sidebar open
    await compareMany(RUN_NAMES.base, EVALS.slice(1));
    const whole = await probeUntil("compare", ["#ablation-table tbody tr"], (x) => x[0].count === 4, "the table");
    const editorPx = whole.results[0].viewPx!;
    // The editor area narrowed to what a 1,280 px window leaves: Compare in the right of two groups.
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await vscode.commands.executeCommand("vscode.setEditorLayout", {
      orientation: 0,
      groups: [{ size: Math.max(1, editorPx - SIDEBAR_OPEN_WEBVIEW_PX) }, { size: SIDEBAR_OPEN_WEBVIEW_PX }],
    });
    await vscode.commands.executeCommand("workbench.action.focusSecondEditorGroup");
    await compareMany(RUN_NAMES.base, EVALS.slice(1));
    const sel = [
      ".table-scroll",
      "#ablation-table th, #ablation-table td",
      "#comparison-picker option",
      "#comparison-picker option[selected]",
    ];
    const r = (await probeUntil("compare", sel, (x) => x[2].count === 3, "the narrowed table")).results;
    const view = r[0].viewPx!;
    console.log(`      Compare in a ${view} px webview (the editor was ${editorPx} px)`);
    // An editor group has a minimum width, so the split may leave Compare narrower: a stricter test.
    assert.ok(view <= SIDEBAR_OPEN_WEBVIEW_PX + 10, `the webview is ${view} px`);
    assert.equal(r[0].overflowPx, 0, "the table does not scroll sideways");
    assert.equal(r[1].overflowPx, 0, "no cell is cut");
    const options = r[2].text.split("\n");
    assert.equal(r[3].text, options[options.length - 1], "the last pair's flips first");
    assert.match(r[3].text, new RegExp(`^${RUN_NAMES.grpoEval} vs ${RUN_NAMES.base}$`));
  });

  it("sft-final vs grpo-final picked by hand: compared as checkpoints, no warning about the checkpoint", async () => {
    await compareFromPalette(RUN_NAMES.sftEval, RUN_NAMES.grpoEval);
    const r = (
      await probeUntil(
        "compare",
        ["#ablation-table tbody tr", "#warnings", "#expected", "#expected .expect-field[checked]"],
        (x) => x[0].count === 2,
        "the two checkpoints' table",
      )
    ).results;
    assert.doesNotMatch(r[1].text, /policy\.checkpoint/);
    assert.match(r[2].text, /Opened to compare checkpoints/);
    assert.equal(r[3].count, 1);
  });

  it("the dashboard's val intervals are Compare's to the digit (one bootstrap)", async () => {
    await compareMany(RUN_NAMES.base, EVALS.slice(1));
    const table = (
      await probeUntil("compare", ["#ablation-table tbody tr"], (x) => x[0].count === 4, "the table")
    ).results[0].text.split("\n");
    await vscode.commands.executeCommand("agentLab.openDashboard", join(workspaceDir(), "runs", RUN_NAMES.grpo));
    const d = (
      await probeUntil(
        "dashboard",
        ["#checkpoints tr[data-checkpoint]", "#references"],
        (x) => x[0].count > 0,
        "the dashboard's checkpoints",
      )
    ).results;
    // Each interval the dashboard shows, with the eval run it names; Compare's row of that run shows the same.
    const shown: [string, string][] = [];
    for (const row of d[0].text.split("\n")) {
      const run = EVALS.find((n) => row.endsWith(n));
      const ci = row.match(CI)?.[0];
      if (run && ci) shown.push([run, ci]);
    }
    for (const part of d[1].text.split(" · ")) {
      const m = new RegExp(`(${CI.source}) from (\\S+)`).exec(part);
      if (m && EVALS.includes(m[2] as (typeof EVALS)[number])) shown.push([m[2], m[1]]);
    }
    assert.ok(shown.length > 0, `an interval of one of Compare's runs on the dashboard: ${d[0].text} | ${d[1].text}`);
    for (const [run, ci] of shown) {
      const row = table.find((t) => t.startsWith(run));
      assert.ok(row?.includes(ci), `${run}: dashboard ${ci}, Compare ${row}`);
    }
    console.log(`      dashboard = Compare: ${shown.map(([r, c]) => `${r} ${c}`).join(" · ")}`);
  });

  it("the pipeline's own prompt gets no warnings; the same text elsewhere does", async () => {
    const own = vscode.Uri.file(join(workspaceDir(), OFFLINE_PROMPT));
    const copy = vscode.Uri.file(join(workspaceDir(), "prompts", "copy.md"));
    copyFileSync(own.fsPath, copy.fsPath);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(copy));
    await waitFor("diagnostics on the copy", () => vscode.languages.getDiagnostics(copy).length > 0, 90_000, 250);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(own));
    // The server answers the lens once it has the document: by then a diagnostic would have been published.
    await waitFor(
      "the prompt's code lens",
      async () =>
        ((await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", own)) ?? [])
          .length > 0,
      30_000,
      250,
    );
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(
      vscode.languages.getDiagnostics(own).map((x) => x.message),
      [],
    );
  });
});
