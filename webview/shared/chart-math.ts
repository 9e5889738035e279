/**
 * The arithmetic behind the charts, apart from any DOM so it is tested on its own: TensorBoard's
 * debiased EMA smoothing, number formats for ticks and readouts, constant-series detection, and
 * the alignment of several runs' series on one step axis (uPlot wants one shared x array).
 */

/** Smoothing weights the slider offers go up to this (1 would freeze the line at its first value). */
export const MAX_SMOOTHING = 0.99;

/**
 * Exponential moving average with TensorBoard's debiasing: the running average starts at 0 and is
 * divided by (1 − w^n), n = finite points seen so far, so the first points are not dragged toward
 * zero. Non-finite or missing points pass through as they are and do not advance the average.
 */
export function emaSmooth(values: readonly (number | null)[], weight: number): (number | null)[] {
  const w = Math.min(Math.max(weight, 0), MAX_SMOOTHING);
  if (w === 0) return values.slice();
  const out = new Array<number | null>(values.length);
  let last = 0;
  // w^n kept as a running product: a power per point was a third of a 10,000-step chart's script time.
  let wn = 1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || !Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * w + (1 - w) * v;
    wn *= w;
    out[i] = last / (1 - wn);
  }
  return out;
}

/** Ticks and readouts: `2.0e-3`, `154`, `0.249`, `12.3`. */
export function formatNumber(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-2) return v.toExponential(1).replace("e+", "e");
  if (a >= 100) return String(Math.round(v));
  return String(Number(v.toPrecision(3)));
}

export function formatUsdValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  if (v === 0) return "$0";
  return Math.abs(v) < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}

/** True when every finite value equals the first (within float noise); an empty series is not constant. */
export function isConstant(values: readonly (number | null)[]): boolean {
  let first: number | undefined;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    if (first === undefined) first = v;
    else if (Math.abs(v - first) > 1e-12 * Math.max(1, Math.abs(first))) return false;
  }
  return first !== undefined;
}

/** One line of one run. */
export interface RunSeries {
  /** Legend label: the run name (overlay) or the metric. */
  label: string;
  points: readonly (readonly [step: number, value: number])[];
}

export interface Aligned {
  /** Every step any series has, ascending. */
  steps: number[];
  /** Per series, its value at each step (null where it has none). */
  values: (number | null)[][];
}

/**
 * Several series on the union of their steps. A step logged twice keeps its last value. Logs are
 * written step by step, so the common cases — one run, or runs with the same steps — take no
 * sorting or lookups (10,000 steps × 12 metrics are aligned on every redraw).
 */
export function alignSeries(series: readonly RunSeries[]): Aligned {
  const ascending = (pts: RunSeries["points"]) => {
    for (let i = 1; i < pts.length; i++) if (!(pts[i][0] > pts[i - 1][0])) return false;
    return true;
  };
  const clean = (y: number) => (Number.isFinite(y) ? y : null);
  const first = series[0]?.points ?? [];
  const sameSteps = (pts: RunSeries["points"]) => {
    if (pts === first) return true;
    if (pts.length !== first.length) return false;
    for (let i = 0; i < pts.length; i++) if (pts[i][0] !== first[i][0]) return false;
    return true;
  };
  if (series.every((s) => sameSteps(s.points)) && ascending(first)) {
    const steps = new Array<number>(first.length);
    for (let i = 0; i < first.length; i++) steps[i] = first[i][0];
    const values = series.map((s) => {
      const out = new Array<number | null>(s.points.length);
      for (let i = 0; i < s.points.length; i++) out[i] = clean(s.points[i][1]);
      return out;
    });
    return { steps, values };
  }
  const all = new Float64Array(series.reduce((n, s) => n + s.points.length, 0));
  let k = 0;
  for (const s of series) for (const p of s.points) all[k++] = p[0];
  all.sort();
  const steps: number[] = [];
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) steps.push(all[i]);
  const at = new Map(steps.map((x, i) => [x, i]));
  const values = series.map((s) => {
    const out = new Array<number | null>(steps.length).fill(null);
    for (const [x, y] of s.points) out[at.get(x)!] = clean(y);
    return out;
  });
  return { steps, values };
}

