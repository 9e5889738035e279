import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeProgress, etaSeconds, ProgressWriter, readProgress } from "../../../../../src/core/base/runs/progress";

describe("runs/progress: progress as data", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-progress-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes progress.json atomically, throttled, and always on finish", () => {
    let now = 1_000_000;
    const w = new ProgressWriter(dir, {
      step: "train-grpo",
      label: "GRPO",
      unit: "step",
      planned: 60,
      minIntervalMs: 1000,
      now: () => now,
    });
    assert.equal(readProgress(dir)?.done, 0);
    now += 10_000;
    w.update({ done: 10 });
    assert.equal(readProgress(dir)?.done, 10);
    now += 10;
    w.update({ done: 11 });
    assert.equal(readProgress(dir)?.done, 10, "throttled");
    w.finish("done", { done: 60 });
    const p = readProgress(dir)!;
    assert.deepEqual([p.done, p.status, p.eta_s], [60, "done", 0]);
    assert.deepEqual(readdirSync(dir), ["progress.json"], "no temporary files left");
  });

  it("tells onUpdate of its first state as well, so a pipeline nesting it shows the plan at once", () => {
    const told: string[] = [];
    const w = new ProgressWriter(dir, {
      step: "train-sft",
      label: "SFT",
      unit: "step",
      planned: 8,
      minIntervalMs: 1000,
      onUpdate: (p) => told.push(describeProgress(p)),
    });
    assert.deepEqual(told, ["SFT · step 0/8 · $0.00"]);
    w.update({ done: 1 });
    assert.equal(told.length, 2, "and of every update, written or not");
  });

  it("ETA uses this process's pace (a resume's earlier units do not count)", () => {
    assert.equal(etaSeconds(40, 60, 0, 20_000, 20), 20);
    assert.equal(etaSeconds(20, 60, 0, 5_000, 20), undefined);
  });

  it("describes a step and a pipeline stage in the one line every view shows", () => {
    let now = 0;
    const w = new ProgressWriter(dir, {
      step: "train-grpo",
      label: "GRPO",
      unit: "step",
      planned: 60,
      minIntervalMs: 0,
      now: () => now,
    });
    now = 66_000;
    w.update({ done: 33 });
    assert.equal(describeProgress(w.current), "GRPO · step 33/60 · $0.00 · ETA 54s");
    const pipeline = {
      ...w.current,
      step: "pipeline",
      label: "GRPO",
      unit: "stage" as const,
      done: 8,
      planned: 11,
      stage: { index: 9, count: 11, name: "train-grpo" },
      current: w.current,
    };
    assert.equal(describeProgress(pipeline), "stage 9/11 GRPO · step 33/60 · $0.00 · ETA 54s");
  });

  it("a pipeline's line gives one ETA for the whole job (the engine's), not the running stage's", () => {
    const stage = { label: "GRPO", unit: "step" as const, done: 33, planned: 60, usd: 0, eta_s: 54 };
    const pipeline = {
      format: 1,
      step: "pipeline",
      label: "GRPO",
      unit: "stage" as const,
      done: 8,
      planned: 11,
      usd: 0,
      status: "running" as const,
      started: "2026-01-01T00:00:00.000Z",
      updated: "2026-01-01T00:01:00.000Z",
      stage: { index: 9, count: 11, name: "train-grpo" },
      current: stage,
      eta_s: 760,
    };
    assert.equal(describeProgress(pipeline), "stage 9/11 GRPO · step 33/60 · $0.00 · ETA 12m 40s");
    // A pipeline file from before the engine wrote its own ETA still shows the stage's.
    const { eta_s: _whole, ...older } = pipeline;
    assert.equal(describeProgress(older), "stage 9/11 GRPO · step 33/60 · $0.00 · ETA 54s");
  });

  it("an experiment's line says phase i/n, the phase's step n/N, its spend against budget_usd and one ETA", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-progress-experiment-"));
    try {
      const w = new ProgressWriter(dir, {
        step: "experiment",
        label: "experiment",
        unit: "phase",
        planned: 11,
        budgetUsd: 5,
        minIntervalMs: 0,
      });
      w.update({
        label: "train:generated",
        stage: { index: 7, count: 11, name: "train:generated" },
        current: { label: "GRPO", unit: "step", done: 3, planned: 8, usd: 0.12 },
        usd: 0.12,
        eta_s: 250,
      });
      const read = readProgress(dir)!;
      assert.equal(read.budget_usd, 5);
      assert.equal(describeProgress(read), "phase 7/11 train:generated · step 3/8 · $0.12 of $5.00 · ETA 4m 10s");
      // Without a cap the spend stands alone, as before.
      const { budget_usd: _cap, ...uncapped } = read;
      assert.equal(describeProgress(uncapped), "phase 7/11 train:generated · step 3/8 · $0.12 · ETA 4m 10s");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an experiment with two arms at once says every running phase with its own steps, one spend and one ETA", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-progress-running-"));
    try {
      const w = new ProgressWriter(dir, {
        step: "experiment",
        label: "experiment",
        unit: "phase",
        planned: 12,
        budgetUsd: 5,
        minIntervalMs: 0,
      });
      w.update({
        label: "train:b",
        stage: { index: 9, count: 12, name: "train:b" },
        current: { label: "GRPO", unit: "step", done: 1, planned: 8, usd: 0.02 },
        running: [
          {
            index: 7,
            name: "train:a",
            label: "train:a",
            current: { label: "GRPO", unit: "step", done: 3, planned: 8, usd: 0.1 },
          },
          {
            index: 9,
            name: "train:b",
            label: "train:b",
            current: { label: "GRPO", unit: "step", done: 1, planned: 8, usd: 0.02 },
          },
        ],
        usd: 0.12,
        eta_s: 250,
      });
      const read = readProgress(dir)!;
      assert.equal(
        describeProgress(read),
        "phases 7+9/12 · train:a step 3/8 · train:b step 1/8 · $0.12 of $5.00 · ETA 4m 10s",
      );
      // Back to one phase: the list is cleared and the line is the one-phase line again.
      w.update({ running: undefined });
      assert.equal(readProgress(dir)!.running, undefined);
      assert.equal(describeProgress(readProgress(dir)!), "phase 9/12 train:b · step 1/8 · $0.12 of $5.00 · ETA 4m 10s");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an older progress file (no running list) reads as before; a malformed running list is dropped, not fatal", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-progress-older-"));
    try {
      const older = {
        format: 1,
        step: "experiment",
        label: "train:generated",
        unit: "phase",
        done: 6,
        planned: 11,
        usd: 0.12,
        status: "running",
        started: "2026-01-01T00:00:00.000Z",
        updated: "2026-01-01T00:01:00.000Z",
        stage: { index: 7, count: 11, name: "train:generated" },
        current: { label: "GRPO", unit: "step", done: 3, planned: 8, usd: 0.12 },
        budget_usd: 5,
        eta_s: 250,
      };
      writeFileSync(join(dir, "progress.json"), JSON.stringify(older));
      assert.equal(
        describeProgress(readProgress(dir)!),
        "phase 7/11 train:generated · step 3/8 · $0.12 of $5.00 · ETA 4m 10s",
      );
      writeFileSync(join(dir, "progress.json"), JSON.stringify({ ...older, running: [{ index: "x" }] }));
      const read = readProgress(dir)!;
      assert.equal("running" in read, false);
      assert.equal(describeProgress(read), "phase 7/11 train:generated · step 3/8 · $0.12 of $5.00 · ETA 4m 10s");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
