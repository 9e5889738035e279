/**
 * A GSM8K run in the real VS Code: the fixture workspace holds a GSM8K eval run made by the eval
 * step on the GSM8K fixture twin (scripts/vscode/gsm8k-fixture.ts). The Runs tree shows it with its
 * environment and accuracy; its trace opens from the tree and shows the grader's extracted answer
 * with the graded box marked, and no search or gold-in-results controls; Evaluate… asks for the
 * environment first, listing every registered one.
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import { ENVIRONMENT_NAMES } from "../../src/core/envs/catalog";
import { HOTPOTQA_WORLD_NAME } from "../../src/core/envs/hotpotqa/world-info";
import { activeExports, answerUi, labelOf, probeUntil, treeRows, waitFor, workspaceDir } from "./helpers";

const RUN = "gsm8k-val";

interface Gsm8kLine {
  id: string;
  extracted: string | null;
  correct: boolean;
}

describe("a GSM8K run (real VS Code)", function () {
  this.timeout(60_000);
  let lab: Lab;
  before(async () => {
    lab = await activeExports<Lab>();
  });
  afterEach(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("the Runs tree shows it with its environment and accuracy (no F1/EM)", async () => {
    const summary = JSON.parse(readFileSync(join(workspaceDir(), "runs", RUN, "summary.json"), "utf8")) as {
      n: number;
      metrics: { correct: number };
    };
    const row = await waitFor(
      "the GSM8K run in the Runs view",
      async () => (await treeRows(lab.runs)).find((r) => labelOf(r.item) === RUN),
      10_000,
    );
    assert.equal(
      String(row.item.description),
      `gsm8k · val · n=${summary.n} · accuracy ${summary.metrics.correct.toFixed(3)} · $0/q`,
    );
  });

  it("its trace opens from the tree and shows the extracted answer, the box marked", async () => {
    const run = (await treeRows(lab.runs)).find((r) => labelOf(r.item) === RUN);
    assert.ok(run);
    const groups = await treeRows(lab.runs, run.node);
    const correct = groups.find((g) => /correct/i.test(labelOf(g.item)));
    assert.ok(correct, `a correct group (have ${groups.map((g) => labelOf(g.item)).join(", ")})`);
    const episode = (await treeRows(lab.runs, correct.node))[0];
    const cmd = episode.item.command!;
    await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
    const lines = readFileSync(join(workspaceDir(), "runs", RUN, "episodes.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Gsm8kLine);
    const id = (cmd.arguments?.[0] as { episode?: { id: string } } | undefined)?.episode?.id;
    const e = lines.find((x) => x.id === id) ?? lines.find((x) => x.correct)!;
    assert.ok(e.extracted, "a correct episode has a box");
    const r = (
      await probeUntil(
        "trace",
        ["#annotations", "#stream .tok.annot"],
        (x) => x[0].count > 0 && x[1].count > 0,
        "the extracted answer and the marked box",
      )
    ).results;
    assert.ok(r[0].text.includes(`extracted answer ${e.extracted}`), r[0].text);
    assert.match(r[0].text, /correct yes/);
    // GSM8K has no search tool: no searches or gold-in-results controls, its metric named accuracy.
    const c = (
      await probeUntil(
        "trace",
        [
          "#searches-filter[hidden]",
          "#gold-filter-label[hidden]",
          "#gold-counts[hidden]",
          "#episode-list .row",
          "#episode-list .row .searches, #episode-list .row .gold",
          "#primary-filter-name",
          ".badges .badge",
        ],
        (x) => x[3].count > 0,
        "the episode list",
      )
    ).results;
    assert.deepEqual(
      c.slice(0, 3).map((x) => x.count),
      [1, 1, 1],
      "the searches and gold filters and the gold table are hidden",
    );
    assert.equal(c[4].count, 0, "no search or gold marks in the list's rows");
    assert.equal(c[5].text.trim(), "accuracy");
    assert.doesNotMatch(c[6].text, /searches|gold|^F1 |^EM /m);
    console.log(`      trace: extracted ${e.extracted}, ${r[1].count} box token(s) marked`);
  });

  it("Evaluate… asks for the environment first, every registered one, the workspace's default first", async () => {
    const ui = answerUi({ quickPick: () => undefined }); // cancel at the first pick
    try {
      await vscode.commands.executeCommand("agentLab.evaluate");
      const first = ui.calls.find((c) => c.kind === "quickPick");
      assert.ok(first, "a quick pick was shown");
      const labels = first.text.split(" | ")[1].split(" / ");
      // The fixture is the demo's folder: its agent-lab.json names the demo's offline world, listed first beside every registered environment.
      const config = JSON.parse(readFileSync(join(workspaceDir(), "agent-lab.json"), "utf8")) as { env?: string };
      assert.equal(config.env, HOTPOTQA_WORLD_NAME);
      assert.deepEqual([...labels].sort(), [...ENVIRONMENT_NAMES, HOTPOTQA_WORLD_NAME].sort());
      assert.equal(labels[0], HOTPOTQA_WORLD_NAME, "the workspace's default first");
      assert.equal(lab.jobs.list().filter((j) => j.record.run_dir?.includes(RUN)).length, 0);
    } finally {
      ui.restore();
    }
  });
});
