/**
 * A sweep's numbers on per-item scores: each arm against the baseline, paired; the p-values
 * Holm-adjusted across the arms (equal to the direct computation); the ranking; and the best arm
 * named only when it beats the baseline after adjustment and the runner-up too.
 */
import { strict as assert } from "node:assert";
import { bootstrapMeans, percentileInterval } from "../../../../../src/core/base/stats/bootstrap";
import { holmAdjust, signFlipTest } from "../../../../../src/core/base/stats/significance";
import { sweepNumbers } from "../../../../../src/core/steps/experiments/sweep-analysis";
import type { SweepSpec } from "../../../../../src/core/steps/experiments/sweep-spec";

const N = 60;
/** Scores 0/1 per item: `ones` items right, spread by a fixed stride so columns overlap realistically. */
const column = (ones: number, shift = 0) => Array.from({ length: N }, (_, i) => ((i * 7 + shift) % N < ones ? 1 : 0));

function sweep(names: string[], baseline = "base"): SweepSpec {
  return {
    arm: "g",
    baseline,
    max_concurrent_arms: 2,
    params: ["grpo.lr"],
    points: names.map((name, i) => ({ name, values: { "grpo.lr": (i + 1) / 1000 } })),
  };
}
const o = { resamples: 2000, seed: 3 };

