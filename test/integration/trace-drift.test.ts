/**
 * The drift check in the real VS Code, on the fixture workspace's GSM8K run (made by the eval step
 * on the GSM8K fixture twin, few-shot turn and all): the trace viewer's run line says template
 * drift in 0 episodes once every episode is checked — the check renders with the template, which
 * gives the few-shot answer no think block — and the counts it saves beside the run (which
 * `agent-lab show` reads, core/views/trace/run-drift.ts) spell the same line.
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import { driftCountsLine } from "../../src/core/views/trace/drift";
import { readTextCache } from "../../src/core/views/trace/run-text-cache";
import { activeExports, labelOf, probeUntil, treeRows, waitFor, workspaceDir } from "./helpers";

const RUN = "gsm8k-val";

describe("the drift check (real VS Code)", function () {
  this.timeout(90_000);
  let lab: Lab;
  before(async () => {
    lab = await activeExports<Lab>();
  });
  afterEach(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  });

  it("a GSM8K run's trace: template drift in 0 episodes, the line show prints", async () => {
    const runDir = join(workspaceDir(), "runs", RUN);
    const manifest = JSON.parse(readFileSync(join(runDir, "manifest.json"), "utf8")) as { tokenizer: string };
    const total = readFileSync(join(runDir, "episodes.jsonl"), "utf8").split("\n").filter(Boolean).length;
    const row = (await treeRows(lab.runs)).find((r) => labelOf(r.item) === RUN);
    assert.ok(row);
    const groups = await treeRows(lab.runs, row.node);
    const episode = (await treeRows(lab.runs, groups[0].node))[0];
    const cmd = episode.item.command!;
    await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
    const r = (
      await probeUntil(
        "trace",
        ["#run-drift", "#run-template-drift"],
        (x) => x[1].count > 0 && !/checked\)/.test(x[0].text),
        "the run's drift line, every episode checked",
        60_000,
      )
    ).results;
    const shown = r[0].text.trim();
    assert.match(shown, /^template drift in 0 episodes · /);
    const saved = await waitFor(
      "the viewer's counts saved beside the run",
      async () => readTextCache(runDir, manifest.tokenizer)?.drift ?? undefined,
      20_000,
    );
    assert.equal(saved.checked, total);
    assert.equal(driftCountsLine(saved, total), shown);
    console.log(`      trace: ${shown}`);
  });
});
