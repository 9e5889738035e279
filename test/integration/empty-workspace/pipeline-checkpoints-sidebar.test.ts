/**
 * After the offline pipeline in an empty folder (offline-pipeline.test.ts runs it first; its smoke
 * size saves sft-e1, grpo-s1 and grpo-s2, and evaluates sft-e1 and grpo-s2), the Checkpoints
 * sidebar in the real VS Code: it lists every checkpoint of the pipeline's training runs; Evaluate
 * missing (one confirmation) fills the missing val scores with their intervals as the evals finish
 * (timed); the best by val is marked; the Checkpoints tree's rows show the scores; two checkpoints
 * selected in the tree compare in the Compare panel on their fingerprint-matched evals.
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { AgentLabApi } from "../../../src/extension/extension";
import type { CheckpointNode } from "../../../src/extension/checkpoints/checkpoints-provider";
import { PROBE_VIEW_COMMAND, type ProbeResult } from "../../../src/extension/webview/protocol";
import type { ProbeAnswer } from "../../../src/extension/webview/panel-base";
import { activeExports, answerUi, probeUntil, treeRows, waitFor } from "../helpers";

/** "F1 0.512 [0.450, 0.570]": a score with its interval, as the sidebar and the tree write it. */
const SCORE = /F1 \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]/;

async function probeView(selectors: string[], click?: string): Promise<ProbeResult[]> {
  return (await vscode.commands.executeCommand<ProbeAnswer>(PROBE_VIEW_COMMAND, selectors, click)).results;
}

/** Probes the sidebar until `ok` holds; the last answer goes into the failure. */
async function viewUntil(selectors: string[], ok: (r: ProbeResult[]) => boolean, what: string, timeoutMs = 30_000) {
  let last: ProbeResult[] | undefined;
  try {
    return await waitFor(
      what,
      async () => {
        try {
          last = await probeView(selectors);
          return ok(last) ? last : undefined;
        } catch {
          return undefined; // the view is not resolved or not ready yet
        }
      },
      timeoutMs,
      200,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last probe: ${JSON.stringify(last).slice(0, 1200)}`);
  }
}

describe("the Checkpoints sidebar after the offline pipeline (real VS Code)", function () {
  this.timeout(600_000);
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("Checkpoints sidebar: lists the pipeline's checkpoints, Evaluate missing fills their val F1 with CIs, the best is marked, two selected compare", async () => {
    const lab = await activeExports<AgentLabApi>();
    const registered = (await treeRows(lab.checkpoints)).map((r) => String(r.item.label));
    assert.ok(registered.length >= 3, `the pipeline's checkpoints: ${registered.join(", ")}`);
    await vscode.commands.executeCommand("agentLab.checkpointsCompare.focus");
    const listed = await viewUntil(
      ["#rows .ckpt-row .name"],
      (r) => r[0].count === registered.length,
      "the sidebar lists every checkpoint",
    );
    assert.deepEqual(
      listed[0].text
        .split("\n")
        .map((n) => n.replace(/^★ /, ""))
        .sort(),
      [...registered].sort(),
    );
    const missing = lab.checkpointsSidebar.last!.missing.map((m) => m.name);
    assert.ok(missing.length > 0, "the smoke pipeline leaves checkpoints without a val eval");

    // Evaluate missing: one confirmation naming them all, then the rows fill as the evals finish.
    const ui = answerUi({ warning: (_m, buttons) => (buttons.includes("Start") ? "Start" : undefined) });
    const started = Date.now();
    try {
      await probeView(["#evaluate-missing"], "#evaluate-missing");
      await waitFor(
        "every checkpoint scored",
        () => lab.checkpointsSidebar.last?.rows.every((r) => r.primary) || undefined,
        540_000,
        1000,
      );
    } finally {
      ui.restore();
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `      Evaluate missing: ${missing.length} checkpoints (${missing.join(", ")}) in ${seconds.toFixed(1)} s`,
    );
    const confirms = ui.calls.filter((c) => c.kind === "warning");
    assert.equal(confirms.length, 1, "one confirmation for all");
    for (const name of missing) assert.ok(confirms[0].text.includes(name), confirms[0].text);

    const rows = await viewUntil(
      ["#rows .ckpt-row .score", "#rows .ckpt-row.best .name", "#best-note", "#holm-note"],
      (r) => r[0].count === registered.length && r[0].text.split("\n").every((t) => SCORE.test(t)) && r[1].count === 1,
      "every row shows its val F1 with its interval, one marked best",
    );
    const best = lab.checkpointsSidebar.last!.best!;
    assert.equal(rows[1].text, `★ ${best.best}`);
    assert.ok(rows[2].text.includes(best.note), rows[2].text);
    console.log(`      ${rows[0].text.split("\n").join(" | ")}; best: ${rows[2].text}`);

    // The tree's rows show the same scores: each eval's end refreshes them (a CI run once found the
    // last row unscored when only the runs folder's file events did), read until all show one.
    let unscored: string[] = [];
    const tree = await waitFor(
      "every row of the Checkpoints tree shows its val F1",
      async () => {
        await lab.checkpoints.whenScored();
        const rows = await treeRows(lab.checkpoints);
        unscored = rows
          .filter((t) => (t.node as CheckpointNode).type === "checkpoint")
          .filter((r) => !SCORE.test(String(r.item.description)))
          .map((r) => `${String(r.item.label)}: ${String(r.item.description)}`);
        return unscored.length === 0 ? rows : undefined;
      },
      10_000,
      250,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; unscored: ${unscored.join(" | ")}`);
    });

    // Two checkpoints selected in the tree compare on their matched evals.
    const two = tree.filter((t) => (t.node as CheckpointNode).type === "checkpoint").slice(0, 2);
    await vscode.commands.executeCommand(
      "agentLab.compareSelectedCheckpoints",
      two[0].node,
      two.map((t) => t.node),
    );
    const compared = await probeUntil(
      "compare",
      ["#ablation-table tbody tr"],
      (r) => r[0].count === 2,
      "the Compare panel on the two checkpoints' evals",
    );
    const names = two.map((t) => String(t.item.label));
    const evals = names.map((n) => lab.checkpointsSidebar.last!.rows.find((r) => r.name === n)!.evalRun!);
    for (const e of evals) assert.ok(compared.results[0].text.includes(e), `${e} in ${compared.results[0].text}`);
    assert.deepEqual([...lab.checkpointsSidebar.selectedCheckpoints], names, "the sidebar ticks them");
  });
});
