/**
 * Percentile bootstrap for means of paired columns. One resample draws n question indices once
 * and applies them to every column, so differences between columns (runs) are paired: the
 * question-to-question variation that both runs share cancels out of the Δ interval.
 *
 * Hot loop: one reused index buffer filled by an inlined PRNG, then one gather-sum per column; no
 * allocation per resample; 500 questions × 10,000 resamples × a few columns runs
 * in tens of milliseconds.
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

  // Copies as typed arrays, so the inner loop is a plain indexed gather.
  const cols = columns.map((col) => Float64Array.from(col as ArrayLike<number>));
  const out = columns.map(() => new Float64Array(resamples));
  const idx = new Int32Array(n);
  const rng = new Xoshiro128(options.seed, options.stream ?? 0);
  for (let r = 0; r < resamples; r++) {
    rng.fillBelow(idx, n);
    for (let c = 0; c < k; c++) out[c][r] = gatherMean(cols[c], idx);
  }
  return out;
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