describe("experiments: a sweep's ranking", () => {
  it("adjusts the paired p-values across arms by Holm, as the direct computation does, with paired intervals", () => {
    const cols = { base: column(20), a: column(24, 1), b: column(40, 2), c: column(21, 3) };
    const s = sweepNumbers(cols, sweep(["a", "b", "c"]), o);
    const names = ["a", "b", "c"];
    const diffs = (k: string) => cols[k as keyof typeof cols].map((x, i) => x - cols.base[i]);
    const ps = names.map((k, i) => signFlipTest(diffs(k), { resamples: o.resamples, seed: o.seed, stream: 2 + i }));
    const holm = holmAdjust(ps);
    const dist = bootstrapMeans([cols.base, cols.a, cols.b, cols.c], { ...o, stream: 1 });
    for (const [i, k] of names.entries()) {
      const row = s.arms.find((r) => r.name === k)!;
      assert.equal(row.p, ps[i]);
      assert.equal(row.p_holm, holm[i]);
      const d = Float64Array.from(dist[i + 1].map((x, r) => x - dist[0][r]));
      assert.deepEqual(row.minus_baseline!.ci, percentileInterval(d, 0.95));
    }
    assert.deepEqual(
      s.arms.map((r) => [r.name, r.rank]),
      [
        ["b", 1],
        ["a", 2],
        ["c", 3],
      ],
    );
    assert.equal(s.arms[0].versus_baseline, "better");
  });

  it("names the best arm only when it beats the baseline after adjustment and the runner-up too", () => {
    const clear = sweepNumbers({ base: column(15), a: column(20, 1), b: column(50, 2) }, sweep(["a", "b"]), o);
    assert.equal(clear.best, "b");
    assert.match(clear.best_reason, /^b: Δ \+0\.5833 \[.*\] over base, Holm p .*, and above the runner-up a$/);
    // Two arms far above the baseline but not apart from each other: no best arm.
    const tie = sweepNumbers({ base: column(10), a: column(45, 1), b: column(46, 2) }, sweep(["a", "b"]), o);
    assert.equal(tie.best, null);
    assert.match(tie.best_reason, /^b beats base but not the runner-up a \(Δ \+0\.0167 \[/);
    assert.equal(tie.arms.find((r) => r.name === "a")!.versus_baseline, "better");
    // Nothing distinguishable from the baseline: none.
    const flat = sweepNumbers({ base: column(30), a: column(31, 1), b: column(29, 2) }, sweep(["a", "b"]), o);
    assert.equal(flat.best, null);
    assert.match(flat.best_reason, /^a ranks first but is not distinguishable from base \(Δ \+0\.0167, Holm p /);
  });

  it("ranks a baseline that is one of the sweep's arms with them, and names none when it ranks first", () => {
    const s = sweepNumbers({ base: column(0), a: column(40), b: column(20, 1) }, sweep(["a", "b"], "a"), o);
    assert.deepEqual(
      s.arms.map((r) => [r.name, r.rank, r.p_holm === null]),
      [
        ["a", 1, true],
        ["b", 2, false],
      ],
    );
    assert.equal(s.best, null);
    assert.equal(s.best_reason, "the baseline a ranks first: no arm beats it");
    assert.equal(s.arms[1].versus_baseline, "worse");
  });
});

describe("experiments: a sweep's best-arm rule at its boundaries", () => {
  // With no sign flip reaching the observed sum, a sign-flip p is 1 / (resamples + 1): 39 resamples give 0.025,
  // and Holm over two such arms doubles it to exactly α = 0.05.
  const at = (resamples: number) => ({ resamples, seed: 3 });

  it("states the rule with its α and interval level", () => {
    const s = sweepNumbers({ base: column(10), a: column(50, 1) }, sweep(["a"]), o);
    assert.match(s.rule, /Holm-adjusted p < 0\.05 across the arms and its paired 95% interval above 0/);
    assert.equal(s.alpha, 0.05);
    assert.equal(s.level, 0.95);
  });

  it("calls an arm better only when its Holm-adjusted p is below α: exactly α is not enough", () => {
    const cols = { base: column(10), a: column(50, 1), b: column(52, 2) };
    const atAlpha = sweepNumbers(cols, sweep(["a", "b"]), at(39));
    for (const r of atAlpha.arms) {
      assert.equal(r.p, 0.025, `${r.name}: no flip reaches the observed sum`);
      assert.equal(r.p_holm, 0.05, `${r.name}: Holm doubles the smaller p and carries the maximum`);
      assert.ok(r.minus_baseline!.ci.lo > 0);
      assert.equal(r.versus_baseline, "not distinguishable");
    }
    assert.equal(atAlpha.best, null);
    assert.match(
      atAlpha.best_reason,
      /^b ranks first but is not distinguishable from base \(Δ \+0\.7000, Holm p 0\.0500\)$/,
    );
    const below = sweepNumbers(cols, sweep(["a", "b"]), at(79));
    assert.deepEqual(
      below.arms.map((r) => [r.name, r.p_holm, r.versus_baseline]),
      [
        ["b", 0.025, "better"],
        ["a", 0.025, "better"],
      ],
    );
  });

  it("calls an arm worse only when its Holm-adjusted p is below α and its interval lies below 0", () => {
    const cols = { base: column(50), a: column(10, 1), b: column(8, 2) };
    const atAlpha = sweepNumbers(cols, sweep(["a", "b"]), at(39));
    for (const r of atAlpha.arms) {
      assert.equal(r.p_holm, 0.05);
      assert.ok(r.minus_baseline!.ci.hi < 0);
      assert.equal(r.versus_baseline, "not distinguishable");
    }
    const below = sweepNumbers(cols, sweep(["a", "b"]), at(79));
    assert.deepEqual(
      below.arms.map((r) => r.versus_baseline),
      ["worse", "worse"],
    );
    assert.equal(below.best, null);
    assert.match(below.best_reason, /^a ranks first but is worse from base \(Δ -0\.6667, Holm p 0\.0250\)$/);
  });

  it("shows a zero difference with a plus sign", () => {
    const s = sweepNumbers({ base: column(30), a: column(30) }, sweep(["a"]), o);
    assert.equal(s.arms[0].p, 1);
    assert.match(s.best_reason, /^a ranks first but is not distinguishable from base \(Δ \+0\.0000, Holm p 1\.00\)$/);
  });

  it("names a lone arm that beats the baseline, with no runner-up to beat", () => {
    const s = sweepNumbers({ base: column(10), a: column(50, 1) }, sweep(["a"]), o);
    assert.equal(s.best, "a");
    assert.match(s.best_reason, /^a: Δ \+0\.6667 \[\+0\.\d{4}, \+0\.\d{4}\] over base, Holm p 0\.000500$/);
  });

  it("needs no runner-up check when the runner-up is the baseline itself", () => {
    const s = sweepNumbers({ base: column(10), a: column(50, 1) }, sweep(["a", "base"]), o);
    assert.deepEqual(
      s.arms.map((r) => r.name),
      ["a", "base"],
    );
    assert.equal(s.best, "a");
    assert.doesNotMatch(s.best_reason, /runner-up/);
  });

  it("gives the baseline row no comparison, and every row its own point's values", () => {
    const s = sweepNumbers({ base: column(20), a: column(40, 1), b: column(30, 2) }, sweep(["a", "base", "b"]), o);
    const base = s.arms.find((r) => r.name === "base")!;
    assert.deepEqual([base.minus_baseline, base.p, base.p_holm, base.versus_baseline], [null, null, null, null]);
    assert.deepEqual(
      s.arms.map((r) => [r.name, r.values]),
      [
        ["a", { "grpo.lr": 0.001 }],
        ["b", { "grpo.lr": 0.003 }],
        ["base", { "grpo.lr": 0.002 }],
      ],
    );
    const outside = sweepNumbers({ base: column(20), a: column(40, 1) }, sweep(["a"]), o);
    assert.deepEqual(
      outside.arms.map((r) => r.name),
      ["a"],
      "a baseline outside the sweep is not ranked",
    );
  });

  it("breaks a tie on the mean by name", () => {
    const same = column(30);
    const s = sweepNumbers({ base: column(10), c: same, a: same, b: same }, sweep(["c", "a", "b"]), o);
    assert.deepEqual(
      s.arms.map((r) => [r.name, r.rank]),
      [
        ["a", 1],
        ["b", 2],
        ["c", 3],
      ],
    );
    assert.equal(s.best, null, "tied arms are not apart");
  });

  it("names none, and says so, for a sweep with no arms (the spec refuses one; the numbers do not crash on it)", () => {
    const s = sweepNumbers({ base: column(10) }, sweep([]), o);
    assert.deepEqual([s.arms, s.best, s.best_reason], [[], null, "no arms"]);
  });

  it("refuses a sweep with an arm that has no scores", () => {
    assert.throws(() => sweepNumbers({ base: column(10), a: column(20) }, sweep(["a", "b"]), o), /no scores for b/);
  });
});
