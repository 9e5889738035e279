/**
 * The statistics under `agent-lab ablate`, checked against truths computed another way: coverage
 * on simulated data with a known mean, exact binomial tails in BigInt, exact sign-flip
 * enumeration, a textbook Holm example, and the √n law of the MDE.
 */
import { strict as assert } from "node:assert";
import {
  bootstrapMeans,
  holmAdjust,
  mcnemarExact,
  minimumDetectableDelta,
  normalCdf,
  normalQuantile,
  percentileInterval,
  questionsForDelta,
  signFlipTest,
} from "../../../../../src/core/steps/ablate";
import { Xoshiro128 } from "../../../../../src/core/base/stats/prng";

/** An F1-like score: 0 with prob 0.4, 1 with prob 0.35, else uniform(0, 1). Mean 0.35 + 0.25 × 0.5 = 0.475. */
const TRUE_MEAN = 0.475;
function f1Like(rng: Xoshiro128): number {
  const u = rng.nextFloat();
  if (u < 0.4) return 0;
  if (u < 0.75) return 1;
  return rng.nextFloat();
}

const width = (i: { lo: number; hi: number }) => i.hi - i.lo;

describe("analysis: bootstrap intervals", () => {
  it("95% percentile intervals cover a known mean in about 95% of 200 simulated datasets", () => {
    const data = new Xoshiro128(12345, 7);
    let covered = 0;
    const datasets = 200;
    for (let s = 0; s < datasets; s++) {
      const values = Float64Array.from({ length: 200 }, () => f1Like(data));
      const [dist] = bootstrapMeans([values], { resamples: 2000, seed: s });
      const ci = percentileInterval(dist, 0.95);
      if (ci.lo <= TRUE_MEAN && TRUE_MEAN <= ci.hi) covered++;
    }
    // Binomial(200, 0.95) has SD ≈ 3.1 coverages; percentile intervals run slightly narrow at n = 200.
    assert.ok(covered >= 180 && covered <= 197, `covered ${covered}/${datasets}`);
  });

  it("is deterministic for a seed and changes with it", () => {
    const rng = new Xoshiro128(1);
    const values = Float64Array.from({ length: 300 }, () => f1Like(rng));
    const a = percentileInterval(bootstrapMeans([values], { resamples: 1000, seed: 3 })[0]);
    const b = percentileInterval(bootstrapMeans([values], { resamples: 1000, seed: 3 })[0]);
    const c = percentileInterval(bootstrapMeans([values], { resamples: 1000, seed: 4 })[0]);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  });

  it("resamples question indices once per resample for every column (paired)", () => {
    const rng = new Xoshiro128(2);
    const a = Float64Array.from({ length: 400 }, () => f1Like(rng));
    const b = Float64Array.from(a, (v) => Math.min(1, v + (rng.nextFloat() < 0.2 ? 0.5 : 0)));
    const [da, db] = bootstrapMeans([a, b], { resamples: 500, seed: 9 });
    const [dd] = bootstrapMeans([Float64Array.from(b, (v, i) => v - a[i])], { resamples: 500, seed: 9 });
    // The same indices for both runs ⇒ each resample's Δ of means is the mean of the per-question Δ.
    for (let r = 0; r < 500; r++) assert.ok(Math.abs(db[r] - da[r] - dd[r]) < 1e-12, `resample ${r}`);
  });

  // The gather sums four indices at a time and the rest one by one: n = 7 and 401 leave a tail of
  // 3 and 1 (every other test here uses a multiple of 4, where a lost tail index would not show).
  it("a resample's mean is the mean of the values at its indices, for n with a tail (7, 401), and a constant column gives the constant", () => {
    for (const n of [1, 2, 3, 5, 7, 401]) {
      const rng = new Xoshiro128(n);
      const values = Float64Array.from({ length: n }, () => f1Like(rng));
      const constant = new Float64Array(n).fill(0.3);
      const resamples = 50;
      const [dist, flat] = bootstrapMeans([values, constant], { resamples, seed: 11, stream: 2 });
      // The same stream the bootstrap draws from: resample r uses the r-th block of n indices.
      const draw = new Xoshiro128(11, 2);
      const idx = new Int32Array(n);
      for (let r = 0; r < resamples; r++) {
        draw.fillBelow(idx, n);
        let sum = 0;
        for (const i of idx) sum += values[i];
        assert.ok(Math.abs(dist[r] - sum / n) < 1e-12, `n = ${n}, resample ${r}: ${dist[r]} vs ${sum / n}`);
        assert.ok(Math.abs(flat[r] - 0.3) < 1e-15, `n = ${n}, resample ${r}: constant column gave ${flat[r]}`);
      }
    }
  });

  it("the paired Δ interval is much narrower than an unpaired one for correlated runs", () => {
    const rng = new Xoshiro128(3);
    const base = Float64Array.from({ length: 500 }, () => f1Like(rng));
    // A checkpoint that fixes 10% of questions and breaks 3%: strongly correlated with the base.
    const run = Float64Array.from(base, (v) => {
      const u = rng.nextFloat();
      return u < 0.1 ? 1 : u < 0.13 ? 0 : v;
    });
    const [pa, pb] = bootstrapMeans([base, run], { resamples: 4000, seed: 5 });
    const paired = percentileInterval(Float64Array.from(pb, (v, r) => v - pa[r]));
    // Unpaired: each run resampled on its own (independent streams), then differenced.
    const [ua] = bootstrapMeans([base], { resamples: 4000, seed: 5, stream: 1 });
    const [ub] = bootstrapMeans([run], { resamples: 4000, seed: 5, stream: 2 });
    const unpaired = percentileInterval(Float64Array.from(ub, (v, r) => v - ua[r]));
    assert.ok(
      width(paired) < 0.5 * width(unpaired),
      `paired ${width(paired).toFixed(4)} vs unpaired ${width(unpaired).toFixed(4)}`,
    );
    assert.ok(paired.lo > 0, "the paired interval sees the improvement");
    assert.ok(unpaired.lo < 0, "the unpaired one cannot");
  });

  // CPU time, not wall time: the test machine's cores are shared, and waiting for one is not our cost.
  it("takes < 100 ms of CPU for 500 paired questions × 10,000 resamples (best of 5)", () => {
    const rng = new Xoshiro128(4);
    const a = Float64Array.from({ length: 500 }, () => f1Like(rng));
    const b = Float64Array.from({ length: 500 }, () => f1Like(rng));
    let best = Infinity;
    for (let t = 0; t < 5; t++) {
      const start = process.cpuUsage();
      const [da, db] = bootstrapMeans([a, b], { resamples: 10_000, seed: t });
      percentileInterval(Float64Array.from(db, (v, r) => v - da[r]));
      const used = process.cpuUsage(start);
      best = Math.min(best, (used.user + used.system) / 1000);
    }
    assert.ok(best < 100, `best ${best.toFixed(1)} ms`);
  });
});

