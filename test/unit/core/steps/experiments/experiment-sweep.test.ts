/**
 * A miniature sweep end to end (synthetic world, local backend): 2 learning rates × 2 group sizes
 * of one arm, two arms at a time, stopped as the third arm starts and continued by the same
 * command — which runs only the phases the stop left unfinished. Then the record's ranking, and
 * `validateExperiment` on tampered copies: edited numbers, a dropped arm, an arm's run swapped,
 * items differing between arms — each refused with its reason.
 */
import { strict as assert } from "node:assert";
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import { describeProgress, readProgress, type Progress } from "../../../../../src/core/base/runs/progress";
import { EXPERIMENT_FILES, type ExperimentRecord } from "../../../../../src/core/steps/experiments/record";
import { runExperiment } from "../../../../../src/core/steps/experiments/run-experiment";
import { validateExperiment, type ValidationResult } from "../../../../../src/core/steps/experiments/validate";
import { startLocalBackend } from "../../../../helpers/local-backend";
import { writeSpec } from "./fixtures";
import { miniatureSweep, SWEEP_ARMS } from "./sweep-fixtures";

const PHASE_LINE = /^\[\d+\.\ds\] (\d+)\/(\d+) (\S+)(.*)$/;

describe("experiments: a sweep run, resumed and validated (miniature offline sweep)", function () {
  this.timeout(300_000);
  let root: string;
  let ws: string;
  let record: ExperimentRecord;
  const recordDir = () => join(ws, "runs", "sw");
  const said: { stopped: string[]; continued: string[] } = { stopped: [], continued: [] };
  let finishedAtStop: string[] = [];
  /** The record's progress.json as read at each phase line while two arms ran side by side. */
  const sideBySide: Progress[] = [];

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-sweep-"));
    ws = join(root, "ws");
    const specFile = writeSpec(root, miniatureSweep());
    const ac = new AbortController();
    const phaseLog = (into: string[]) => (l: string) => {
      const m = PHASE_LINE.exec(l);
      if (!m) return;
      const p = readProgress(recordDir());
      if (p?.running && p.running.length > 1) sideBySide.push(p);
      into.push(`${m[3].replace(/:$/, "")}${m[4].includes("skipped") ? " skipped" : ""}`);
      // The third arm starts only once one of the first two finished: stop there.
      if (m[3] === `train:${SWEEP_ARMS[2]}` && !ac.signal.aborted) ac.abort(new UserError("interrupted"));
    };
    await assert.rejects(
      runExperiment({ startLocalBackend, specFile, dir: ws, signal: ac.signal, log: phaseLog(said.stopped) }),
      /interrupted/,
    );
    finishedAtStop = Object.keys(
      JSON.parse(readFileSync(join(recordDir(), EXPERIMENT_FILES.phases), "utf8")) as Record<string, unknown>,
    );
    const r = await runExperiment({ startLocalBackend, specFile, dir: ws, log: phaseLog(said.continued) });
    record = r.record!;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("runs two arms at a time: the second arm's training starts before the first arm's evaluation", () => {
    const at = (phase: string) => said.stopped.indexOf(phase);
    const secondTrains = at(`train:${SWEEP_ARMS[1]}`);
    const firstEvaluates = at(`eval:${SWEEP_ARMS[0]}`);
    // The second arm may finish first and the stop come before the first arm's evaluation starts at all.
    assert.ok(secondTrains >= 0 && (firstEvaluates < 0 || secondTrains < firstEvaluates), said.stopped.join("\n"));
    assert.ok(secondTrains < at(`train:${SWEEP_ARMS[2]}`), said.stopped.join("\n"));
  });

  it("its progress carries every running phase with its own steps, one spend and one ETA; none once it is done", () => {
    assert.ok(sideBySide.length > 0, "progress never listed two running phases");
    const arms = (p: Progress) => new Set(p.running!.map((r) => r.name.split(":")[1]));
    const two = sideBySide.find((p) => arms(p).size > 1);
    assert.ok(two, sideBySide.map((p) => describeProgress(p)).join("\n"));
    assert.match(describeProgress(two), /^phases \d+\+\d+\/\d+ · \S+:w_lr\S+( \w+ \d+\/\d+)? · \S+:w_lr\S+/);
    assert.equal(two.unit, "phase");
    for (const r of two.running!) assert.ok(r.index >= 1 && r.index <= two.stage!.count);
    const done = readProgress(recordDir())!;
    assert.equal(done.status, "done");
    assert.equal(done.running, undefined);
  });

  it("an interrupted sweep resumes only its unfinished arms: what finished before the stop is skipped", () => {
    const all = said.continued.map((l) => l.replace(/ skipped$/, ""));
    const ran = said.continued.filter((l) => !l.endsWith(" skipped"));
    assert.deepEqual(ran.sort(), all.filter((p) => !finishedAtStop.includes(p)).sort());
    // At least one arm was complete at the stop and none of its phases ran again.
    const complete = SWEEP_ARMS.filter(
      (a) => finishedAtStop.includes(`train:${a}`) && finishedAtStop.includes(`eval:${a}`),
    );
    assert.ok(complete.length >= 1, finishedAtStop.join(", "));
    for (const a of complete) assert.ok(!ran.some((p) => p.endsWith(`:${a}`)), `${a} ran again`);
    assert.ok(ran.includes(`train:${SWEEP_ARMS[3]}`));
  });

  it("ranks every arm on the same items against the baseline, Holm-adjusted, and validates with the sweep check", () => {
    const s = record.sweep!;
    assert.deepEqual(s.arms.map((a) => a.name).sort(), [...SWEEP_ARMS].sort());
    assert.equal(s.baseline, SWEEP_ARMS[0]);
    assert.deepEqual(
      s.arms.map((a) => a.rank),
      [1, 2, 3, 4],
    );
    for (let i = 1; i < s.arms.length; i++) assert.ok(s.arms[i - 1].mean >= s.arms[i].mean);
    assert.equal(s.arms.find((a) => a.name === SWEEP_ARMS[0])!.p_holm, null);
    assert.deepEqual(s.arms.find((a) => a.name === SWEEP_ARMS[3])!.values, { "grpo.lr": 0.004, "grpo.group": 3 });
    assert.deepEqual(record.validation?.failed, []);
    assert.deepEqual(record.validation?.passed, [
      "same-evaluator",
      "same-items",
      "hashes",
      "no-train-in-eval",
      "budget",
      "scores",
      "criterion",
      "sweep",
    ]);
    const m = JSON.parse(readFileSync(join(ws, "runs", `sw-${SWEEP_ARMS[3]}`, "manifest.json"), "utf8")) as Record<
      string,
      unknown
    >;
    assert.deepEqual([m.lr, m.group], [0.004, 3]);
  });

  function tampered(change: (dir: string, rec: ExperimentRecord) => void): ValidationResult {
    const copy = mkdtempSync(join(root, "tampered-"));
    cpSync(ws, copy, { recursive: true });
    const file = join(copy, "runs", "sw", EXPERIMENT_FILES.record);
    const rec = JSON.parse(readFileSync(file, "utf8")) as ExperimentRecord;
    change(copy, rec);
    writeFileSync(file, JSON.stringify(rec, null, 2));
    return validateExperiment(join(copy, "runs", "sw"));
  }
  const sweepCheck = (v: ValidationResult) => v.checks.find((c) => c.check === "sweep")!;

  it("refuses edited numbers: a Holm-adjusted p, a paired interval, the best-arm claim", () => {
    const v = tampered((_, rec) => (rec.sweep!.arms[0].p_holm = 0.0001));
    assert.deepEqual(v.failed, ["sweep"]);
    const p = record.sweep!.arms[0].p_holm;
    assert.equal(
      sweepCheck(v).reason,
      `sweep.arms[0].p_holm is 0.0001 in the record, ${JSON.stringify(p)} recomputed (recomputed from the eval episodes with 1000 resamples, seed 0)`,
    );
    const w = tampered(
      (_, rec) => (rec.sweep!.best = SWEEP_ARMS[3] === record.sweep!.best ? SWEEP_ARMS[2] : SWEEP_ARMS[3]),
    );
    assert.deepEqual(w.failed, ["sweep"]);
    assert.match(sweepCheck(w).reason, /^sweep\.best is "w_lr4e-3_g[23]" in the record, .* recomputed/);
    const x = tampered((_, rec) => (rec.sweep!.arms[1].minus_baseline = { point: 0.5, ci: { lo: 0.4, hi: 0.6 } }));
    assert.equal(sweepCheck(x).status, "failed");
  });

  it("refuses a dropped arm: from the ranking (the sweep check), from the record's arms (one line)", () => {
    const v = tampered((_, rec) => rec.sweep!.arms.pop());
    assert.deepEqual(v.failed, ["sweep"]);
    assert.match(sweepCheck(v).reason, /^sweep\.arms\[3\]/);
    assert.throws(
      () =>
        tampered((_, rec) => {
          rec.arms = rec.arms.filter((a) => a.name !== SWEEP_ARMS[2]);
          delete rec.scores[SWEEP_ARMS[2]];
        }),
      (e: Error) => e instanceof FileFormatError && /but spec\.json names/.test(e.message),
    );
  });

  it("refuses an arm's run swapped: in the record, or its folders exchanged on disk", () => {
    const [a, b] = [SWEEP_ARMS[1], SWEEP_ARMS[2]];
    const v = tampered((_, rec) => {
      [rec.scores[a].run, rec.scores[b].run] = [rec.scores[b].run, rec.scores[a].run];
    });
    assert.ok(v.failed.includes("sweep"));
    assert.equal(
      sweepCheck(v).reason,
      `scores.${a}.run is runs/sw-eval-${b}, but arm ${a}'s evaluation is runs/sw-eval-${a}`,
    );
    const w = tampered((dir) => {
      const runs = join(dir, "runs");
      renameSync(join(runs, `sw-${a}`), join(runs, "swap"));
      renameSync(join(runs, `sw-${b}`), join(runs, `sw-${a}`));
      renameSync(join(runs, "swap"), join(runs, `sw-${b}`));
    });
    assert.ok(w.failed.includes("sweep"));
    assert.equal(
      sweepCheck(w).reason,
      `arm ${a} sweeps grpo.lr = 0.002, but runs/sw-${a}/manifest.json has lr = 0.004`,
    );
  });

  it("refuses a malformed sweep section in one line", () => {
    for (const [bad, problem] of [
      [[], "sweep is a list, not an object"],
      [{ ...record.sweep, arms: null }, "sweep.arms is null, not a list"],
    ] as const)
      assert.throws(
        () => tampered((_, rec) => ((rec as unknown as Record<string, unknown>).sweep = bad)),
        (e: Error) =>
          e instanceof FileFormatError &&
          e.message.endsWith(`experiment.json: not an experiment record: ${problem} (rerun agent-lab experiment run)`),
      );
  });

  it("refuses items differing between arms", () => {
    const v = tampered((dir) => {
      const file = join(dir, "runs", `sw-eval-${SWEEP_ARMS[3]}`, "episodes.jsonl");
      const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
      writeFileSync(file, lines.slice(1).join("\n") + "\n");
    });
    assert.ok(v.failed.includes("same-items"));
    assert.match(
      v.checks.find((c) => c.check === "same-items")!.reason,
      /^runs\/sw-eval-w_lr4e-3_g3 was evaluated on other items: 0 not in the manifest, 1 missing/,
    );
  });
});
