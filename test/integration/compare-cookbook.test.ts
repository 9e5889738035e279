/**
 * Compare and tinker-cookbook runs in the real VS Code, driven through the live extension's probe
 * command (it reads a webview's DOM, and can click an element first):
 * - a flip's pair view (both episodes in the Compare panel, turn by turn) loads every time, five
 *   opens in a row, and the full trace it opens comes up (not stuck on "Loading…") each time;
 * - the "expected to differ" control: ticking a differing field recomputes the comparison and its
 *   warning goes away; the panel prints ablate's resample count;
 * - a tinker-cookbook log folder written in the workspace shows in the Runs tree as a training run
 *   and in the dashboard with its metrics labelled, and its checkpoints in the Checkpoints view;
 * - a cookbook math folder (config.json as the cookbook's math_rl writes it) keeps its environment:
 *   Evaluate on its checkpoint starts the GSM8K eval (`--env gsm8k`), without asking, in a workspace
 *   whose default is HotpotQA, and its dashboard names the val metric "accuracy".
 */
import * as assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import { cookbookMathConfig, writeCookbookRun } from "../helpers/cookbook-fixture";
import {
  activeExports,
  answerUi,
  compareFromPalette,
  labelOf,
  probePanel,
  probeUntil as probeAnswer,
  treeRows,
  waitFor,
  workspaceDir,
} from "./helpers";

const probe = async (...a: Parameters<typeof probePanel>) => (await probePanel(...a)).results;
const probeUntil = async (...a: Parameters<typeof probeAnswer>) => (await probeAnswer(...a)).results;

function webviewTabs(viewType: string): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.includes(viewType));
}