/** Exact two-sided McNemar p from BigInt binomial coefficients: 2 · Σ_{i ≤ min} C(n, i) / 2^n, capped at 1. */
function mcnemarBigInt(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let coef = 1n;
  let sum = 0n;
  for (let i = 0; i <= k; i++) {
    sum += coef;
    coef = (coef * BigInt(n - i)) / BigInt(i + 1);
  }
  // 2·sum / 2^n with 60 bits of precision kept through the division.
  const scaled = (2n * sum * (1n << 60n)) / (1n << BigInt(n));
  return Math.min(1, Number(scaled) / 2 ** 60);
}

describe("analysis: McNemar exact test", () => {
  it("hard-checks small known cases", () => {
    assert.equal(mcnemarExact(0, 5), 0.0625); // 2 / 32
    assert.equal(mcnemarExact(5, 0), 0.0625);
    assert.equal(mcnemarExact(0, 0), 1);
    assert.equal(mcnemarExact(4, 4), 1);
    assert.ok(Math.abs(mcnemarExact(1, 9) - 0.021484375) < 1e-15); // 2 · (1 + 10) / 1024
    assert.ok(Math.abs(mcnemarExact(2, 3) - 1) < 1e-15);
  });

  it("matches an independent BigInt binomial tail for every b, c ≤ 40 and for large counts", () => {
    for (let b = 0; b <= 40; b++) {
      for (let c = 0; c <= 40; c++) {
        const want = mcnemarBigInt(b, c);
        const got = mcnemarExact(b, c);
        assert.ok(Math.abs(got - want) <= 1e-12 * Math.max(1e-300, want) + 1e-15, `b=${b} c=${c}: ${got} vs ${want}`);
      }
    }
    for (const [b, c] of [
      [120, 160],
      [250, 180],
      [700, 800],
    ]) {
      const want = mcnemarBigInt(b, c);
      assert.ok(Math.abs(mcnemarExact(b, c) - want) <= 1e-9 * want, `b=${b} c=${c}`);
    }
  });

  it("refuses counts that are not non-negative integers", () => {
    // Either count, each rule: a mutation test found c's sign unchecked by any test.
    const refused = { name: "RangeError", message: "discordant counts must be non-negative integers" };
    for (const [b, c] of [
      [-1, 2],
      [2, -1],
      [1.5, 2],
      [2, 1.5],
    ])
      assert.throws(() => mcnemarExact(b, c), refused, `${b}, ${c}`);
  });
});

