/**
 * One budget across a sweep's concurrent arms: a phase is refused before it starts when what is
 * spent plus what the phases running beside it hold plus its own estimate passes the cap (one line;
 * nothing of it runs or is recorded), each running phase's own cap leaves out the others'
 * reservations, and a sweep whose estimate is over the cap is refused before anything is written
 * (its dry run listing every arm's estimate and the total).
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { ProgressWriter } from "../../../../../src/core/base/runs/progress";
import { Recipe, type Stage, type StageRecord } from "../../../../../src/core/steps/recipe/engine";
import { runExperiment } from "../../../../../src/core/steps/experiments/run-experiment";
import { runChains } from "../../../../../src/core/steps/experiments/sweep-run";
import { writeSpec } from "./fixtures";
import { REPO } from "../../../../helpers/repo";

describe("experiments: one budget across a sweep's concurrent arms", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-sweep-budget-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const budget = { capUsd: 1, scope: "the whole experiment", keptIn: "runs/x/phases.json", noun: "phases" };
  function recipe(names: string[], records: Record<string, StageRecord>, saved: string[][]): Recipe {
    return new Recipe({
      names,
      log: () => {},
      progress: new ProgressWriter(dir, { step: "t", label: "t", unit: "stage", planned: names.length, done: 0 }),
      records,
      save: (r) => saved.push(Object.keys(r)),
      doneAtStart: 0,
      budget,
    });
  }
  /** A phase that waits for `release` while running (so its reservation is held), then spends `spends`. */
  function phase(name: string, estimateUsd: number, spends: number, ran: string[], release?: Promise<void>): Stage {
    return {
      name,
      isDone: () => false,
      estimateUsd,
      spentUsd: () => spends,
      run: async (ctx) => {
        ran.push(`${name} (own cap $${ctx.budgetLeftUsd.toFixed(2)})`);
        await release;
      },
    };
  }

  it("refuses a phase whose estimate, with what is spent and what the phases beside it hold, passes the cap; nothing of it runs", async () => {
    const ran: string[] = [];
    const saved: string[][] = [];
    const records: Record<string, StageRecord> = { "init:sft": { seconds: 1, finished: "", usd: 0.1 } };
    const r = recipe(["init:sft", "train:a", "train:b"], records, saved);
    let release!: () => void;
    const held = new Promise<void>((res) => (release = res));
    const a = phase("train:a", 0.5, 0.45, ran, held);
    const b = phase("train:b", 0.5, 0.4, ran);
    // Arm a holds $0.50 while arm b asks: 0.10 + 0.50 + 0.50 > 1.
    const chains = runChains([[a], [b]], 2, async (st) => {
      if (st === b) await Promise.resolve();
      await r.run(st);
    });
    await new Promise((res) => setImmediate(res));
    release();
    await assert.rejects(
      chains,
      (e: Error) =>
        e instanceof UserError &&
        e.message ===
          "budget_usd $1.00 (the whole experiment): $0.1000 spent so far plus $0.5000 reserved by phases running and train:b is estimated at up to $0.5000; stopped before it (finished phases are kept in runs/x/phases.json)",
    );
    assert.deepEqual(ran, ["train:a (own cap $0.90)"]);
    assert.deepEqual(Object.keys(records), ["init:sft", "train:a"]);
    assert.deepEqual(saved, [["init:sft", "train:a"]]);
    assert.equal(r.reservedUsd, 0);
  });

  it("runs phases that fit side by side, each capped at what is left after the others' reservations", async () => {
    const ran: string[] = [];
    const records: Record<string, StageRecord> = {};
    const r = recipe(["train:a", "train:b", "train:c"], records, []);
    let release!: () => void;
    const held = new Promise<void>((res) => (release = res));
    const chains = runChains(
      [
        [phase("train:a", 0.3, 0.2, ran, held)],
        [phase("train:b", 0.3, 0.25, ran, held)],
        [phase("train:c", 0.3, 0.1, ran)],
      ],
      2,
      (st) => r.run(st),
    );
    await new Promise((res) => setImmediate(res));
    release();
    await chains;
    // a ran with nothing held beside it, b beside a's $0.30, c once both were spent ($0.45).
    assert.deepEqual(ran, ["train:a (own cap $1.00)", "train:b (own cap $0.70)", "train:c (own cap $0.55)"]);
    assert.equal(r.spent(), 0.55);
  });

  it("refuses a sweep whose estimate is over the cap before anything is written; its dry run lists every arm's estimate", async () => {
    const spec = JSON.parse(readFileSync(join(REPO, "examples", "gsm8k-self-generated.json"), "utf8")) as Record<
      string,
      unknown
    >;
    spec.sweep = { arm: "gsm8k", grid: { "grpo.lr": [4e-5, 1e-4] }, baseline: "gsm8k_lr4e-5", max_concurrent_arms: 2 };
    (spec.criterion as Record<string, unknown>).reference = "gsm8k_lr4e-5";
    spec.budget_usd = 100;
    const specFile = writeSpec(dir, spec);
    const ws = join(dir, "ws");
    const lines: string[] = [];
    const dry = await runExperiment({ specFile, dir: ws, dryRun: true, log: (l) => lines.push(l) });
    const sweepLines = lines.slice(lines.findIndex((l) => l.startsWith("sweep over")));
    const perArm = dry.estimate.phases["train:gsm8k_lr4e-5"] + dry.estimate.phases["eval:gsm8k_lr4e-5"];
    assert.deepEqual(sweepLines.slice(0, 4), [
      "sweep over grpo.lr of arm gsm8k: 3 arms, up to 2 at once, ranked against gsm8k_lr4e-5",
      `  selfgen       (as written) — ≈ $${(dry.estimate.phases["tasks:selfgen"] + dry.estimate.phases["train:selfgen"] + dry.estimate.phases["eval:selfgen"]).toFixed(2)}`,
      `  gsm8k_lr4e-5  grpo.lr=0.00004 — ≈ $${perArm.toFixed(2)}`,
      `  gsm8k_lr1e-4  grpo.lr=0.0001 — ≈ $${perArm.toFixed(2)}`,
    ]);
    assert.match(
      sweepLines[4],
      /^ {2}shared phases \(data, init, eval:base\) ≈ \$\d+\.\d\d; all arms together ≈ \$\d+\.\d\d; total ≈ \$\d+\.\d\d$/,
    );
    assert.ok(dry.estimate.usd > 100);
    await assert.rejects(
      runExperiment({ specFile, dir: ws, yes: true, log: () => {} }),
      (e: Error) =>
        e instanceof UserError &&
        e.message ===
          `the estimate ($${dry.estimate.usd.toFixed(2)}) is over the spec's budget_usd ($100.00, the cap for all phases together); raise it or shrink the arms`,
    );
    assert.equal(existsSync(ws), false);
    // A rehearsal runs the sweep at tiny sizes as a sweep: the same arms under the same names, side by side.
    const rehearsed: string[] = [];
    await runExperiment({ specFile, dir: ws, dryRun: true, rehearse: true, log: (l) => rehearsed.push(l) });
    assert.ok(
      rehearsed.some((l) => l.startsWith("  train:gsm8k_lr1e-4: GRPO 1 steps × 2 × 2")),
      rehearsed.join("\n"),
    );
    assert.ok(
      rehearsed.includes("sweep over grpo.lr of arm gsm8k: 3 arms, up to 2 at once, ranked against gsm8k_lr4e-5"),
      rehearsed.join("\n"),
    );
  });
});
