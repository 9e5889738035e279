/**
 * What a job shows, from the progress.json its step wrote with core's ProgressWriter (a unit step
 * and a pipeline nesting its current stage), and the log helpers (streamed, never parsed).
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProgressWriter } from "../../../src/core/base/runs/progress";
import { describeJob, formatElapsed, jobProgress, readFrom, redact } from "../../../src/extension/jobs/job-progress";

describe("extension: job progress from progress.json", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-progress-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a training step: step n/N, spend and ETA as the step wrote them", () => {
    let now = Date.parse("2026-12-01T10:00:00Z");
    const started = new Date(now - 1000).toISOString();
    const w = new ProgressWriter(dir, {
      step: "train-grpo",
      label: "GRPO",
      unit: "step",
      planned: 60,
      minIntervalMs: 0,
      now: () => now,
    });
    assert.equal(describeJob(jobProgress(dir, started), 0), "GRPO · step 0/60 · $0.00");
    now += 33 * 2000;
    w.update({ done: 33, usd: 0.42 });
    const p = jobProgress(dir, started)!;
    assert.equal(p.done, 33);
    assert.equal(describeJob(p, 0), "GRPO · step 33/60 · $0.42 · ETA 54s");
    w.finish("done", { done: 60 });
    assert.equal(describeJob(jobProgress(dir, started), 0), "GRPO · step 60/60 · $0.42 · done");
  });

  it("a pipeline: stage i/n and its name, with the running stage's own count", () => {
    const started = new Date(Date.now() - 1000).toISOString();
    const pipeline = new ProgressWriter(dir, {
      step: "pipeline",
      label: "pipeline",
      unit: "stage",
      planned: 11,
      minIntervalMs: 0,
    });
    // The recipe engine gives the pipeline's writer one ETA over every stage left.
    pipeline.update({ label: "GRPO", stage: { index: 9, count: 11, name: "train-grpo" }, done: 8, eta_s: 760 }, true);
    assert.equal(
      describeJob(jobProgress(dir, started), 0),
      "stage 9/11 GRPO · $0.00 · ETA 12m 40s",
      "between stages: the stage and the whole job's ETA",
    );
    // The stage's own writer (in its run folder) tells the pipeline's, as run-pipeline nests it.
    const grpo = new ProgressWriter(mkdtempSync(join(dir, "grpo-")), {
      step: "train-grpo",
      label: "GRPO",
      unit: "step",
      planned: 60,
      minIntervalMs: 0,
      onUpdate: (p) =>
        pipeline.update({ current: { label: p.label, unit: p.unit, done: p.done, planned: p.planned, usd: p.usd } }),
    });
    grpo.update({ done: 33 });
    // The running stage's count, and still the whole job's ETA (not the stage's own).
    assert.equal(describeJob(jobProgress(dir, started), 0), "stage 9/11 GRPO · step 33/60 · $0.00 · ETA 12m 40s");
  });

  it("no progress.json, or one older than the job: the elapsed time instead", () => {
    assert.equal(jobProgress(undefined, new Date().toISOString()), undefined);
    assert.equal(jobProgress(dir, new Date().toISOString()), undefined);
    const w = new ProgressWriter(dir, {
      step: "eval",
      label: "eval",
      unit: "question",
      planned: 10,
      now: () => Date.parse("2026-01-01T00:00:00Z"),
    });
    w.finish("done", { done: 10 });
    assert.equal(jobProgress(dir, "2026-06-01T00:00:00Z"), undefined, "an earlier run's file");
    assert.ok(jobProgress(dir, "2025-12-31T00:00:00Z"), "this job's file");
    assert.equal(describeJob(undefined, 185_000), "3m 05s");
    assert.equal(formatElapsed(3_725_000), "1h 02m");
    assert.equal(formatElapsed(9_000), "9s");
  });
});

describe("extension: job log helpers", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-log-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("streams a log incrementally, never splitting a UTF-8 character; redacts a secret", () => {
    const log = join(dir, "job.log");
    writeFileSync(log, "first line — ok\n");
    let r = readFrom(log, 0);
    assert.equal(r.text, "first line — ok\n");
    appendFileSync(log, "é".repeat(10) + "\n");
    const small = readFrom(log, r.offset, 7); // 7 bytes = 3.5 characters of one long line
    assert.equal(small.text, "ééé", "whole characters only");
    r = readFrom(log, small.offset);
    assert.equal(r.text, "é".repeat(7) + "\n");
    assert.equal(readFrom(log, r.offset).text, "");
    assert.equal(
      redact("key tml-abcdef123 here tml-abcdef123", ["tml-abcdef123", undefined]),
      "key [redacted] here [redacted]",
    );
  });
});
