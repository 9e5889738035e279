/**
 * After the offline pipeline in an empty folder (offline-pipeline.test.ts runs it first): Chat with
 * Checkpoint on its first SFT checkpoint opens the Chat with Model panel on the local backend (the
 * environment's tools shown) and runs the first val question turn by turn until the environment
 * ends it, each turn drawn as the trace viewer draws it with its cost; Save as episode writes a run
 * that appears in the Runs view.
 */
import * as assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentLabApi } from "../../../src/extension/extension";
import { activeExports, labelOf, probePanel, probeUntil, treeRows, waitFor } from "../helpers";

describe("Chat with Checkpoint after the offline pipeline (real VS Code)", function () {
  this.timeout(300_000);
  let lab: AgentLabApi;
  before(async () => {
    lab = await activeExports<AgentLabApi>();
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("runs a val question turn by turn on a local checkpoint and saves the episode; the saved run appears in the Runs view", async () => {
    const rows = await treeRows(lab.checkpoints);
    const checkpoint = rows.find((r) => /-e\d+$/.test(labelOf(r.item)));
    assert.ok(checkpoint, `an SFT checkpoint (saw ${rows.map((r) => labelOf(r.item)).join(", ")})`);
    await vscode.commands.executeCommand("agentLab.chatWithCheckpoint", checkpoint.node);
    const ready = await probeUntil(
      "playground",
      ["#status", "#item option", "#tools", "#playground-error"],
      (r) => (r[1].count > 0 && !r[0].text.startsWith("Starting")) || r[3].text !== "",
      "the model's description and the val questions",
      120_000,
    );
    assert.equal(ready.results[3].text, "", "no error");
    assert.match(ready.results[0].text, /local-backend/);
    assert.match(ready.results[2].text, /^Tools: /);
    await probePanel("playground", ["#ask-item"], "#ask-item");
    await probeUntil("playground", ["#status"], (r) => /turn\(s\) so far/.test(r[0].text), "the episode started");
    // Turns until the environment ends the episode. The smoke pipeline's checkpoints never search
    // (they write to the token limit), so here that is one turn; two turns with a tool call between
    // them are the unit tests' (scripted model) and `agent-lab playground`'s CLI test.
    let turns = 0;
    let ended = false;
    while (!ended) {
      assert.ok(turns < 4, "the environment ends the episode within its search budget");
      await probePanel("playground", ["#next-turn"], "#next-turn");
      turns++;
      const after = await probeUntil(
        "playground",
        ["#turn-costs li", "#status", "#stream .tok.s", "#stream .tok"],
        (r) => r[0].count === turns,
        `turn ${turns}`,
        120_000,
      );
      assert.ok(after.results[2].count > 0, "sampled tokens drawn as the trace viewer draws them");
      assert.ok(after.results[3].count > after.results[2].count, "the inserted prompt too");
      ended = after.results[1].text.startsWith("Ended");
      console.log(
        `      ${labelOf(checkpoint.item)} turn ${turns}: ${after.results[1].text} · ${after.results[0].text}`,
      );
    }

    await probePanel("playground", ["#save"], "#save");
    const saved = await probeUntil("playground", ["#saved"], (r) => /^Saved as /.test(r[0].text), "Save as episode");
    const name = /^Saved as (\S+)/.exec(saved.results[0].text)![1];
    const runDir = /\((.+)\)/.exec(saved.results[0].text)![1];
    assert.ok(existsSync(join(runDir, "episodes.jsonl")), `${runDir} holds the episode`);
    await waitFor(
      "the saved run in the Runs view",
      async () => ((await treeRows(lab.runs)).some((r) => labelOf(r.item) === name) ? true : undefined),
      30_000,
    );
  });
});
