/**
 * The pieces every interval and p-value is built from, each on its own and quick (statistics.test.ts
 * checks them together, by simulation): the seeded generator's sequence, which every machine must
 * draw alike; the bootstrap's argument checks, per-resample means and type-7 percentiles; Φ, Φ⁻¹
 * and the power formulas against published values; the one shown interval.
 */
import { strict as assert } from "node:assert";
import {
  bootstrapMeans,
  mean,
  percentileInterval,
  quantileSorted,
  sampleSd,
} from "../../../../../src/core/base/stats/bootstrap";
import {
  minimumDetectableDelta,
  normalCdf,
  normalQuantile,
  questionsForDelta,
} from "../../../../../src/core/base/stats/power";
import { Xoshiro128 } from "../../../../../src/core/base/stats/prng";
import { DEFAULT_RESAMPLES } from "../../../../../src/core/base/stats/resamples";
import {
  inQuestionOrder,
  meanInterval,
  questionOrder,
  SHOWN_INTERVAL,
} from "../../../../../src/core/base/stats/shown-interval";

const close = (got: number, want: number, tol: number, what = "") =>
  assert.ok(Math.abs(got - want) <= tol, `${what}: ${got} vs ${want} (tolerance ${tol})`);

describe("analysis: the seeded generator", () => {
  it("draws the same first numbers for a seed and stream on every machine (the intervals' digits depend on it)", () => {
    const first = (seed: number, stream?: number) => {
      const r = stream === undefined ? new Xoshiro128(seed) : new Xoshiro128(seed, stream);
      return [0, 1, 2, 3].map(() => r.nextUint32());
    };
    assert.deepEqual(first(0), [3809008728, 1133695204, 53579671, 2891528803]);
    assert.deepEqual(first(0, 0), first(0));
    assert.deepEqual(first(1), [3747575237, 2002201300, 2807846406, 1411485998]);
    assert.deepEqual(first(1, 1), [1370328591, 1608343577, 3550569375, 1568319059]);
    // Seeds past 2^32 keep their high part: 2^32 + 1 is not seed 1.
    assert.deepEqual(first(2 ** 32 + 1), [3332640525, 1026972285, 2268652541, 1437113620]);
    assert.deepEqual(first(-7, 3), [4007871998, 1585434761, 2594377327, 1420856375]);
    assert.deepEqual(first(123456789), [2126572053, 2789322852, 2219275108, 1493953202]);
  });

  it("fillBelow, below and nextFloat draw from the same sequence, in [0, n) and [0, 1)", () => {
    for (const n of [1, 2, 7, 401, 2 ** 20]) {
      const a = new Xoshiro128(9, 1);
      const b = new Xoshiro128(9, 1);
      const c = new Xoshiro128(9, 1);
      const out = new Int32Array(300);
      a.fillBelow(out, n);
      const one = Array.from({ length: 300 }, () => b.below(n));
      const raw = Array.from({ length: 300 }, () => c.nextUint32());
      assert.deepEqual([...out], one, `n = ${n}`);
      assert.deepEqual(
        one,
        raw.map((u) => Math.floor((u * n) / 2 ** 32)),
        `n = ${n}`,
      );
      assert.ok(
        one.every((i) => i >= 0 && i < n),
        `n = ${n}`,
      );
      // The state moved on by exactly as many draws.
      const next = c.nextUint32();
      assert.equal(a.nextUint32(), next, `n = ${n}`);
      assert.equal(b.nextFloat(), next / 2 ** 32, `n = ${n}`);
    }
    // Fills continue the sequence from one call to the next.
    const whole = new Int32Array(10);
    new Xoshiro128(3).fillBelow(whole, 1000);
    const parts = new Xoshiro128(3);
    const p1 = new Int32Array(4);
    const p2 = new Int32Array(6);
    parts.fillBelow(p1, 1000);
    parts.fillBelow(p2, 1000);
    assert.deepEqual([...p1, ...p2], [...whole]);
  });
});

