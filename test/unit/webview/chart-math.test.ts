/**
 * The chart module's arithmetic on its own: debiased EMA smoothing checked against a reference
 * computed independently here (the closed form of the weighted average, not the recurrence),
 * number formats, constant detection, alignment of several runs on one step axis, per-pixel-column
 * (M4) decimation against a brute-force column scan, and the dashboard's metric groups and healthy bands.
 */
import assert from "node:assert/strict";
import {
  alignSeries,
  emaSmooth,
  formatNumber,
  formatTick,
  formatUsdValue,
  isConstant,
  m4Indices,
  nearestIndex,
  niceStep,
  niceTicks,
} from "../../../webview/shared/chart-math";
import { healthyBand, metricGroup, orderMetrics } from "../../../src/core/views/trace/metric-groups";

/** TensorBoard's smoothed value at n: Σ (1−w) w^(n−k) y_k / (1 − w^(n+1)), over the finite points so far. */
function referenceEma(values: (number | null)[], w: number): (number | null)[] {
  const finite: number[] = [];
  return values.map((v) => {
    if (v === null) return null;
    finite.push(v);
    const n = finite.length - 1;
    let num = 0;
    for (let k = 0; k <= n; k++) num += (1 - w) * w ** (n - k) * finite[k];
    return num / (1 - w ** (n + 1));
  });
}

/** Per pixel column, the lowest and highest value of the indices given (brute force). */
function columnExtremes(
  steps: number[],
  values: (number | null)[],
  idx: number[],
  xMin: number,
  xMax: number,
  cols: number,
): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  for (const i of idx) {
    const v = values[i];
    if (v === null || steps[i] < xMin || steps[i] > xMax) continue;
    const c = Math.min(cols - 1, Math.floor(((steps[i] - xMin) / (xMax - xMin)) * cols));
    const [lo, hi] = out.get(c) ?? [v, v];
    out.set(c, [Math.min(lo, v), Math.max(hi, v)]);
  }
  return out;
}