describe("analysis: paired sign-flip test", () => {
  /** Exact two-sided p by enumerating all 2^n sign patterns. */
  function exactSignFlip(d: number[]): number {
    const n = d.length;
    const observed = Math.abs(d.reduce((s, v) => s + v, 0));
    let hits = 0;
    for (let mask = 0; mask < 1 << n; mask++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += mask & (1 << i) ? d[i] : -d[i];
      if (Math.abs(s) >= observed - 1e-12) hits++;
    }
    return hits / (1 << n);
  }

  it("agrees with exact enumeration on small samples (Monte Carlo, 40,000 draws)", () => {
    const samples = [
      [0.5, 1, 0.25, -0.1, 0.8, 0, 0.4, -0.3, 1, 0.2, 0.6, -0.5],
      [1, -1, 1, -1, 1, 0.5, -0.5, 0.25, 0, 1, -1, 0.1],
      [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, -0.05, 0.02],
    ];
    for (const d of samples) {
      const want = exactSignFlip(d);
      const got = signFlipTest(d, { resamples: 40_000, seed: 1 });
      // SD of a Monte Carlo proportion at 40,000 draws is ≤ 0.0025.
      assert.ok(Math.abs(got - want) < 0.01, `${got} vs exact ${want}`);
    }
  });

  it("gives p = 1 when nothing changed and a small p for a clear shift", () => {
    assert.equal(signFlipTest(new Float64Array(100), { resamples: 1000, seed: 0 }), 1);
    const shifted = Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? -0.5 : 0.5));
    assert.ok(signFlipTest(shifted, { resamples: 2000, seed: 0 }) < 0.001);
    // Never 0: the smallest Monte Carlo p is 1 / (R + 1).
    assert.equal(signFlipTest(shifted, { resamples: 999, seed: 0 }), 1 / 1000);
  });

  // Mutation-testing gap (issue 31): every test above either has n ≤ 32 (one 32-bit draw of signs) or a p too
  // small to tell; here the only differences sit past the first 32, so reusing spent sign bits shows.
  it("draws exactly R resamples: one question's difference is always as far from 0, so p is exactly 1", () => {
    assert.equal(signFlipTest([0.5], { resamples: 100, seed: 0 }), 1);
    assert.equal(signFlipTest([-2], { resamples: 7, seed: 1 }), 1);
  });

  it("draws fresh sign bits for every 32 questions (n = 40, the differences in the last 8)", () => {
    const d = [...new Array<number>(32).fill(0), ...new Array<number>(8).fill(1)];
    for (const stream of [0, 1]) {
      const p = signFlipTest(d, { resamples: 20_000, seed: 3, stream });
      assert.ok(Math.abs(p - 2 / 256) < 0.003, `stream ${stream}: ${p} vs exact ${2 / 256}`);
    }
    assert.notEqual(
      signFlipTest(d, { resamples: 2000, seed: 3, stream: 0 }),
      signFlipTest(d, { resamples: 2000, seed: 3, stream: 1 }),
      "another stream is another sequence of draws",
    );
  });
});

describe("analysis: Holm correction", () => {
  it("matches the textbook example (R: p.adjust(c(.01,.04,.03,.005), 'holm'))", () => {
    const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((want, i) =>
      assert.ok(Math.abs(adjusted[i] - want) < 1e-12, `${i}: ${adjusted[i]}`),
    );
  });

  it("keeps adjusted p monotone in the raw order, caps at 1, and leaves one test alone", () => {
    holmAdjust([0.3, 0.2, 0.5]).forEach((p) => assert.ok(Math.abs(p - 0.6) < 1e-12, String(p)));
    assert.deepEqual(holmAdjust([0.04]), [0.04]);
    assert.deepEqual(holmAdjust([0.9, 0.8]), [1, 1]);
    assert.deepEqual(holmAdjust([]), []);
  });
});

describe("analysis: normal distribution and minimum detectable Δ", () => {
  it("Φ and Φ⁻¹ match published values", () => {
    assert.ok(Math.abs(normalQuantile(0.975) - 1.959963984540054) < 1e-9);
    assert.ok(Math.abs(normalQuantile(0.8) - 0.8416212335729143) < 1e-9);
    assert.ok(Math.abs(normalCdf(1.959963984540054) - 0.975) < 1e-12);
    assert.ok(Math.abs(normalCdf(-3) - 0.0013498980316301) < 1e-13);
    assert.ok(Math.abs(normalCdf(5) - 0.9999997133484281) < 1e-13);
  });

  it("MDE = (z₀.₉₇₅ + z₀.₈) · SD / √n, and halving n grows it by √2", () => {
    const mde500 = minimumDetectableDelta({ sd: 0.4, n: 500 });
    assert.ok(Math.abs(mde500 - (2.8015852181 * 0.4) / Math.sqrt(500)) < 1e-9, String(mde500));
    const mde250 = minimumDetectableDelta({ sd: 0.4, n: 250 });
    assert.ok(Math.abs(mde250 / mde500 - Math.SQRT2) < 1e-12);
    assert.ok(minimumDetectableDelta({ sd: 0.4, n: 500, power: 0.9 }) > mde500, "more power needs a bigger Δ");
    assert.equal(questionsForDelta({ sd: 0.4, delta: mde500 * (1 + 1e-9) }), 500);
    assert.equal(
      questionsForDelta({ sd: 0.4, delta: (mde500 * (1 + 1e-9)) / 2 }),
      2000,
      "half the Δ, four times the questions",
    );
  });
});
