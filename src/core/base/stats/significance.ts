/**
 * The tests behind each Δ: McNemar's exact test for EM (0/1 per question), a paired sign-flip
 * permutation test for F1 (a continuous score with many ties at 0 and 1, where a t-test's normal
 * assumption is shaky), and Holm's step-down correction across every test in a table.
 */
import { Xoshiro128 } from "./prng";

/**
 * McNemar's exact test: under H0 the b + c discordant pairs split like fair coin flips, so
 * p = min(1, 2 · P(X ≤ min(b, c))) with X ~ Binomial(b + c, 1/2). b = c = 0 gives p = 1.
 */
export function mcnemarExact(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0)
    throw new RangeError("discordant counts must be non-negative integers");
  const n = b + c;
  const k = Math.min(b, c);
  if (n === 0 || 2 * k === n) return 1;
  // Summed in log space from P(X = 0) = 2^−n upward: no overflow for thousands of pairs.
  let logPmf = -n * Math.LN2;
  let tail = Math.exp(logPmf);
  for (let i = 0; i < k; i++) {
    logPmf += Math.log((n - i) / (i + 1));
    tail += Math.exp(logPmf);
  }
  return Math.min(1, 2 * tail);
}

export interface PermutationOptions {
  resamples: number;
  seed: number;
  stream?: number;
}

/**
 * How signFlipTest adds up a flipped sum ("4": four questions per table lookup; before it, one add
 * per question): part of a remembered p's key, so a p kept under another method is not reused
 * (resample-memo.ts). Change it with the summing.
 */
export const SIGN_FLIP_METHOD = "4";

/**
 * Two-sided paired sign-flip test of "mean difference = 0": under H0 each question's difference
 * is as likely to have either sign, so we flip signs at random and count how often the flipped
 * mean is at least as far from 0 as the observed one. Monte Carlo p = (1 + hits) / (1 + R), which
 * is never 0 and is valid at any R (the smallest p it can report is 1 / (R + 1)).
 *
 * Question i takes bit i % 32 of the i / 32-th word a resample draws. The flipped sum is added up
 * four questions at a time: for each group of four that holds a non-zero difference, a table of its
 * 16 sign patterns' sums, looked up by the group's four bits (at 10,000 questions × 10,000
 * resamples, a quarter of the adds and no multiplies: 94 against 247 ms with one add per question
 * on bench/panels' pair, compare-ab.ts).
 * Sums in another order differ only in their last bits, which the hit's relative tolerance absorbs.
 */
export function signFlipTest(diffs: ArrayLike<number>, options: PermutationOptions): number {
  const n = diffs.length;
  if (n === 0) return 1;
  let observed = 0;
  for (let i = 0; i < n; i++) observed += diffs[i];
  observed = Math.abs(observed);
  if (observed === 0) return 1;
  // Relative tolerance: the same sum computed in another order may differ in the last bits.
  const threshold = observed * (1 - 1e-12);
  const { groups, sums } = signPatternSums(diffs);
  const words = new Int32Array(Math.ceil(n / 32));
  const rng = new Xoshiro128(options.seed, options.stream ?? 0);
  let hits = 0;
  for (let r = 0; r < options.resamples; r++) {
    for (let w = 0; w < words.length; w++) words[w] = rng.nextUint32();
    // Two accumulators, so one lookup's add does not wait on the one before.
    let s0 = 0;
    let s1 = 0;
    let j = 0;
    for (; j + 1 < groups.length; j += 2) {
      const g = groups[j];
      const h = groups[j + 1];
      s0 += sums[(g << 4) | ((words[g >>> 3] >>> ((g & 7) << 2)) & 15)];
      s1 += sums[(h << 4) | ((words[h >>> 3] >>> ((h & 7) << 2)) & 15)];
    }
    if (j < groups.length) {
      const g = groups[j];
      s0 += sums[(g << 4) | ((words[g >>> 3] >>> ((g & 7) << 2)) & 15)];
    }
    if (Math.abs(s0 + s1) >= threshold) hits++;
  }
  return (1 + hits) / (1 + options.resamples);
}

/**
 * The groups of four questions (4g … 4g + 3) holding a non-zero difference, and for every group g
 * the sum of its differences under each sign pattern: sums[16g + bits], question 4g + k taking +
 * where bit k of `bits` is set.
 */
function signPatternSums(diffs: ArrayLike<number>): { groups: Int32Array; sums: Float64Array } {
  const n = diffs.length;
  const count = Math.ceil(n / 4);
  const sums = new Float64Array(16 * count);
  const groups: number[] = [];
  for (let g = 0; g < count; g++) {
    let nonZero = false;
    for (let k = 0; k < 4 && 4 * g + k < n; k++) if (diffs[4 * g + k] !== 0) nonZero = true;
    if (!nonZero) continue;
    groups.push(g);
    for (let bits = 0; bits < 16; bits++) {
      let s = 0;
      for (let k = 0; k < 4 && 4 * g + k < n; k++) s += (bits >>> k) & 1 ? diffs[4 * g + k] : -diffs[4 * g + k];
      sums[16 * g + bits] = s;
    }
  }
  return { groups: Int32Array.from(groups), sums };
}

/**
 * Holm's step-down adjusted p-values, in the input order: sort ascending, multiply the i-th
 * smallest (0-based) by (m − i), carry the running maximum so adjusted p's keep the order, cap at 1.
 * Rejecting where adjusted p < α controls the family-wise error rate at α.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