describe("analysis: bootstrap pieces", () => {
  it("refuses no values, columns of different lengths and a resample count that is not a positive integer", () => {
    assert.deepEqual(bootstrapMeans([], { resamples: 10, seed: 0 }), []);
    assert.throws(() => bootstrapMeans([[]], { resamples: 10, seed: 0 }), {
      name: "RangeError",
      message: "bootstrap needs at least one value",
    });
    assert.throws(() => bootstrapMeans([[1, 2], [1]], { resamples: 10, seed: 0 }), {
      name: "RangeError",
      message: "bootstrap columns must have the same length",
    });
    assert.throws(() => bootstrapMeans([[1], [1, 2]], { resamples: 10, seed: 0 }), /same length/);
    for (const resamples of [0, -1, 1.5, NaN])
      assert.throws(() => bootstrapMeans([[1, 2]], { resamples, seed: 0 }), {
        name: "RangeError",
        message: "resamples must be a positive integer",
      });
    const [one] = bootstrapMeans([[1, 2]], { resamples: 1, seed: 0 });
    assert.equal(one.length, 1);
  });

  it("gives each column one mean per resample, drawn on stream 0 unless told, and leaves the columns alone", () => {
    for (const n of [1, 2, 3, 4, 5, 6, 9]) {
      const values = Array.from({ length: n }, (_, i) => (i * 7) % 5);
      const before = [...values];
      const [dist] = bootstrapMeans([values], { resamples: 20, seed: 4 });
      const [same] = bootstrapMeans([values], { resamples: 20, seed: 4, stream: 0 });
      assert.deepEqual(dist, same);
      assert.deepEqual(values, before);
      const draw = new Xoshiro128(4, 0);
      const idx = new Int32Array(n);
      for (let r = 0; r < 20; r++) {
        draw.fillBelow(idx, n);
        close(dist[r], [...idx].reduce((s, i) => s + values[i], 0) / n, 1e-12, `n = ${n}, resample ${r}`);
      }
    }
  });

  it("takes the type-7 percentiles (R's default) of the distribution, sorting it in place", () => {
    const dist = Float64Array.from([5, 1, 4, 2, 3]);
    assert.deepEqual(percentileInterval(dist, 0.5), { lo: 2, hi: 4 });
    assert.deepEqual([...dist], [1, 2, 3, 4, 5]);
    const i90 = percentileInterval(Float64Array.from([3, 5, 1, 2, 4]), 0.9);
    close(i90.lo, 1.2, 1e-12, "lo");
    close(i90.hi, 4.8, 1e-12, "hi");
    const i95 = percentileInterval(Float64Array.from([2, 4, 1, 5, 3]));
    close(i95.lo, 1.1, 1e-12, "default level lo");
    close(i95.hi, 4.9, 1e-12, "default level hi");
    const signed = percentileInterval(Float64Array.from([-2, 10, -30]));
    close(signed.lo, -28.6, 1e-12, "negative values lo");
    close(signed.hi, 9.4, 1e-12, "negative values hi");
  });

  it("quantiles of a sorted list interpolate between neighbours and stop at the ends", () => {
    assert.ok(Number.isNaN(quantileSorted([], 0.5)));
    assert.equal(quantileSorted([7], 0.3), 7);
    assert.equal(quantileSorted([1, 3], 0), 1);
    assert.equal(quantileSorted([1, 3], 1), 3);
    assert.equal(quantileSorted([1, 3], 0.25), 1.5);
    assert.equal(quantileSorted([0, 10, 20, 30], 0.5), 15);
    assert.equal(quantileSorted([0, 10, 20, 30], 2 / 3), 20);
  });

  it("mean and sample SD (n − 1), with NaN for no values and 0 for fewer than two", () => {
    assert.ok(Number.isNaN(mean([])));
    assert.equal(mean([2]), 2);
    assert.equal(mean([1, 2, 3, 6]), 3);
    assert.equal(sampleSd([]), 0);
    assert.equal(sampleSd([5]), 0);
    close(sampleSd([1, 2, 3, 4]), Math.sqrt(5 / 3), 1e-15, "sd");
    close(sampleSd([2, 2, 2]), 0, 0, "constant");
    close(sampleSd([0, 10]), Math.sqrt(50), 1e-12, "two values");
  });
});

