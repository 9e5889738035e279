/**
 * The recipe engine on stages that only count: skip a done one, resume a partial one, stop on the
 * signal after the current stage, refuse a stage the budget cannot pay for (one line), one ETA over
 * the whole list, and the record of what ran.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { ProgressWriter, readProgress, type Progress } from "../../../../../src/core/base/runs/progress";
import { Recipe, type RecipeOptions, type Stage, type StageRecord } from "../../../../../src/core/steps/recipe/engine";

interface Harness {
  recipe: Recipe;
  lines: string[];
  ran: string[];
  records: Record<string, StageRecord>;
  saved: Record<string, StageRecord>[];
  seen: Progress[];
  dir: string;
}

function harness(names: string[], o: Partial<RecipeOptions> & { clock?: { t: number } } = {}): Harness {
  const dir = mkdtempSync(join(tmpdir(), "recipe-"));
  const clock = o.clock ?? { t: 1_000_000 };
  const now = () => clock.t;
  const seen: Progress[] = [];
  const progress = new ProgressWriter(dir, {
    step: "test",
    label: "test",
    unit: "stage",
    planned: names.length,
    done: o.doneAtStart ?? 0,
    minIntervalMs: 0,
    now,
    onUpdate: (p) => seen.push(structuredClone(p)),
  });
  const records = o.records ?? {};
  const saved: Record<string, StageRecord>[] = [];
  const lines: string[] = [];
  const recipe = new Recipe({
    names,
    log: (l) => lines.push(l),
    progress,
    records,
    save: (r) => saved.push(structuredClone(r)),
    doneAtStart: 0,
    now,
    ...o,
  });
  return { recipe, lines, ran: [], records, saved, seen, dir };
}

function stage(h: Harness, name: string, extra: Partial<Stage> = {}, clock?: { t: number }, seconds = 2): Stage {
  return {
    name,
    isDone: () => false,
    run: async () => {
      h.ran.push(name);
      if (clock) clock.t += seconds * 1000;
    },
    ...extra,
  };
}

describe("core/steps/recipe: the engine", () => {
  it("skips a done stage with the pipeline's line, says a partial one resumes, and logs each start and end", async () => {
    const h = harness(["a", "b", "c"]);
    await h.recipe.runAll([
      stage(h, "a", { isDone: () => true }),
      stage(h, "b", { isPartial: () => true, what: "the middle one" }),
      stage(h, "c"),
    ]);
    assert.deepEqual(h.ran, ["b", "c"]);
    assert.deepEqual(h.lines, [
      "[0.0s] 1/3 a: outputs complete, skipped",
      "[0.0s] 2/3 b (resuming): the middle one",
      "[0.0s] b done in 0.0s",
      "[0.0s] 3/3 c",
      "[0.0s] c done in 0.0s",
    ]);
  });

  it("says a stage's start in the driver's own words when it has them (the demo's lines)", async () => {
    const h = harness(["a", "b"], {
      starting: (st, resuming) => `${st.what}${resuming ? " (resuming)" : ""}`,
      finished: () => undefined,
    });
    await h.recipe.runAll([
      stage(h, "a", { what: "writing a world" }),
      stage(h, "b", { what: "eval", isPartial: () => true }),
    ]);
    assert.deepEqual(h.lines, ["[0.0s] writing a world", "[0.0s] eval (resuming)"]);
  });

  it("stops on the signal after the current stage: the abort is thrown before the next, the finished one is recorded", async () => {
    const ac = new AbortController();
    const h = harness(["a", "b"], { signal: ac.signal });
    const a = stage(h, "a", {
      run: async (ctx) => {
        h.ran.push("a");
        ac.abort();
        assert.equal(ctx.signal, ac.signal, "the stage gets the signal for its own step");
      },
    });
    await assert.rejects(h.recipe.runAll([a, stage(h, "b")]), (e: Error) => e.name === "AbortError");
    assert.deepEqual(h.ran, ["a"]);
    assert.deepEqual(Object.keys(h.records), ["a"]);
  });

  it("refuses a stage whose estimate would pass the budget, with one line, before it runs; a stage runs capped at what is left", async () => {
    const budget = { capUsd: 1, scope: "the whole experiment", keptIn: "runs/x/phases.json", noun: "phases" };
    const h = harness(["a", "b"], { budget, records: {} });
    let left = 0;
    const a = stage(h, "a", {
      estimateUsd: 0.5,
      spentUsd: () => 0.75,
      run: async (ctx) => void (left = ctx.budgetLeftUsd),
    });
    const b = stage(h, "b", { estimateUsd: 0.3 });
    await assert.rejects(
      h.recipe.runAll([a, b]),
      (e: Error) =>
        e instanceof UserError &&
        e.message ===
          "budget_usd $1.00 (the whole experiment): $0.7500 spent so far and b is estimated at up to $0.3000; stopped before it (finished phases are kept in runs/x/phases.json)",
    );
    assert.equal(left, 1);
    assert.deepEqual(h.ran, []);
    assert.equal(h.records.a.usd, 0.75);
    // Already over the cap: even a free stage is refused.
    const over = harness(["c"], { budget, records: { z: { seconds: 1, finished: "", usd: 1.25 } } });
    await assert.rejects(
      over.recipe.run(stage(over, "c")),
      /\$1\.2500 spent so far and c is estimated at up to \$0\.0000/,
    );
    // Without a cap nothing is refused and the stage's own cap is unlimited.
    const free = harness(["d"]);
    let freeLeft = 0;
    await free.recipe.run(
      stage(free, "d", { estimateUsd: 1e6, run: async (ctx) => void (freeLeft = ctx.budgetLeftUsd) }),
    );
    assert.equal(freeLeft, Infinity);
  });

  it("keeps one ETA for the whole list: estimates, then the running stage's own pace, then what was measured", async () => {
    const clock = { t: 1_000_000 };
    const h = harness(["a", "b", "c"], { clock });
    const a = stage(h, "a", {
      estimateSeconds: 10,
      run: async (ctx) => {
        clock.t += 4000;
        ctx.onProgress({ label: "A", unit: "step", done: 1, planned: 2, usd: 0, eta_s: 3 });
        clock.t += 4000;
      },
    });
    const b = stage(h, "b", { estimateSeconds: 20 });
    const c = stage(h, "c", {}, clock, 5);
    await h.recipe.runAll([a, b, c]);
    const etaAt = (name: string, pred: (p: Progress) => boolean) =>
      h.seen.find((p) => p.stage?.name === name && pred(p))?.eta_s;
    // a starts: its 10 s + b's 20 s; c has no estimate and nothing is measured yet, so no ETA.
    assert.equal(
      etaAt("a", (p) => p.current === undefined),
      undefined,
    );
    // Every stage estimated: the list's ETA is their sum from the start, and shrinks stage by stage.
    const known = harness(["x", "y"], { clock });
    await known.recipe.runAll([stage(known, "x", { estimateSeconds: 10 }), stage(known, "y", { estimateSeconds: 20 })]);
    assert.equal(known.seen.find((p) => p.stage?.name === "x")?.eta_s, 30);
    assert.equal(known.seen.find((p) => p.stage?.name === "y")?.eta_s, 20);
    // Once a has run 8 s, c counts at that pace: b starts with 20 + 8 left.
    assert.equal(
      etaAt("b", (p) => p.current === undefined && p.done === 1),
      28,
    );
    // The stage's own progress: its ETA (3 s) plus the rest.
    assert.ok(
      h.seen.some((p) => p.current?.label === "A" && p.eta_s === undefined),
      "c unknown before anything is measured",
    );
    // A driver that runs its stages one call at a time (the experiment): the names left count at the pace measured.
    const oneByOne = harness(["p", "q", "r"], { clock });
    await oneByOne.recipe.run(stage(oneByOne, "p", {}, clock, 2));
    await oneByOne.recipe.run(stage(oneByOne, "q", {}, clock, 2));
    assert.equal(oneByOne.seen.find((p) => p.stage?.name === "q")?.eta_s, 4, "q and r at p's 2 s each");
    const last = readProgress(h.dir)!;
    assert.equal(last.eta_s, 0, "nothing left after the last stage");
    assert.equal(last.done, 3);
  });

  it("records per stage what it read and wrote, its seconds and when it finished, saved after each stage", async () => {
    const clock = { t: Date.parse("2026-12-03T10:00:00Z") };
    const h = harness(["a", "b"], { clock, records: { old: { seconds: 9, finished: "2026-12-01T00:00:00.000Z" } } });
    await h.recipe.runAll([
      stage(h, "a", { reads: ["data/corpus.jsonl"], writes: ["data/bm25/"] }, clock, 3),
      stage(h, "b", { writes: ["runs/b/"] }, clock, 1.5),
    ]);
    assert.deepEqual(h.records, {
      old: { seconds: 9, finished: "2026-12-01T00:00:00.000Z" },
      a: { seconds: 3, finished: "2026-12-03T10:00:03.000Z", reads: ["data/corpus.jsonl"], writes: ["data/bm25/"] },
      b: { seconds: 1.5, finished: "2026-12-03T10:00:04.500Z", writes: ["runs/b/"] },
    });
    assert.deepEqual(
      h.saved.map((r) => Object.keys(r)),
      [
        ["old", "a"],
        ["old", "a", "b"],
      ],
    );
    assert.deepEqual(h.recipe.secondsHere, { a: 3, b: 1.5 });
    assert.deepEqual(
      h.lines.filter((l) => /done in/.test(l)),
      ["[3.0s] a done in 3.0s", "[4.5s] b done in 1.5s"],
    );
    const p = JSON.parse(readFileSync(join(h.dir, "progress.json"), "utf8")) as Progress;
    assert.deepEqual(p.stage, { index: 2, count: 2, name: "b" });
  });

  it("two stages at once (a sweep's arms): progress lists both with their steps, counts each one's spend once, one ETA", async () => {
    const clock = { t: 1_000_000 };
    const h = harness(["first", "a", "b", "after"], { clock });
    let releaseA!: () => void;
    let releaseB!: () => void;
    const heldA = new Promise<void>((r) => (releaseA = r));
    const heldB = new Promise<void>((r) => (releaseB = r));
    const reporting = (name: string, held: Promise<void>, usd: number): Stage => ({
      name,
      isDone: () => Boolean(h.records[name]),
      estimateSeconds: 10,
      spentUsd: () => usd,
      run: async (ctx) => {
        ctx.onProgress({ label: "GRPO", unit: "step", done: 1, planned: 4, usd: usd / 2, eta_s: 6 });
        await held;
      },
    });
    const first: Stage = {
      name: "first",
      isDone: () => Boolean(h.records.first),
      spentUsd: () => 0.5,
      run: async () => {},
    };
    const a = reporting("a", heldA, 0.2);
    const b = reporting("b", heldB, 0.4);
    const after: Stage = { name: "after", isDone: () => false, estimateSeconds: 8, run: async () => {} };
    const all = [first, a, b, after];
    await h.recipe.run(first, all);
    const runningA = h.recipe.run(a, all);
    const runningB = h.recipe.run(b, all);
    await Promise.resolve();
    const both = h.seen[h.seen.length - 1];
    assert.deepEqual(
      both.running?.map((r) => [r.index, r.name, r.current?.done, r.current?.planned]),
      [
        [2, "a", 1, 4],
        [3, "b", 1, 4],
      ],
    );
    // 0.50 finished + 0.10 and 0.20 reported by the two running stages, each once.
    assert.equal(both.usd.toFixed(2), "0.80");
    // (6 s left of a + 6 s left of b + 8 s of "after") over the 2 running side by side.
    assert.equal(both.eta_s, 10);
    assert.equal(readProgress(h.dir)!.running?.length, 2);
    releaseA();
    await runningA;
    const one = h.seen[h.seen.length - 1];
    assert.equal(one.running, undefined, "one stage left: the one-stage shape");
    assert.equal(one.stage?.name, "b");
    assert.equal(one.usd.toFixed(2), "0.90", "a's ledger 0.20 now, b's reported 0.20");
    assert.equal(one.done, 2);
    releaseB();
    await runningB;
    const last = h.seen[h.seen.length - 1];
    assert.equal(last.usd.toFixed(2), "1.10");
    assert.equal(last.eta_s, 8, "only 'after' is left");
    assert.equal("running" in readProgress(h.dir)!, false);
  });
});
