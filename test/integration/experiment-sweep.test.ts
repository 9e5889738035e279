/**
 * A sweep as a researcher runs it in the real VS Code: "Agent Lab: Run Experiment…" on a miniature
 * sweep (the miniature experiment's world arm over grpo.steps 12 and 80, both arms at once: the
 * short arm's phases last long enough for the views' polls to see both, the long one's for the stop) → the
 * Experiments view and the Jobs view list both running arms' phases in one progress line → Stop
 * (the job's cancel) once the short arm is complete and the long one is not → Resume → only the
 * unfinished arm's phases run (phases.json: what finished before the stop is kept as it was) →
 * Open shows the panel's sweep table → Validate lists the checks, `sweep` among them.
 */
import * as assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentLabApi } from "../../src/extension/extension";
import { miniatureSweep } from "../unit/core/steps/experiments/sweep-fixtures";
import { activeExports, answerUi, labelOf, probeUntil, settle, treeRows, waitFor, workspaceDir } from "./helpers";

const NAME = "it-sweep-mini";
const SHORT = "w_steps12";
const LONG = "w_steps80";

describe("a sweep in the views (real VS Code)", function () {
  this.timeout(600_000);
  let lab: AgentLabApi;
  let specFile: string;
  const recordDir = () => join(workspaceDir(), "experiments", NAME, "runs", NAME);
  /** phases.json: each finished phase with when it finished. */
  const phases = (): Record<string, { finished: string }> => {
    try {
      return JSON.parse(readFileSync(join(recordDir(), "phases.json"), "utf8")) as Record<string, { finished: string }>;
    } catch {
      return {}; // not written yet (or being replaced this instant): the next poll reads it
    }
  };
  before(async () => {
    lab = await activeExports<AgentLabApi>();
    specFile = join(workspaceDir(), `${NAME}.json`);
    const spec = miniatureSweep(
      { grid: { "grpo.steps": [12, 80] }, baseline: SHORT, max_concurrent_arms: 2 },
      {
        name: NAME,
        // 80 steps × 2 questions need more train questions than the miniature's 60 (after its offset 16).
        world: { kind: "synthetic", seed: 7, train: 200, dev: 520 },
        criterion: {
          treatment: LONG,
          reference: SHORT,
          supported: [{ stat: "arm_minus_base", op: ">=", value: 0.02 }],
          refuted: [{ stat: "arm_minus_base", op: "<", value: 0.01 }],
        },
      },
    );
    writeFileSync(specFile, JSON.stringify(spec, null, 2) + "\n");
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    rmSync(specFile, { force: true });
    rmSync(join(workspaceDir(), "experiments", NAME), { recursive: true, force: true });
  });

  it("Run Experiment… on a sweep → both arms' progress → Stop → Resume runs only the unfinished arm → the sweep table → Validate lists the sweep check", async () => {
    const started = Date.now();
    const ui = answerUi({ quickPick: (items) => items.find((i) => i.label === NAME) });
    const rowOf = async () => (await treeRows(lab.experiments)).find((x) => labelOf(x.item) === NAME);
    try {
      await vscode.commands.executeCommand("agentLab.runExperiment");
      assert.deepEqual(ui.messages("error"), []);
      const job = await waitFor("the sweep's job", () =>
        lab.jobs.list().find((j) => j.record.command[0] === "experiment" && j.record.command.includes(specFile)),
      );

      // Both arms' phases in one line, in the Experiments view and in the Jobs view alike.
      const both = new RegExp(`^phases \\d+\\+\\d+/\\d+ · \\S+:${SHORT}\\b.* · \\S+:${LONG}\\b.* · \\$0\\.00`);
      let viewLine = "";
      let jobLine = "";
      const seen = new Set<string>();
      try {
        await waitFor(
          "both arms' phases in the Experiments view and the Jobs view",
          async () => {
            const r = await rowOf();
            if (r) seen.add(`view: ${String(r.item.description)}`);
            seen.add(`job: ${lab.jobs.describe(job)}`);
            if (r && both.test(String(r.item.description))) viewLine ||= String(r.item.description);
            if (both.test(lab.jobs.describe(job))) jobLine ||= lab.jobs.describe(job);
            return viewLine && jobLine;
          },
          300_000,
          100,
        );
      } finally {
        if (!(viewLine && jobLine)) console.log(`      seen:\n        ${[...seen].join("\n        ")}`);
      }
      console.log(`      Experiments view: ${viewLine}\n      Jobs view: ${jobLine}`);

      // Stop once the short arm is complete and the long one is still training.
      await waitFor("the short arm complete", () => phases()[`eval:${SHORT}`], 300_000, 100);
      const atStop = phases();
      assert.equal(atStop[`train:${LONG}`], undefined, "the long arm finished before the short one");
      await vscode.commands.executeCommand("agentLab.cancelJob", job);
      const stopped = await settle(job, 60_000, "the stopped sweep");
      assert.equal(stopped.state, "cancelled");
      const kept = phases();
      assert.equal(kept[`train:${LONG}`], undefined);
      console.log(
        `      stopped after ${((Date.now() - started) / 1000).toFixed(0)} s with ${Object.keys(kept).join(", ")}`,
      );

      const interrupted = await waitFor("the interrupted row", async () => {
        const r = await rowOf();
        return r?.item.contextValue === "experiment.interrupted" ? r : undefined;
      });
      await vscode.commands.executeCommand("agentLab.resumeExperiment", interrupted.node);
      assert.deepEqual(ui.messages("error"), []);
      const resumed = await waitFor("the resumed job", () =>
        lab.jobs
          .list()
          .find((j) => j !== job && j.record.command[0] === "experiment" && j.record.command.includes("run")),
      );
      const status = await settle(resumed, 300_000, "the resumed sweep");
      assert.equal(status.state, "done", `resume ${status.state}: ${status.reason ?? ""} ${resumed.lastLine ?? ""}`);
      // Only the unfinished arm ran: every phase finished before the stop is recorded as it was.
      const after = phases();
      for (const [name, p] of Object.entries(kept))
        assert.equal(after[name]?.finished, p.finished, `${name} ran again`);
      assert.deepEqual(
        Object.keys(after)
          .filter((n) => !(n in kept))
          .sort(),
        [`eval:${LONG}`, `train:${LONG}`],
      );

      // Open: the panel's sweep table, one row per arm.
      const done = await waitFor("the finished sweep's row", async () => {
        const r = await rowOf();
        return r?.item.contextValue === "experiment.done" ? r : undefined;
      });
      await vscode.commands.executeCommand("agentLab.openExperiment", done.node);
      await probeUntil(
        "experiment",
        ["#sweep-table tbody tr"],
        (r) => r[0].count === 2,
        "the sweep table with both arms",
        60_000,
      );

      // Validate: every check listed, the sweep's among them.
      await vscode.commands.executeCommand("agentLab.validateExperiment", done.node);
      assert.deepEqual(ui.messages("error"), []);
      const listed = await waitFor("the checks' list", () =>
        ui.calls.find((c) => c.kind === "quickPick" && c.text.startsWith(`${NAME}: `)),
      );
      console.log(`      Validate listed: ${listed.text}`);
      assert.match(listed.text, new RegExp(`^${NAME}: (\\d+)/\\1 checks passed \\| `));
      const checks = listed.text.split(" | ")[1].split(" / ");
      assert.ok(checks.includes("$(pass) sweep"), listed.text);
      console.log(`      whole test ${((Date.now() - started) / 1000).toFixed(0)} s`);
    } finally {
      ui.restore();
    }
  });
});