describe("webview: chart math", () => {
  it("M4 decimation keeps every pixel column's min and max (a stride sample of the same size does not)", () => {
    const n = 10_000;
    const steps = Array.from({ length: n }, (_, i) => i + 1);
    // Flat noise with one-step spikes up and down at steps no regular stride lines up with.
    let s = 3;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const values: (number | null)[] = steps.map((x) =>
      x % 97 === 0 ? 5 + rnd() : x % 89 === 0 ? -5 - rnd() : rnd() * 0.1,
    );
    values[5000] = null; // a gap is skipped, not kept as a point
    const smooth = emaSmooth(values, 0.6);
    const all = steps.map((_, i) => i);
    for (const [xMin, xMax, cols] of [
      [1, n, 400],
      [4000, 4600, 400],
      [1, n, 37],
    ] as const) {
      const kept = m4Indices(steps, [values, smooth], xMin, xMax, cols);
      assert.ok(kept.length < n / 2 || xMax - xMin < 2 * cols, `${kept.length} of ${n} kept for ${cols} columns`);
      assert.deepEqual(
        kept,
        [...kept].sort((a, b) => a - b),
      );
      for (const series of [values, smooth]) {
        assert.deepEqual(
          columnExtremes(steps, series, kept, xMin, xMax, cols),
          columnExtremes(steps, series, all, xMin, xMax, cols),
        );
      }
      // The steps just outside the range are kept, so lines leave the plot at the right slope.
      if (xMin > 1) assert.ok(kept.includes(steps.indexOf(xMin) - 1));
      if (xMax < n) assert.ok(kept.includes(steps.indexOf(xMax) + 1));
    }
    // The same check fails for plain stride sampling with as many points: it misses spikes.
    const kept = m4Indices(steps, [values], 1, n, 400);
    const stride = Math.ceil(n / kept.length);
    const strided = all.filter((i) => i % stride === 0);
    assert.notDeepEqual(
      columnExtremes(steps, values, strided, 1, n, 400),
      columnExtremes(steps, values, all, 1, n, 400),
    );
    assert.deepEqual(m4Indices([], [[]], 0, 1, 10), []);
  });

  it("EMA smoothing equals the debiased closed form, skips gaps, and is the identity at 0", () => {
    const ys = [0.1, 0.5, null, 0.2, 0.9, 0.4, 0.45, null, 1.2];
    for (const w of [0.3, 0.6, 0.9, 0.99]) {
      const got = emaSmooth(ys, w);
      const want = referenceEma(ys, w);
      got.forEach((g, i) => {
        if (want[i] === null) assert.equal(g, null);
        else assert.ok(Math.abs(g! - want[i]!) < 1e-12, `w=${w} i=${i}: ${g} vs ${want[i]}`);
      });
    }
    assert.deepEqual(emaSmooth(ys, 0), ys);
    // Debiased: the first smoothed point is the first value, not pulled toward 0.
    assert.equal(emaSmooth([5, 5, 5], 0.9)[0], 5);
    assert.ok(emaSmooth([5, 5, 5], 0.9).every((v) => Math.abs(v! - 5) < 1e-12));
  });

  it("formats numbers for ticks and readouts", () => {
    assert.equal(formatNumber(0.002), "2.0e-3");
    assert.equal(formatNumber(154.4766), "154");
    assert.equal(formatNumber(0.2494), "0.249");
    assert.equal(formatNumber(12.345), "12.3");
    assert.equal(formatNumber(3), "3");
    assert.equal(formatNumber(0), "0");
    assert.equal(formatNumber(-0.5), "-0.5");
    assert.equal(formatNumber(250000), "2.5e5");
    assert.equal(formatNumber(null), "–");
    assert.equal(formatNumber(Number.NaN), "–");
    assert.equal(formatUsdValue(0.0123), "$0.01");
    assert.equal(formatUsdValue(0.00123), "$0.0012");
    assert.equal(formatUsdValue(1.5), "$1.50");
  });

  it("writes axis ticks rounded to the axis's step: float noise never prints (-2.8e-17 is 0.00)", () => {
    assert.equal(formatTick(-2.8e-17, 0.05), "0.00");
    assert.equal(formatTick(1e-17, 0.05), "0.00");
    assert.equal(formatTick(-2.8e-17, 0.1), "0.0");
    assert.equal(formatTick(-2.8e-17, 1), "0");
    assert.equal(formatTick(0.15000000000000002, 0.05), "0.15");
    assert.equal(formatTick(-0.30000000000000004, 0.1), "-0.3");
    assert.equal(formatTick(0.1, 0.05), "0.10", "every tick of an axis has its step's decimals");
    assert.equal(formatTick(-3.0000000000000004, 1), "-3");
    assert.equal(formatTick(20, 5), "20");
    assert.equal(formatTick(2e-4, 1e-4), "2.0e-4", "tiny steps keep the short exponential form");
    assert.equal(formatTick(0, 1e-4), "0");
    // The forest plot's axis: Δs and CIs around 0 whose ticks, summed step by step, gave -2.8e-17.
    const [lo, hi] = [-0.2875, 0.1375];
    const step = niceStep(lo, hi, 5);
    assert.equal(step, 0.1);
    const labels = niceTicks(lo, hi, 5).map((t) => formatTick(t, step));
    assert.deepEqual(labels, ["-0.2", "-0.1", "0.0", "0.1"]);
    for (const [a, b, n] of [
      [-0.13, 0.07, 4],
      [-1.05, 0.35, 5],
      [-0.0375, 0.0125, 5],
      [-2.6, 0.4, 5],
    ] as const) {
      const st = niceStep(a, b, n);
      for (const t of niceTicks(a, b, n)) assert.doesNotMatch(formatTick(t, st), /e/, `${a}…${b}: ${t}`);
    }
  });

  it("finds constant series (gaps ignored; empty is not constant)", () => {
    assert.equal(isConstant([32, 32, null, 32]), true);
    assert.equal(isConstant([0.1 + 0.2, 0.3]), true, "float noise");
    assert.equal(isConstant([1, 1.001]), false);
    assert.equal(isConstant([]), false);
  });

  it("aligns runs on the union of their steps", () => {
    const a = alignSeries([
      {
        label: "a",
        points: [
          [1, 0.1],
          [2, 0.2],
          [4, 0.4],
        ],
      },
      {
        label: "b",
        points: [
          [2, 1],
          [3, 2],
        ],
      },
    ]);
    assert.deepEqual(a.steps, [1, 2, 3, 4]);
    assert.deepEqual(a.values, [
      [0.1, 0.2, null, 0.4],
      [null, 1, 2, null],
    ]);
    assert.equal(nearestIndex(a.steps, 2.4), 1);
    assert.equal(nearestIndex(a.steps, 2.6), 2);
    assert.equal(nearestIndex(a.steps, 99), 3);
  });

  it("groups metrics (Agent Lab and cookbook names) and gives the recipe's healthy bands", () => {
    assert.deepEqual(
      orderMetrics([
        "usd",
        "lr",
        "tokens",
        "skipped_groups",
        "reward",
        "seconds",
        "env/all/reward/total",
        "optim/kl_sample_train_v1",
        "mystery",
      ]),
      [
        "reward",
        "env/all/reward/total",
        "skipped_groups",
        "tokens",
        "usd",
        "seconds",
        "lr",
        "optim/kl_sample_train_v1",
        "mystery",
      ],
    );
    assert.equal(metricGroup("env/all/by_group/frac_mixed"), "health");
    assert.equal(metricGroup("time/total"), "throughput");
    assert.deepEqual(
      { ...healthyBand("skipped_groups", [0.5]), advice: "" },
      { lo: 0.2, hi: 0.6, range: "0.2–0.6", advice: "" },
    );
    assert.equal(healthyBand("budget_hit", [0])!.hi, 0.05);
    const tokens = healthyBand("tokens", [100, 110, 120, 500])!;
    assert.equal(tokens.lo, 55);
    assert.equal(tokens.hi, 165);
    assert.equal(healthyBand("searches", [2, 2, 2])!.lo, 1.5);
    assert.equal(healthyBand("searches", [0, 0])!, undefined, "no start to be stable around");
    assert.equal(healthyBand("reward", [0.5]), undefined);
  });

  it("skipped_groups' range is the recipe's at groups of 8, and the same solve rates' range at the run's group size", () => {
    const recipe = healthyBand("skipped_groups", [0.5], { group: 8 })!;
    assert.deepEqual([recipe.lo, recipe.hi, recipe.range], [0.2, 0.6, "0.2–0.6"]);
    // The offline defaults' groups of 4: the default run sits near 0.69, healthy for its group size.
    const four = healthyBand("skipped_groups", [0.69], { group: 4 })!;
    assert.deepEqual([four.lo!.toFixed(2), four.hi!.toFixed(2)], ["0.45", "0.77"]);
    assert.ok(0.69 >= four.lo! && 0.69 <= four.hi!);
    assert.match(four.range, /^0\.45–0\.77 for groups of 4 \(the recipe's 0\.2–0\.6 is for groups of 8\)$/);
  });

  it("budget_hit's advice matches the run's own numbers (the smoke run: budget hit with 0 searches)", () => {
    // The smoke pipeline's runs/grpo/metrics.jsonl, as it wrote them (the fields the advice reads).
    const smoke = [
      { step: 1, skipped_groups: 1, searches: 0, budget_hit: 0.75, tokens: 25.25 },
      { step: 2, skipped_groups: 1, searches: 0, budget_hit: 1, tokens: 32 },
    ];
    const metric = (key: string) => smoke.map((r) => (r as Record<string, number>)[key]);
    const band = healthyBand("budget_hit", metric("budget_hit"), { metric, group: 2 })!;
    assert.doesNotMatch(band.advice, /circles/);
    assert.match(band.advice, /^Hit with 0\.00 searches per episode: the replies run into the token limit \(29 tokens/);
    // A run that searches, and hits the budget: that one is searching in circles.
    const searching = (key: string) => (key === "searches" ? [2.4, 2.6] : [0.1, 0.2]);
    assert.match(
      healthyBand("budget_hit", [0.1, 0.2], { metric: searching })!.advice,
      /searches in circles \(2\.50 searches/,
    );
  });
});
