/**
 * Percentile bootstrap for means of paired columns. One resample draws n question indices once
 * and applies them to every column, so differences between columns (runs) are paired: the
 * question-to-question variation that both runs share cancels out of the Δ interval.
 *
 * Hot loop: one reused index buffer filled by an inlined PRNG, then gather-sums over it with no
 * allocation per resample. At 10,000 questions × 10,000 resamples (Compare of two large runs: 10^8
 * draws) the sums are most of the time, so columns are summed in ways that give the plain
 * gather's bits: a column of 0s and 1s is counted (integers add exactly in any order), several
 * columns to one packed integer; other columns go two at a time through one interleaved array
 * (both values of a draw in one cache line), each summed by gatherMean's four accumulators in
 * gatherMean's order.
 */
import { Xoshiro128 } from "./prng";

export interface Interval {
  lo: number;
  hi: number;
}

export interface BootstrapOptions {
  resamples: number;
  seed: number;
  /** Independent PRNG stream for the same seed (default 0). */
  stream?: number;
}

const isZeroOne = (col: ArrayLike<number>) => {
  for (let i = 0; i < col.length; i++) if (col[i] !== 0 && col[i] !== 1) return false;
  return true;
};

/** Columns of 0s and 1s packed `perPack` to an int32, a field of `bits` each (a count up to n fits one). */
interface CountedPack {
  columns: number[];
  packed: Int32Array;
}

/**
 * Bootstrap distribution of the mean of each column. `columns` all have length n. Returns one
 * Float64Array of `resamples` resampled means per column, in resample order (unsorted), so
 * callers can combine columns resample by resample (e.g. Δ = mean_b − mean_a).
 */
export function bootstrapMeans(columns: readonly ArrayLike<number>[], options: BootstrapOptions): Float64Array[] {
  const k = columns.length;
  if (k === 0) return [];
  const n = columns[0].length;
  if (n === 0) throw new RangeError("bootstrap needs at least one value");
  for (const col of columns) if (col.length !== n) throw new RangeError("bootstrap columns must have the same length");
  const resamples = options.resamples;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError("resamples must be a positive integer");

  const out = columns.map(() => new Float64Array(resamples));
  const counted = columns.flatMap((col, c) => (isZeroOne(col) ? [c] : []));
  const summed = columns.flatMap((_, c) => (counted.includes(c) ? [] : [c]));
  // Counts: a field of `bits` holds up to n; fields of one int32 add without carrying into the next.
  const bits = 32 - Math.clz32(n);
  const perPack = Math.max(1, Math.floor(31 / bits));
  const mask = bits >= 31 ? 0x7fffffff : (1 << bits) - 1;
  const packs: CountedPack[] = [];
  for (let p = 0; p < counted.length; p += perPack) {
    const cols = counted.slice(p, p + perPack);
    const packed = new Int32Array(n);
    cols.forEach((c, f) => {
      const col = columns[c];
      for (let i = 0; i < n; i++) packed[i] += col[i] << (f * bits);
    });
    packs.push({ columns: cols, packed });
  }
  const pairs: { a: number; b: number; values: Float64Array }[] = [];
  for (let p = 0; p + 1 < summed.length; p += 2) {
    const [a, b] = [summed[p], summed[p + 1]];
    const values = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) {
      values[2 * i] = columns[a][i];
      values[2 * i + 1] = columns[b][i];
    }
    pairs.push({ a, b, values });
  }
  const single = summed.length % 2 === 1 ? summed[summed.length - 1] : -1;
  const singleValues = single >= 0 ? Float64Array.from(columns[single] as ArrayLike<number>) : new Float64Array(0);

  const idx = new Int32Array(n);
  const rng = new Xoshiro128(options.seed, options.stream ?? 0);
  const sums = new Float64Array(2);
  for (let r = 0; r < resamples; r++) {
    rng.fillBelow(idx, n);
    for (const p of pairs) {
      gatherPairSums(p.values, idx, sums);
      out[p.a][r] = sums[0] / n;
      out[p.b][r] = sums[1] / n;
    }
    if (single >= 0) out[single][r] = gatherMean(singleValues, idx);
    for (const p of packs) {
      const total = gatherCount(p.packed, idx);
      for (let f = 0; f < p.columns.length; f++) out[p.columns[f]][r] = ((total >>> (f * bits)) & mask) / n;
    }
  }
  return out;
}

/** Sum of packed[idx[i]]: below 2^31 by construction, so it stays an integer. */
function gatherCount(packed: Int32Array, idx: Int32Array): number {
  let s = 0;
  for (let i = 0; i < idx.length; i++) s += packed[idx[i]];
  return s;
}

/** gatherMean's sums (before dividing) of two interleaved columns, each in gatherMean's order. */
function gatherPairSums(values: Float64Array, idx: Int32Array, sums: Float64Array): void {
  const n = idx.length;
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const j0 = 2 * idx[i];
    const j1 = 2 * idx[i + 1];
    const j2 = 2 * idx[i + 2];
    const j3 = 2 * idx[i + 3];
    a0 += values[j0];
    b0 += values[j0 + 1];
    a1 += values[j1];
    b1 += values[j1 + 1];
    a2 += values[j2];
    b2 += values[j2 + 1];
    a3 += values[j3];
    b3 += values[j3 + 1];
  }
  for (; i < n; i++) {
    const j = 2 * idx[i];
    a0 += values[j];
    b0 += values[j + 1];
  }
  sums[0] = a0 + a1 + (a2 + a3);
  sums[1] = b0 + b1 + (b2 + b3);
}

/** Mean of values[idx[i]]; four accumulators so the adds do not wait on each other (≈ 1.3× faster). */
function gatherMean(values: Float64Array, idx: Int32Array): number {
  const n = idx.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += values[idx[i]];
    s1 += values[idx[i + 1]];
    s2 += values[idx[i + 2]];
    s3 += values[idx[i + 3]];
  }
  for (; i < n; i++) s0 += values[idx[i]];
  return (s0 + s1 + (s2 + s3)) / n;
}

/**
 * The percentile interval of a bootstrap distribution: the (1−level)/2 and (1+level)/2 quantiles,
 * linearly interpolated between order statistics (R's type 7). Sorts `dist` in place.
 */
export function percentileInterval(dist: Float64Array, level = 0.95): Interval {
  dist.sort();
  const tail = (1 - level) / 2;
  return { lo: quantileSorted(dist, tail), hi: quantileSorted(dist, 1 - tail) };
}

export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return values.length === 0 ? NaN : s / values.length;
}

/** Sample standard deviation (n − 1 in the denominator); 0 for fewer than two values. */
export function sampleSd(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return 0;
  const m = mean(values);
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (values[i] - m) ** 2;
  return Math.sqrt(ss / (n - 1));
}