describe("Compare pair view, expected differences, tinker-cookbook runs (real VS Code)", function () {
  this.timeout(120_000);
  let lab: Lab;
  before(async () => {
    lab = await activeExports<Lab>();
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  async function openCompare(): Promise<void> {
    await compareFromPalette("heuristic", "closed-book");
    await probeUntil("compare", ["#ablation-table tbody tr"], (x) => x[0].count === 2, "the compare table");
  }

  it("the pair view and the trace it opens load every time (5 opens)", async () => {
    await openCompare();
    const flips = await probe("compare", ["#improved li", "#regressed li"]);
    const list = flips[0].count > 0 ? "#improved" : "#regressed";
    assert.ok(flips[0].count + flips[1].count > 0, "the fixture runs have flips");
    for (let i = 0; i < 5; i++) {
      const li = `${list} li:nth-child(${(i % Math.max(1, Math.max(flips[0].count, flips[1].count))) + 1})`;
      await probe("compare", ["#pair"], "#pair-close");
      await probe("compare", ["#pair"], li);
      const r = await probeUntil(
        "compare",
        ["#pair-grid .turn-label", "#pair-grid .pair-head", "#pair .gold"],
        (x) => x[0].count > 1 && x[1].count === 2,
        `pair view, open ${i + 1}`,
      );
      assert.match(r[2].text, /^gold: /);
      // The full trace from the pair view: a fresh panel each time, and it must come up.
      for (const tab of webviewTabs("agentLab.trace")) await vscode.window.tabGroups.close(tab);
      await probe("compare", ["#pair"], `#pair .open-trace[data-run="${i % 2 === 0 ? 1 : 0}"]`);
      await probeUntil(
        "trace",
        ["#stream .tok", "#question"],
        (x) => x[0].count > 0 && x[1].text.length > 0,
        `the full trace, open ${i + 1}`,
      );
    }
    for (const tab of webviewTabs("agentLab.trace")) await vscode.window.tabGroups.close(tab);
    console.log("      pair view: 5 of 5 opens loaded, and 5 of 5 full traces");
  });

  it("the expected-differences control recomputes without the warning, with ablate's resamples", async () => {
    await openCompare();
    const [fields, warnings, method] = await probe("compare", ["#expected .expect-field", "#warnings", "#method"]);
    assert.ok(fields.count > 0, "the fixture runs differ in their search settings");
    assert.match(method.text, /10,000 resamples, seed 0/);
    assert.match(warnings.text, /search\.closed_book/);
    assert.match(warnings.text, /tick it under “Expected to differ”/);
    await probe("compare", ["#expected"], '#expected .expect-field[value="search.closed_book"]');
    await probeUntil(
      "compare",
      ["#warnings"],
      (x) => !/search\.closed_book/.test(x[0].text),
      "the warning about search.closed_book to go",
    );
    const tabs = webviewTabs("agentLab.compare");
    assert.equal(tabs.length, 1, "recomputed in place, no second panel");
  });

  it("shows a tinker-cookbook log folder in the Runs tree, the dashboard and the Checkpoints view", async () => {
    const dir = join(workspaceDir(), "experiments", "it-cookbook", "logs");
    rmSync(join(workspaceDir(), "experiments"), { recursive: true, force: true });
    const run = writeCookbookRun(dir, { steps: 5, saveEvery: 2 });
    try {
      await vscode.commands.executeCommand("agentLab.refresh");
      const row = await waitFor("the Runs tree to list the cookbook run", async () =>
        (await treeRows(lab.runs)).find((r) => labelOf(r.item) === "it-cookbook/logs"),
      );
      assert.equal(row.item.description, `cookbook rl · step 4 · reward ${run.rewards[4].toFixed(3)} · 3 checkpoints`);
      assert.equal(row.item.contextValue, "run.training.cookbook");
      const transcripts = await treeRows(lab.runs, row.node);
      assert.equal(transcripts.length, 5, "one logtree file per iteration");
      const ckpts = (await treeRows(lab.checkpoints)).map((c) => labelOf(c.item));
      assert.ok(ckpts.includes("it-cookbook-logs-final"), ckpts.join(", "));

      const cmd = row.item.command!;
      await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
      const r = await probeUntil(
        "dashboard",
        [
          '#metrics .metric[data-key="env/all/reward/total"] .metric-name',
          '#metrics .metric[data-key="env/all/reward/total"]',
          "#health",
          "#checkpoints tr[data-checkpoint]",
        ],
        (x) => x[0].count === 1 && x[2].count === 1,
        "the cookbook run's dashboard",
      );
      assert.equal(r[0].text, "reward (mean total per episode)");
      assert.equal(r[3].count, 3);
      console.log(`      cookbook: Runs "${row.item.description}", dashboard with ${r[3].count} checkpoints`);
    } finally {
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
      rmSync(join(workspaceDir(), "experiments"), { recursive: true, force: true });
      await vscode.commands.executeCommand("agentLab.refresh");
    }
  });

  it("a cookbook math folder's checkpoint evaluates on GSM8K, and its dashboard names accuracy", async () => {
    const dir = join(workspaceDir(), "experiments", "it-cookbook-math", "logs");
    rmSync(join(workspaceDir(), "experiments"), { recursive: true, force: true });
    writeCookbookRun(dir, { steps: 3, saveEvery: 3, config: cookbookMathConfig("gsm8k"), tags: ["math"] });
    const ui = answerUi({ quickPick: () => undefined, inputBox: (o) => o.value });
    try {
      await vscode.commands.executeCommand("agentLab.refresh");
      const ckpt = await waitFor("the math folder's checkpoint in the Checkpoints view", async () =>
        (await treeRows(lab.checkpoints)).find((c) => labelOf(c.item) === "it-cookbook-math-logs-final"),
      );
      await vscode.commands.executeCommand("agentLab.evaluateCheckpoint", ckpt.node);
      assert.deepEqual(ui.messages("quickPick"), [], "no environment picker: the folder names GSM8K");
      assert.deepEqual(ui.messages("error"), []);
      const job = await waitFor("the eval job", () =>
        lab.jobs.list().find((j) => j.record.command.includes("tinker://run-cb/sampler_weights/final")),
      );
      const argv = job.record.command;
      assert.equal(argv[0], "eval");
      assert.equal(argv[argv.indexOf("--env") + 1], "gsm8k", argv.join(" "));
      assert.equal(argv[argv.indexOf("--split") + 1], "val");
      assert.match(job.record.title ?? "", /^Evaluate \S+ \(gsm8k val\)$/);
      await vscode.commands.executeCommand("agentLab.cancelJob", job);
      await Promise.race([job.finished, new Promise((resolve) => setTimeout(resolve, 20_000))]);

      // Its dashboard: the val metric is the run's environment's, not "F1".
      const row = await waitFor("the math folder in the Runs tree", async () =>
        (await treeRows(lab.runs)).find((r) => labelOf(r.item) === "it-cookbook-math/logs"),
      );
      const cmd = row.item.command!;
      await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
      const r = await probeUntil("dashboard", ["#val-metric-head"], (x) => x[0].count === 1, "the checkpoint table");
      assert.equal(r[0].text, "val accuracy [95% CI]");
      console.log(`      cookbook math: Evaluate started "${argv.join(" ")}"`);
    } finally {
      ui.restore();
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
      rmSync(join(workspaceDir(), "experiments"), { recursive: true, force: true });
      await vscode.commands.executeCommand("agentLab.refresh");
    }
  });
});