describe("analysis: normal distribution and power, against published values", () => {
  // scipy.stats.norm.cdf / .sf / .ppf
  it("Φ near the middle (series) and in both tails (continued fraction)", () => {
    close(normalCdf(0), 0.5, 0, "Φ(0)");
    close(normalCdf(1), 0.8413447460685429, 1e-15, "Φ(1)");
    close(normalCdf(-1), 0.15865525393145707, 1e-15, "Φ(−1)");
    close(normalCdf(2.5), 0.9937903346742238, 1e-15, "Φ(2.5)");
    close(1 - normalCdf(4.2), 1.334574901590631e-5, 5e-14, "1 − Φ(4.2)");
    close(1 - normalCdf(4.5), 3.3976731247300535e-6, 1e-15, "1 − Φ(4.5)");
    close(1 - normalCdf(5), 2.866515718791933e-7, 1e-15, "1 − Φ(5)");
    close(1 - normalCdf(7), 1.279812543885835e-12, 1e-15, "1 − Φ(7)");
    close(normalCdf(-5), 2.866515718791933e-7, 1e-15, "Φ(−5)");
    close(normalCdf(-6), 9.865876450376946e-10, 1e-15, "Φ(−6)");
    assert.equal(normalCdf(40), 1);
    assert.equal(normalCdf(-40), 0);
  });

  it("Φ⁻¹ of published quantiles, and refuses p outside (0, 1)", () => {
    close(normalQuantile(0.5), 0, 1e-12, "Φ⁻¹(0.5)");
    close(normalQuantile(0.8), 0.8416212335729143, 1e-12, "Φ⁻¹(0.8)");
    close(normalQuantile(0.975), 1.959963984540054, 1e-12, "Φ⁻¹(0.975)");
    close(normalQuantile(0.025), -1.959963984540054, 1e-12, "Φ⁻¹(0.025)");
    close(normalQuantile(1e-10), -6.361340902404056, 1e-6, "Φ⁻¹(1e-10)");
    for (const p of [0, 1, -0.1, 1.1, NaN])
      assert.throws(() => normalQuantile(p), { name: "RangeError", message: "normalQuantile needs 0 < p < 1" });
  });

  it("MDE and questions needed, with the default α = 0.05 and power 0.8 and with others", () => {
    const z = (a: number, p: number) => normalQuantile(1 - a / 2) + normalQuantile(p);
    close(minimumDetectableDelta({ sd: 0.5, n: 100 }), (z(0.05, 0.8) * 0.5) / 10, 1e-12, "default");
    close(minimumDetectableDelta({ sd: 0.5, n: 100 }), 0.1400792609056484, 1e-12, "published");
    close(minimumDetectableDelta({ sd: 0.5, n: 100, alpha: 0.01, power: 0.9 }), 0.19286904345467556, 1e-12, "α, power");
    assert.equal(minimumDetectableDelta({ sd: 0.5, n: 0 }), Infinity);
    assert.equal(
      minimumDetectableDelta({ sd: 0, n: 0 }),
      Infinity,
      "no questions: nothing is detectable, even at SD 0",
    );
    assert.equal(minimumDetectableDelta({ sd: 0.5, n: -3 }), Infinity);
    assert.equal(questionsForDelta({ sd: 0.5, delta: 0.1 }), 197);
    assert.equal(questionsForDelta({ sd: 0.5, delta: 0.1, alpha: 0.01, power: 0.9 }), 372);
    assert.equal(questionsForDelta({ sd: 0.5, delta: 0.1, alpha: 0.05 }), 197);
    assert.equal(questionsForDelta({ sd: 0.5, delta: 0.1, power: 0.8 }), 197);
  });
});

describe("analysis: the one shown interval", () => {
  it("is 10,000 resamples, seed 0, stream 0, 95%", () => {
    assert.deepEqual(SHOWN_INTERVAL, { resamples: 10_000, seed: 0, stream: 0, level: 0.95 });
    assert.equal(DEFAULT_RESAMPLES, 10_000);
  });

  it("orders questions by id without touching the caller's list, ties kept in place", () => {
    const ids = ["q10", "q2", "a", "q1"];
    assert.deepEqual(questionOrder(ids), ["a", "q1", "q10", "q2"]);
    assert.deepEqual(ids, ["q10", "q2", "a", "q1"]);
    const items = [
      { id: "b", k: 1 },
      { id: "a", k: 2 },
      { id: "b", k: 3 },
      { id: "a", k: 4 },
      { id: "c", k: 5 },
    ];
    assert.deepEqual(
      inQuestionOrder(items).map((x) => x.k),
      [2, 4, 1, 3, 5],
    );
    assert.deepEqual(
      items.map((x) => x.k),
      [1, 2, 3, 4, 5],
    );
  });

  it("draws a run's mean and interval exactly as the shown settings say", () => {
    const values = Array.from({ length: 23 }, (_, i) => ((i * 37) % 11) / 10);
    const [dist] = bootstrapMeans([values], { resamples: 10_000, seed: 0, stream: 0 });
    const want = percentileInterval(dist, 0.95);
    const got = meanInterval(values);
    assert.equal(got.mean, mean(values));
    assert.deepEqual(got.ci, want);
    assert.ok(got.ci.lo < got.mean && got.mean < got.ci.hi);
  });
});
