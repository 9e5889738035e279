/**
 * bootstrapMeans counts columns of 0s and 1s (packed) and sums the others two at a time: the
 * resampled means must be the bits the plain gather gives (one column at a time, four
 * accumulators), which every interval Agent Lab has printed was drawn with.
 */
import { strict as assert } from "node:assert";
import { bootstrapMeans } from "../../../../../src/core/base/stats/bootstrap";
import { Xoshiro128 } from "../../../../../src/core/base/stats/prng";
import { signFlipTest } from "../../../../../src/core/base/stats/significance";

/** The plain gather, as bootstrapMeans computed every column before. */
function plainMeans(columns: Float64Array[], resamples: number, seed: number, stream: number): Float64Array[] {
  const n = columns[0].length;
  const out = columns.map(() => new Float64Array(resamples));
  const idx = new Int32Array(n);
  const rng = new Xoshiro128(seed, stream);
  for (let r = 0; r < resamples; r++) {
    rng.fillBelow(idx, n);
    columns.forEach((values, c) => {
      const s = [0, 0, 0, 0];
      let i = 0;
      for (; i + 3 < n; i += 4) for (let a = 0; a < 4; a++) s[a] += values[idx[i + a]];
      for (; i < n; i++) s[0] += values[idx[i]];
      out[c][r] = (s[0] + s[1] + (s[2] + s[3])) / n;
    });
  }
  return out;
}

describe("statistics: bootstrap sums", () => {
  const rng = new Xoshiro128(42, 7);
  const partial = [0, 1, 0.5, 2 / 3, 0.4, 0.8, 0.25, 1 / 7];
  const scores = (n: number) => Float64Array.from({ length: n }, () => partial[rng.below(partial.length)]);
  const zeroOne = (n: number) => Float64Array.from({ length: n }, () => rng.below(2));

  for (const n of [1, 3, 7, 101, 1000, 40_000]) {
    it(`gives the plain gather's bits: ${n} questions, partial-credit and 0/1 columns mixed`, () => {
      const columns = [scores(n), zeroOne(n), scores(n), zeroOne(n), scores(n), zeroOne(n), zeroOne(n)];
      const resamples = n > 10_000 ? 20 : 200;
      const fast = bootstrapMeans(columns, { resamples, seed: 3, stream: 1 });
      const plain = plainMeans(columns, resamples, 3, 1);
      fast.forEach((dist, c) => assert.deepEqual(dist, plain[c], `column ${c}`));
    });
  }

  it("gives the plain gather's bits for one column of either kind, and all 0s or all 1s", () => {
    for (const col of [scores(57), zeroOne(57), new Float64Array(57), new Float64Array(57).fill(1)]) {
      assert.deepEqual(bootstrapMeans([col], { resamples: 100, seed: 0 }), plainMeans([col], 100, 0, 0));
    }
  });
});

/** The sign-flip test's plain loop: one add per question, in order (as signFlipTest summed before its tables of four). */
function plainSignFlip(d: Float64Array, resamples: number, seed: number, stream: number): number {
  let observed = 0;
  for (const v of d) observed += v;
  observed = Math.abs(observed);
  if (observed === 0) return 1;
  const rng = new Xoshiro128(seed, stream);
  let hits = 0;
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    let bits = 0;
    for (let i = 0; i < d.length; i++) {
      if ((i & 31) === 0) bits = rng.nextUint32();
      s += d[i] * (((bits & 1) << 1) - 1);
      bits >>>= 1;
    }
    if (Math.abs(s) >= observed * (1 - 1e-12)) hits++;
  }
  return (1 + hits) / (1 + resamples);
}

describe("statistics: the sign-flip test's sums", () => {
  it("skips zero differences and gives the plain loop's p (its sums in fours of questions, the same hits)", () => {
    const rng = new Xoshiro128(9, 1);
    const steps = [-1, -0.5, -1 / 3, 0, 0, 0, 0, 0.25, 2 / 3, 1];
    for (const n of [1, 3, 5, 31, 33, 100, 2000, 10_000]) {
      const d = Float64Array.from({ length: n }, () => steps[rng.below(steps.length)] + 0.01);
      d.forEach((v, i) => (d[i] = Math.abs(v - 0.01) < 1e-9 ? 0 : v));
      for (const stream of [0, 2])
        assert.equal(signFlipTest(d, { resamples: 300, seed: 0, stream }), plainSignFlip(d, 300, 0, stream), `n ${n}`);
    }
  });
});
