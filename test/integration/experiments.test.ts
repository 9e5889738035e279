/**
 * An experiment as a researcher runs it in the real VS Code: "Agent Lab: Run Experiment…" on a spec
 * in the folder (the miniature of the offline spec the unit tests run: every phase at tiny sizes,
 * about a minute) → the experiment appears in the Experiments view while it runs, its row saying
 * phase i/n and the running phase's own step n/N, and the Jobs view says the same → Open shows its
 * progress in the panel while it runs, then the result box once the record is written → its arms
 * list their runs under short names → Validate runs `experiment validate` and lists each check.
 */
import * as assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentLabApi } from "../../src/extension/extension";
import { isFinal } from "../../src/extension/jobs/job-state";
import { miniatureSpec } from "../unit/core/steps/experiments/fixtures";
import { activeExports, answerUi, labelOf, probeUntil, settle, treeRows, waitFor, workspaceDir } from "./helpers";

const NAME = "it-views-mini";

describe("experiments in the views (real VS Code)", function () {
  this.timeout(600_000);
  let lab: AgentLabApi;
  let specFile: string;
  before(async () => {
    lab = await activeExports<AgentLabApi>();
    specFile = join(workspaceDir(), `${NAME}.json`);
    writeFileSync(specFile, JSON.stringify(miniatureSpec({ name: NAME }), null, 2) + "\n");
  });
  after(async () => {
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    rmSync(specFile, { force: true });
    rmSync(join(workspaceDir(), "experiments", NAME), { recursive: true, force: true });
  });

  it("Run Experiment… → listed while it runs with phase and step progress → Open shows the panel → Validate lists the checks", async () => {
    const started = Date.now();
    const ui = answerUi({ quickPick: (items) => items.find((i) => i.label === NAME) });
    try {
      await vscode.commands.executeCommand("agentLab.runExperiment");
      assert.deepEqual(ui.messages("error"), []);
      const job = await waitFor("the experiment job", () =>
        lab.jobs.list().find((j) => j.record.command[0] === "experiment" && j.record.command.includes(specFile)),
      );

      // The Experiments view lists it while it runs, with the phase and the phase's own count (the
      // SFT data's questions, the generator's tasks, the training steps). The Jobs view (and the
      // status bar) say the same line: one progress contract, progress.json. Any of those phases
      // counts: the miniature's two-step trainings are over in well under a second on a fast
      // machine, too short to be caught by polling alone.
      const seen = new Set<string>();
      const jobLines = new Set<string>();
      const stepLine = /^phase \d+\/11 \S+ · (step|question|task) \d+\/\d+ · \$0\.00/;
      let row: Awaited<ReturnType<typeof treeRows<unknown>>>[number] | undefined;
      await waitFor(
        "the running experiment's row, and its job, with phase i/n and its count n/N",
        async () => {
          const r = (await treeRows(lab.experiments)).find((x) => labelOf(x.item) === NAME);
          if (r) seen.add(String(r.item.description));
          jobLines.add(lab.jobs.describe(job));
          if (r && stepLine.test(String(r.item.description)) && r.item.contextValue === "experiment.running") row ??= r;
          if (row && [...jobLines].some((l) => stepLine.test(l))) return true;
          // Ended before both were seen: say what was, rather than wait out the timeout.
          if (isFinal(job.status.state)) {
            const lines = `rows: ${[...seen].join(" | ")}; jobs: ${[...jobLines].join(" | ")}`;
            throw new Error(`the experiment ended (${job.status.state}) before its progress was seen; ${lines}`);
          }
          return undefined;
        },
        300_000,
        100,
      );
      console.log(`      Experiments view while running: ${[...seen].slice(0, 12).join(" | ")}`);
      console.log(
        `      Jobs view while running: ${[...jobLines]
          .filter((l) => stepLine.test(l))
          .slice(0, 6)
          .join(" | ")}`,
      );

      // Open while it runs: the panel shows the progress (no record yet).
      await vscode.commands.executeCommand("agentLab.openExperiment", row!.node);
      const running = await probeUntil(
        "experiment",
        ["#progress-line"],
        (r) => /^phase \d+\/11 /.test(r[0].text),
        "the panel's progress line while the experiment runs",
        60_000,
      );
      console.log(`      panel while running: ${running.results[0].text}`);

      const status = await settle(job, 480_000, "the miniature experiment");
      assert.equal(status.state, "done", `experiment ${status.state}: ${status.reason ?? ""} ${job.lastLine ?? ""}`);
      console.log(`      experiment ran ${((Date.now() - started) / 1000).toFixed(0)} s`);

      const done = await waitFor("the finished experiment's row", async () => {
        const r = (await treeRows(lab.experiments)).find((x) => labelOf(x.item) === NAME);
        return r && /^done · (supported|refuted|inconclusive) · /.test(String(r.item.description)) ? r : undefined;
      });
      assert.equal(done.item.contextValue, "experiment.done");
      const arms = await treeRows(lab.experiments, done.node);
      assert.deepEqual(
        arms.map((a) => labelOf(a.item)),
        ["shared", "generated", "world"],
      );
      const runs = await treeRows(lab.experiments, arms[1].node);
      assert.deepEqual(
        runs.map((r) => labelOf(r.item)),
        ["eval-generated", "generated", "tasks-generated"],
        "short names: the arm's, not the experiment's prefix",
      );

      // The open panel turns into the result box once the record is written.
      await probeUntil(
        "experiment",
        ["#verdict-sentence", "#criteria tbody tr"],
        (r) =>
          /^(supported|refuted|inconclusive): generated \(GRPO on generated tasks\) moved /.test(r[0].text) &&
          r[1].count === 4,
        "the verdict sentence and the four criteria rows",
        60_000,
      );

      // Validate: a job running `experiment validate`, then every check listed.
      await vscode.commands.executeCommand("agentLab.validateExperiment", done.node);
      assert.deepEqual(ui.messages("error"), []);
      const validate = lab.jobs
        .list()
        .find((j) => j.record.command[0] === "experiment" && j.record.command.includes("validate"));
      assert.ok(validate, "a validate job");
      const listed = await waitFor("the checks' list", () =>
        ui.calls.find((c) => c.kind === "quickPick" && c.text.startsWith(`${NAME}: `)),
      );
      console.log(`      Validate listed: ${listed.text}`);
      assert.match(listed.text, /^it-views-mini: (\d+)\/\1 checks passed \| /);
      const checks = listed.text.split(" | ")[1].split(" / ");
      assert.ok(checks.length >= 7 && checks.every((c) => c.startsWith("$(pass) ")), listed.text);
      const panel = await probeUntil(
        "experiment",
        ["#checks li.check-passed"],
        (r) => r[0].count === checks.length,
        "every check in the panel",
        30_000,
      );
      assert.equal(panel.pwned, false);
      console.log(`      whole test ${((Date.now() - started) / 1000).toFixed(0)} s`);
    } finally {
      ui.restore();
    }
  });
});
