/**
 * How big a paired test is: the minimum detectable difference at a given power, by the normal
 * approximation MDE = (z_{1−α/2} + z_{power}) · SD(paired differences) / √n. With the observed SD
 * from a pilot (or an earlier comparison), it tells a user before spending whether n questions can
 * show the gap they hope for. Halving the gap needs four times the questions.
 */

/** Φ(x), the standard normal CDF, through erf: a Taylor series near 0, a continued fraction in the tails. */
export function normalCdf(x: number): number {
  if (x < 0) return 1 - normalCdf(-x);
  const z = x / Math.SQRT2;
  if (z < 3) return 0.5 * (1 + erfSeries(z));
  return 1 - 0.5 * erfcContinuedFraction(z);
}

/** erf(z) = 2/√π Σ (−1)^k z^(2k+1) / (k! (2k+1)); accurate to ~1e-15 for |z| < 3. */
function erfSeries(z: number): number {
  let term = z;
  let sum = z;
  const z2 = z * z;
  for (let k = 1; k < 200; k++) {
    term *= -z2 / k;
    const add = term / (2 * k + 1);
    sum += add;
    if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

/** erfc(z) for z ≥ 3 by its Laplace continued fraction, evaluated from the tail up. */
function erfcContinuedFraction(z: number): number {
  let f = z;
  for (let k = 60; k >= 1; k--) f = z + k / 2 / f;
  return Math.exp(-z * z) / Math.sqrt(Math.PI) / f;
}

/** Φ⁻¹(p) by bisection on normalCdf (60 halvings: exact to double precision for our uses). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError("normalQuantile needs 0 < p < 1");
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface MdeOptions {
  /** SD of the per-question paired differences. */
  sd: number;
  /** Paired questions. */
  n: number;
  /** Two-sided significance level (default 0.05). */
  alpha?: number;
  /** Power (default 0.8). */
  power?: number;
}

/** The smallest true mean difference a two-sided paired test detects with the given power. */
export function minimumDetectableDelta(o: MdeOptions): number {
  if (o.n <= 0) return Infinity;
  const alpha = o.alpha ?? 0.05;
  const power = o.power ?? 0.8;
  return ((normalQuantile(1 - alpha / 2) + normalQuantile(power)) * o.sd) / Math.sqrt(o.n);
}

/** Paired questions needed to detect `delta` with the given power (the inverse of the MDE). */
export function questionsForDelta(o: { sd: number; delta: number; alpha?: number; power?: number }): number {
  const z = normalQuantile(1 - (o.alpha ?? 0.05) / 2) + normalQuantile(o.power ?? 0.8);
  return Math.ceil(((z * o.sd) / o.delta) ** 2);
}