/**
 * What a line chart needs to draw `columns` pixel columns exactly (M4 decimation): per column and
 * series, the indices of its first, last, lowest and highest point, over the steps in [xMin, xMax],
 * plus the nearest step outside each end so lines leave the plot at the right slope. Every column's
 * min and max survive, so spikes a stride sampling would skip are drawn. Returns ascending indices
 * into `steps`; the values at them are the exact values (nothing is averaged).
 */
export function m4Indices(
  steps: readonly number[],
  series: readonly (readonly (number | null)[])[],
  xMin: number,
  xMax: number,
  columns: number,
): number[] {
  const n = steps.length;
  if (n === 0) return [];
  let lo = lowerBound(steps, xMin);
  let hi = lowerBound(steps, xMax);
  if (hi < n && steps[hi] > xMax) hi--;
  if (hi >= n) hi = n - 1;
  lo = Math.max(0, lo - 1);
  hi = Math.min(n - 1, hi + 1);
  const keep = new Uint8Array(n);
  keep[lo] = 1;
  keep[hi] = 1;
  const cols = Math.max(1, Math.floor(columns));
  const span = xMax - xMin;
  const scale = span > 0 ? cols / span : 0;
  for (const vals of series) {
    let col = -1;
    let first = -1;
    let last = -1;
    let min = -1;
    let max = -1;
    const flush = () => {
      if (first < 0) return;
      keep[first] = 1;
      keep[last] = 1;
      keep[min] = 1;
      keep[max] = 1;
    };
    for (let i = lo; i <= hi; i++) {
      const v = vals[i];
      if (v === null || v === undefined || !Number.isFinite(v)) continue;
      const c = Math.min(cols - 1, Math.max(-1, Math.floor((steps[i] - xMin) * scale)));
      if (c !== col) {
        flush();
        col = c;
        first = last = min = max = i;
        continue;
      }
      last = i;
      if (v < (vals[min] as number)) min = i;
      if (v > (vals[max] as number)) max = i;
    }
    flush();
  }
  const out: number[] = [];
  for (let i = lo; i <= hi; i++) if (keep[i]) out.push(i);
  return out;
}

/** First index whose step is >= x in a sorted array (steps.length when none). */
function lowerBound(steps: readonly number[], x: number): number {
  let lo = 0;
  let hi = steps.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the step nearest to x in a sorted array (binary search). */
export function nearestIndex(steps: readonly number[], x: number): number {
  if (steps.length === 0) return -1;
  let lo = 0;
  let hi = steps.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (steps[mid] <= x) lo = mid;
    else hi = mid;
  }
  return Math.abs(steps[hi] - x) < Math.abs(steps[lo] - x) ? hi : lo;
}

/** The spacing of about `count` round axis ticks (1, 2 or 5 × 10^k) over [lo, hi]. */
export function niceStep(lo: number, hi: number, count: number): number {
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
}

/** About `count` round axis ticks (1, 2 or 5 × 10^k apart) covering [lo, hi]; label them with formatTick. */
export function niceTicks(lo: number, hi: number, count: number): number[] {
  if (!(hi > lo)) return [lo];
  const step = niceStep(lo, hi, count);
  const out: number[] = [];
  // Multiples of the step, counted as integers: summing the step drifts (0 came out as -2.8e-17).
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++)
    out.push(Number((k * step).toPrecision(12)));
  return out;
}

/** Decimals that write `step` exactly (0.05 → 2, 0.1 → 1, 5 → 0), at most 12. */
function stepDecimals(step: number): number {
  for (let d = 0; d < 12; d++) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-9 * Math.max(1, scaled)) return d;
  }
  return 12;
}

/**
 * The label of an axis tick at `v` on an axis whose ticks are `step` apart, rounded to the
 * axis's precision: float noise never shows (-2.8e-17 on a 0.05 axis is "0.00", on a 1 axis "0").
 * Every chart's linear ticks (uPlot's and the SVG ones) are written by this function. Axes of very
 * small steps or very large values keep the short exponential form of formatNumber.
 */
export function formatTick(v: number, step: number): string {
  if (!Number.isFinite(v)) return "–";
  if (!(step > 0) || !Number.isFinite(step)) return formatNumber(v);
  const rounded = Math.round(v / step) * step;
  if (step < 1e-3 || Math.abs(rounded) >= 1e5) return rounded === 0 ? "0" : formatNumber(rounded);
  // toFixed writes -0 as "0.00"; a value that rounds to zero has no sign.
  return (Math.abs(rounded) < step / 2 ? 0 : rounded).toFixed(stepDecimals(step));
}
