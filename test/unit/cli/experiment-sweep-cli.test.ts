/**
 * A sweep through the real CLI, as a user runs it: stopped with SIGTERM as its third arm starts,
 * then the same command again runs only the phases the stop left unfinished (the finished arms are
 * skipped) and prints the ranking; `experiment validate` passes it, and exits 1 naming the sweep
 * check once a number in the ranking is edited.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXPERIMENT_FILES, type ExperimentRecord } from "../../../src/core/steps/experiments/record";
import { writeSpec } from "../core/steps/experiments/fixtures";
import { miniatureSweep, SWEEP_ARMS } from "../core/steps/experiments/sweep-fixtures";
import { runCli, startCli, waitFor } from "./cli-process";

const PHASE_LINE = /^\[\d+\.\ds\] \d+\/\d+ (\S+?):?( .*)?$/;
const phases = (stdout: string) =>
  stdout
    .split("\n")
    .map((l) => PHASE_LINE.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ name: m[1], skipped: /skipped/.test(m[2] ?? "") }));

describe("cli: an interrupted sweep resumes only its unfinished arms", function () {
  this.timeout(600_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-sweep-cli-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("SIGTERM as the third arm starts, then the same command: only the unfinished phases run; validate passes, then refuses an edit", async () => {
    const spec = writeSpec(dir, miniatureSweep());
    const ws = join(dir, "ws");
    const args = ["experiment", "run", spec, "--dir", ws];
    const first = await startCli(args);
    let out = "";
    first.child.stdout!.on("data", (d) => (out += d));
    // Its phase line, not the estimate's line for the same phase printed first.
    const third = new RegExp(`\\] \\d+/\\d+ train:${SWEEP_ARMS[2]}\\b`);
    await waitFor(() => third.test(out), 300_000, "the third arm's start");
    first.child.kill("SIGTERM");
    const stopped = await first.done;
    assert.notEqual(stopped.code, 0, stopped.stdout + stopped.stderr);
    const recordDir = join(ws, "runs", "sw");
    const finished = Object.keys(JSON.parse(readFileSync(join(recordDir, EXPERIMENT_FILES.phases), "utf8")) as object);
    const again = await runCli(args);
    assert.equal(again.code, 0, again.stderr);
    const lines = phases(again.stdout);
    assert.deepEqual(
      lines
        .filter((p) => !p.skipped)
        .map((p) => p.name)
        .sort(),
      lines
        .map((p) => p.name)
        .filter((n) => !finished.includes(n))
        .sort(),
    );
    assert.ok(
      SWEEP_ARMS.some((a) => finished.includes(`eval:${a}`)),
      finished.join(", "),
    );
    assert.match(again.stdout, /## sweep sw\n/);
    assert.match(
      again.stdout,
      /✓ sweep {13}passed: 4 arms on the same 20 items against w_lr2e-3_g2, Holm-adjusted; best: /,
    );
    assert.equal((await runCli(["experiment", "validate", recordDir])).code, 0);
    const file = join(recordDir, EXPERIMENT_FILES.record);
    const rec = JSON.parse(readFileSync(file, "utf8")) as ExperimentRecord;
    rec.sweep!.arms[1].mean += 0.5;
    writeFileSync(file, JSON.stringify(rec));
    const refused = await runCli(["experiment", "validate", recordDir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /✗ sweep {13}failed: sweep\.arms\[1\]\.mean is /);
  });
});
