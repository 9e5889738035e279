/**
 * The recipe on the second environment, from the palette, in an empty folder: Run Offline Pipeline
 * with GSM8K picked (smoke size) runs `pipeline --env gsm8k` on the arithmetic world; its runs fill
 * the Runs view under the world's own environment with accuracy (never F1), its checkpoints the
 * Checkpoints view, and a GRPO eval's trace shows no search controls and no template drift.
 */
import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { GSM8K_WORLD_NAME } from "../../../src/core/envs/gsm8k/world-info";
import { RUN_NAMES } from "../../../src/core/steps/pipeline/plan";
import type { AgentLabApi } from "../../../src/extension/extension";
import { activeExports, answerUi, labelOf, probeUntil, treeRows, runSmokePipeline, waitFor } from "../helpers";

describe("the offline pipeline on GSM8K's world in an empty folder (real VS Code)", function () {
  this.timeout(300_000);
  let lab: AgentLabApi;
  before(async () => {
    lab = await activeExports<AgentLabApi>();
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("Run Offline Pipeline → gsm8k → smoke: runs labelled gsm8k-world with accuracy, checkpoints listed", async () => {
    assert.deepEqual(await treeRows(lab.runs), [], "an empty folder has no runs");
    const ui = answerUi({ quickPick: (items) => items.find((i) => i.label === "gsm8k" || i.label === "smoke") });
    try {
      await runSmokePipeline(lab, "gsm8k", () => ui.messages("error"));
    } finally {
      ui.restore();
    }
    const evals = [RUN_NAMES.base, RUN_NAMES.sftEval, RUN_NAMES.grpoEval];
    const rows = await waitFor(
      "the pipeline's evals in the Runs view",
      async () => {
        const all = await treeRows(lab.runs);
        const found = evals.map((n) => all.find((r) => labelOf(r.item) === n));
        return found.every(Boolean) ? found.map((r) => r!) : undefined;
      },
      15_000,
    );
    for (const row of rows) {
      const description = String(row.item.description);
      assert.match(description, new RegExp(`^${GSM8K_WORLD_NAME} · val · n=\\d+ · accuracy \\d\\.\\d{3}`), description);
      assert.doesNotMatch(description, /F1|EM/, description);
    }
    const checkpoints = (await treeRows(lab.checkpoints)).map((r) => labelOf(r.item));
    assert.ok(
      checkpoints.some((c) => c.startsWith(`${RUN_NAMES.sft}-e`)) &&
        checkpoints.some((c) => c.startsWith(RUN_NAMES.grpo)),
      `SFT and GRPO checkpoints (have ${checkpoints.join(", ")})`,
    );
    console.log(`      runs: ${rows.map((r) => `${labelOf(r.item)} ${String(r.item.description)}`).join(" | ")}`);
  });

  it("the GRPO eval's trace: no search controls, no template drift", async () => {
    const grpo = (await treeRows(lab.runs)).find((r) => labelOf(r.item) === RUN_NAMES.grpoEval);
    assert.ok(grpo, "the GRPO eval run");
    const episode = (await treeRows(lab.runs, (await treeRows(lab.runs, grpo.node))[0].node))[0];
    const cmd = episode.item.command!;
    await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
    const r = (
      await probeUntil(
        "trace",
        ["#run-drift", "#run-template-drift", "#searches-filter[hidden]", "#gold-filter-label[hidden]", "#annotations"],
        (x) => x[1].count > 0 && !/checked\)/.test(x[0].text) && x[4].count > 0,
        "the run's drift line, every episode checked, and the episode's annotations",
        60_000,
      )
    ).results;
    assert.match(r[0].text.trim(), /^template drift in 0 episodes · /);
    assert.deepEqual([r[2].count, r[3].count], [1, 1], "the searches and gold filters are hidden");
    assert.match(r[4].text, /extracted answer/);
    console.log(`      trace: ${r[0].text.trim()}`);
  });
});
