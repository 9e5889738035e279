/**
 * The Experiments view's model on a real experiment: the miniature offline spec run by
 * `runExperiment` into experiments/mini under an opened folder, stopped as the first arm's GRPO
 * starts and continued. While it runs the experiment is listed as running with its phase i/n, the
 * phase's own step n/N, one ETA and its spend against the budget; stopped it is interrupted; finished
 * it is done with its verdict, arms → runs → checkpoints under short names, and the panel's verdict
 * sentence written from the record's numbers.
 */
import { strict as assert } from "node:assert";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runExperiment } from "../../../../../src/core/steps/experiments/run-experiment";
import { listExperiments, type ExperimentEntry } from "../../../../../src/core/views/experiments/experiment-list";
import { experimentView } from "../../../../../src/core/views/experiments/view-model";
import { describeProgress } from "../../../../../src/core/base/runs/progress";
import { UserError } from "../../../../../src/core/base/errors";
import { miniatureSpec, writeSpec } from "../../steps/experiments/fixtures";
import { startLocalBackend } from "../../../../helpers/local-backend";

describe("views: the experiments of a workspace (miniature offline experiment)", function () {
  this.timeout(300_000);
  let root: string;
  const whileRunning: ExperimentEntry[] = [];
  let stopped: ExperimentEntry[] = [];
  let done: ExperimentEntry[] = [];

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-experiment-list-"));
    // A budget so the progress line says the spend against it (the local backend is free).
    const specFile = writeSpec(root, miniatureSpec({ budget_usd: 5 }));
    const dir = join(root, "experiments", "mini");
    const ac = new AbortController();
    let inGrpo = false;
    const log = (l: string) => {
      if (/ \d+\/\d+ train:generated/.test(l)) inGrpo = true;
      else if (inGrpo && whileRunning.length < 40) {
        // The GRPO phase's own lines: the experiment as the view lists it meanwhile, stopped once it
        // lists the phase's steps (its two steps can pass between two writes of progress.json, which
        // come at most every 250 ms: waiting for a step counted there made the stop depend on timing).
        const e = listExperiments(root)[0];
        if (e?.progress?.current?.unit !== "step") return;
        whileRunning.push(e);
        if (!ac.signal.aborted) ac.abort(new UserError("interrupted"));
      }
    };
    await assert.rejects(runExperiment({ startLocalBackend, specFile, dir, signal: ac.signal, log }), /interrupted/);
    stopped = listExperiments(root);
    await runExperiment({ startLocalBackend, specFile, dir, log: () => undefined });
    done = listExperiments(root);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("while it runs: listed from the opened folder as running, with phase i/n, the phase's step n/N, ETA and spend of budget", () => {
    assert.ok(whileRunning.length > 0, "the view listed the experiment during its GRPO phase");
    const e = whileRunning.at(-1)!;
    assert.equal(e.name, "mini");
    assert.equal(e.state, "running");
    const p = e.progress!;
    assert.deepEqual(
      [p.unit, p.stage?.name, p.current?.unit, p.current?.planned],
      ["phase", "train:generated", "step", 2],
    );
    assert.equal(p.budget_usd, 5);
    assert.match(
      describeProgress(p),
      /^phase 7\/11 train:generated · step [0-2]\/2 · \$0\.00 of \$5\.00( · ETA \d+s| · ETA \d+m \d+s)?$/,
    );
  });

  it("stopped: interrupted, with the runs written so far under short names", () => {
    assert.equal(stopped.length, 1);
    assert.equal(stopped[0].state, "interrupted");
    assert.equal(stopped[0].verdict, undefined);
    const shared = stopped[0].arms.find((a) => a.name === "shared")!;
    assert.deepEqual(
      shared.runs.map((r) => r.short),
      ["init", "init-data"],
    );
    assert.ok(stopped[0].arms.some((a) => a.name === "generated" && a.runs.some((r) => r.short === "tasks-generated")));
  });

  it("finished: done with its verdict and checks; arms → runs → checkpoints under short names", () => {
    assert.equal(done.length, 1);
    const e = done[0];
    assert.equal(e.state, "done");
    assert.match(e.verdict!, /^(supported|refuted|inconclusive)$/);
    assert.ok(e.checks && e.checks.total > 0 && e.checks.passed === e.checks.total);
    assert.deepEqual([e.spendUsd, e.budgetUsd], [0, 5]);
    assert.deepEqual(
      e.arms.map((a) => a.name),
      ["shared", "generated", "world"],
    );
    const generated = e.arms.find((a) => a.name === "generated")!;
    assert.deepEqual(
      generated.runs.map((r) => r.short),
      ["eval-generated", "generated", "tasks-generated"],
    );
    const grpo = generated.runs.find((r) => r.short === "generated")!;
    assert.ok(grpo.checkpoints.length > 0);
    assert.ok(grpo.checkpoints.every((c) => c.short.startsWith("generated-") && c.name === `mini-${c.short}`));
    assert.ok(e.arms.find((a) => a.name === "shared")!.runs.some((r) => r.short === "eval-base"));
    assert.equal(e.specFile, join(e.recordDir, "spec.json"));
  });

  it("the panel's verdict is one sentence with the record's numbers, and each criterion a row", () => {
    const v = experimentView(done[0].recordDir);
    console.log(`      ${v.sentence}`);
    assert.ok(v.sentence.startsWith(`${v.verdict}: generated (GRPO on generated tasks) moved val F1 by `), v.sentence);
    assert.match(v.sentence, /over the SFT warm start, (below|above|at) the \+0\.020 the hypothesis needs/);
    assert.equal(v.criteria.length, 4);
    assert.deepEqual(
      v.criteria.map((c) => c.kind),
      ["supported", "supported", "refuted", "refuted"],
    );
    assert.equal(v.criteria[0].stated, "generated − base ≥ +0.020");
    assert.match(v.criteria[0].measured, /^[+−]?\d\.\d{3} \[[+−]?\d\.\d{3}, [+−]?\d\.\d{3}\]$/);
    assert.deepEqual(
      v.criteria.map((c) => c.holds),
      v.conditions.map((c) => c.holds),
    );
    assert.deepEqual(
      v.arms.find((a) => a.name === "generated")!.links.map((l) => l.label),
      ["GRPO", "eval traces"],
    );
  });

  it("a stopped experiment whose progress says failed is failed; one under a --dir elsewhere is found too", () => {
    const other = join(root, "elsewhere", "exp");
    mkdirSync(join(other, "runs"), { recursive: true });
    writeFileSync(join(other, "agent-lab.json"), "{}\n");
    cpSync(join(done[0].recordDir, "manifest.json"), join(other, "runs", "mini", "manifest.json"));
    writeFileSync(
      join(other, "runs", "mini", "progress.json"),
      JSON.stringify({ ...done[0].progress, status: "failed" }),
    );
    const all = listExperiments(root);
    // Sorted by name, then folder: elsewhere/ before experiments/.
    assert.deepEqual(
      all.map((x) => [x.name, x.state]),
      [
        ["mini", "failed"],
        ["mini", "done"],
      ],
    );
    assert.ok(all.some((x) => x.workspaceDir === other && x.state === "failed"));
  });
});
