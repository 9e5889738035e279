/**
 * The numbers an experiment's verdict rests on, from per-item scores on one shared item list: each
 * arm's mean with a 95% percentile-bootstrap interval, paired deltas, and the recovery fraction
 * (treatment − base) / (reference − base). One joint bootstrap (`bootstrapMeans`, the resampler
 * ablate uses, same seed and stream): every resample draws one set of item indices and applies it
 * to every column, so deltas and the recovery ratio are paired resample by resample.
 *
 * Pure: validate recomputes the same numbers from the recorded per-item scores and compares.
 */
import { bootstrapMeans, mean, percentileInterval, type Interval } from "../../base/stats/bootstrap";
import { LEVEL } from "../ablate/ablate";
import type { RewardTrend } from "../pipeline/reward-trend";
import type { Condition, ExperimentSpec, Stat } from "./spec";

export interface Estimate {
  point: number;
  ci: Interval;
}

export interface ExperimentNumbers {
  n: number;
  /** Per arm (base first): mean and interval of the metric. */
  scores: Record<string, Estimate>;
  /** Every arm minus base, paired. */
  minus_base: Record<string, Estimate>;
  arm_minus_reference: Estimate;
  /** Null when the reference did not move from base (the ratio has no meaning). */
  recovery: (Estimate & { resamples_used: number }) | null;
}

export type Verdict = "supported" | "refuted" | "inconclusive";

export interface ConditionResult {
  condition: Condition;
  /** The number compared (null when it does not exist, e.g. recovery with no reference gain). */
  observed: number | null;
  holds: boolean;
  text: string;
}

export interface VerdictRecord {
  verdict: Verdict;
  rule: string;
  supported: ConditionResult[];
  refuted: ConditionResult[];
}

export const VERDICT_RULE =
  '"refuted" when any refuted condition holds; otherwise "supported" when every supported condition holds; otherwise "inconclusive".';

/** Reference gains smaller than this count as none: a ratio over noise is not a recovery. */
const NO_GAIN = 1e-12;

/** `columns[name]` are per-item scores in one shared item order; `base` must be among them. */
export function experimentNumbers(
  columns: Record<string, ArrayLike<number>>,
  treatment: string,
  reference: string,
  o: { resamples: number; seed: number },
): ExperimentNumbers {
  const names = Object.keys(columns);
  if (!names.includes("base")) throw new Error("experimentNumbers needs a base column");
  const cols = names.map((k) => Float64Array.from(columns[k] as ArrayLike<number>));
  const dist = bootstrapMeans(cols, { resamples: o.resamples, seed: o.seed, stream: 0 });
  const at = (k: string) => names.indexOf(k);
  const estimate = (point: number, d: Float64Array): Estimate => ({ point, ci: percentileInterval(d, LEVEL) });
  const means = cols.map((c) => mean(c));
  const scores: Record<string, Estimate> = {};
  names.forEach((k, i) => (scores[k] = estimate(means[i], Float64Array.from(dist[i]))));
  const diff = (a: number, b: number) => {
    const d = new Float64Array(o.resamples);
    for (let r = 0; r < o.resamples; r++) d[r] = dist[a][r] - dist[b][r];
    return d;
  };
  const b = at("base");
  const minus_base: Record<string, Estimate> = {};
  for (const k of names) if (k !== "base") minus_base[k] = estimate(means[at(k)] - means[b], diff(at(k), b));
  const t = at(treatment);
  const ref = at(reference);
  const refGain = means[ref] - means[b];
  let recovery: ExperimentNumbers["recovery"] = null;
  if (Math.abs(refGain) > NO_GAIN) {
    const ratios: number[] = [];
    for (let r = 0; r < o.resamples; r++) {
      const den = dist[ref][r] - dist[b][r];
      // A resample where the reference gained nothing has no ratio; it is left out and counted.
      if (Math.abs(den) > NO_GAIN) ratios.push((dist[t][r] - dist[b][r]) / den);
    }
    recovery = {
      ...estimate((means[t] - means[b]) / refGain, Float64Array.from(ratios)),
      resamples_used: ratios.length,
    };
  }
  return {
    n: cols[0].length,
    scores,
    minus_base,
    arm_minus_reference: estimate(means[t] - means[ref], diff(t, ref)),
    recovery,
  };
}

function statEstimate(numbers: ExperimentNumbers, stat: Stat, spec: ExperimentSpec): Estimate | null {
  const { treatment, reference } = spec.criterion;
  switch (stat) {
    case "arm_minus_base":
      return numbers.minus_base[treatment];
    case "reference_minus_base":
      return numbers.minus_base[reference];
    case "arm_minus_reference":
      return numbers.arm_minus_reference;
    case "recovery":
      return numbers.recovery;
  }
}

function check(
  c: Condition,
  numbers: ExperimentNumbers,
  spec: ExperimentSpec,
  trend: RewardTrend | null,
): ConditionResult {
  if (c.stat === "drift") {
    const falls = numbers.minus_base[spec.criterion.treatment].point < 0;
    const rises = trend?.slopeCi ? trend.slopeCi[0] > 0 : false;
    return {
      condition: c,
      observed: trend ? trend.slope : null,
      holds: falls && rises,
      text: `drift: ${spec.metric} ${falls ? "fell" : "did not fall"} below base while train reward ${rises ? "kept rising" : trend?.slopeCi ? "did not rise significantly" : "has too few steps to tell"}`,
    };
  }
  const e = statEstimate(numbers, c.stat, spec);
  const bound = c.bound ?? "point";
  const observed = e ? (bound === "point" ? e.point : bound === "ci_lo" ? e.ci.lo : e.ci.hi) : null;
  const v = c.value!;
  const holds =
    observed !== null &&
    (c.op === ">=" ? observed >= v : c.op === ">" ? observed > v : c.op === "<=" ? observed <= v : observed < v);
  const label = bound === "point" ? c.stat : `${c.stat} (${bound})`;
  return {
    condition: c,
    observed,
    holds,
    text: `${label} ${observed === null ? "undefined" : observed.toFixed(4)} ${c.op} ${v}: ${holds ? "holds" : "does not hold"}`,
  };
}

export function decideVerdict(
  numbers: ExperimentNumbers,
  spec: ExperimentSpec,
  trend: RewardTrend | null,
): VerdictRecord {
  const supported = spec.criterion.supported.map((c) => check(c, numbers, spec, trend));
  const refuted = spec.criterion.refuted.map((c) => check(c, numbers, spec, trend));
  const verdict: Verdict = refuted.some((r) => r.holds)
    ? "refuted"
    : supported.every((r) => r.holds)
      ? "supported"
      : "inconclusive";
  return { verdict, rule: VERDICT_RULE, supported, refuted };
}
