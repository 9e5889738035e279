/**
 * A sweep's numbers, from the per-item scores every arm got on the one shared item list: the arms
 * ranked by their mean; each against the baseline (paired: one joint bootstrap over the items for
 * the interval, a paired sign-flip test for p), the p-values Holm-adjusted across the arms; and the
 * best arm, named only when it is distinguishable (BEST_ARM_RULE). Pure: `experiment validate`
 * recomputes it from the eval episodes and compares.
 */
import { bootstrapMeans, mean, percentileInterval, type Interval } from "../../base/stats/bootstrap";
import { holmAdjust, signFlipTest } from "../../base/stats/significance";
import { ALPHA, LEVEL } from "../ablate/ablate";
import type { Estimate } from "./analysis";
import { sweepArms, type SweepSpec } from "./sweep-spec";

/** The record's sweep section; `version` changes with its shape (readers normalise older ones). */
export const SWEEP_RECORD_VERSION = 1;

export const BEST_ARM_RULE =
  `the top-ranked arm is named best when it is better than the baseline — Holm-adjusted p < ${ALPHA} across the arms and ` +
  `its paired ${LEVEL * 100}% interval above 0 — and its paired interval against the runner-up also lies above 0; otherwise no arm is named.`;

export interface SweepArmNumbers {
  name: string;
  /** The swept parameters' values (the spec's point). */
  values: Record<string, number>;
  /** 1 = highest mean. */
  rank: number;
  mean: number;
  ci: Interval;
  /** Arm minus baseline, paired; null for the baseline itself. */
  minus_baseline: Estimate | null;
  /** Paired sign-flip p against the baseline, and Holm-adjusted across the compared arms; null for the baseline. */
  p: number | null;
  p_holm: number | null;
  /** "better", "worse" or "not distinguishable" from the baseline (ablate's rule); null for the baseline. */
  versus_baseline: "better" | "worse" | "not distinguishable" | null;
}

export interface SweepNumbers {
  version: number;
  /** The template arm and the swept parameters. */
  arm: string;
  params: string[];
  baseline: string;
  max_concurrent_arms: number;
  n: number;
  alpha: number;
  level: number;
  /** Every sweep arm (and the baseline when it is one of them), best mean first. */
  arms: SweepArmNumbers[];
  /** The best arm under `rule`, or null. */
  best: string | null;
  /** Why that arm, or why none. */
  best_reason: string;
  rule: string;
}

const verdictOf = (p: number, ci: Interval): SweepArmNumbers["versus_baseline"] =>
  p < ALPHA && ci.lo > 0 ? "better" : p < ALPHA && ci.hi < 0 ? "worse" : "not distinguishable";

const fmt = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(4);

/** `columns[name]` are per-item scores in one shared item order; they hold the baseline and every sweep arm. */
export function sweepNumbers(
  columns: Record<string, ArrayLike<number>>,
  sweep: SweepSpec,
  o: { resamples: number; seed: number },
): SweepNumbers {
  const arms = sweepArms(sweep);
  const names = [sweep.baseline, ...arms.filter((a) => a !== sweep.baseline)];
  for (const k of names) if (!columns[k]) throw new Error(`sweepNumbers: no scores for ${k}`);
  const cols = names.map((k) => Float64Array.from(columns[k] as ArrayLike<number>));
  const n = cols[0].length;
  // Stream 1: the experiment's own numbers draw stream 0 with the same seed.
  const dist = bootstrapMeans(cols, { resamples: o.resamples, seed: o.seed, stream: 1 });
  const means = cols.map((c) => mean(c));
  const paired = (a: number, b: number): Estimate => {
    const d = new Float64Array(o.resamples);
    for (let r = 0; r < o.resamples; r++) d[r] = dist[a][r] - dist[b][r];
    return { point: means[a] - means[b], ci: percentileInterval(d, LEVEL) };
  };
  const compared = names.slice(1).map((_, k) => k + 1);
  const ps = compared.map((i) => {
    const diffs = new Float64Array(n);
    for (let j = 0; j < n; j++) diffs[j] = cols[i][j] - cols[0][j];
    return signFlipTest(diffs, { resamples: o.resamples, seed: o.seed, stream: 1 + i });
  });
  const holm = holmAdjust(ps);
  const rows: (SweepArmNumbers & { index: number })[] = names
    .map((name, i) => {
      const k = compared.indexOf(i);
      const delta = k < 0 ? null : paired(i, 0);
      return {
        index: i,
        name,
        values: sweep.points.find((p) => p.name === name)?.values ?? {},
        rank: 0,
        mean: means[i],
        ci: percentileInterval(Float64Array.from(dist[i]), LEVEL),
        minus_baseline: delta,
        p: k < 0 ? null : ps[k],
        p_holm: k < 0 ? null : holm[k],
        versus_baseline: k < 0 ? null : verdictOf(holm[k], delta!.ci),
      };
    })
    // Only sweep arms are ranked (a baseline outside the sweep is the yardstick, not a contender).
    .filter((r) => arms.includes(r.name))
    .sort((a, b) => b.mean - a.mean || (a.name < b.name ? -1 : 1));
  rows.forEach((r, i) => (r.rank = i + 1));
  const [top, second] = rows;
  let best: string | null = null;
  let reason: string;
  if (!top || top.name === sweep.baseline || top.versus_baseline !== "better")
    reason = top
      ? top.name === sweep.baseline
        ? `the baseline ${top.name} ranks first: no arm beats it`
        : `${top.name} ranks first but is ${top.versus_baseline} from ${sweep.baseline} (Δ ${fmt(top.minus_baseline!.point)}, Holm p ${top.p_holm!.toPrecision(3)})`
      : "no arms";
  else if (second && second.name !== sweep.baseline && !(paired(top.index, second.index).ci.lo > 0)) {
    const d = paired(top.index, second.index);
    reason = `${top.name} beats ${sweep.baseline} but not the runner-up ${second.name} (Δ ${fmt(d.point)} [${fmt(d.ci.lo)}, ${fmt(d.ci.hi)}])`;
  } else {
    best = top.name;
    reason = `${top.name}: Δ ${fmt(top.minus_baseline!.point)} [${fmt(top.minus_baseline!.ci.lo)}, ${fmt(top.minus_baseline!.ci.hi)}] over ${sweep.baseline}, Holm p ${top.p_holm!.toPrecision(3)}${second && second.name !== sweep.baseline ? `, and above the runner-up ${second.name}` : ""}`;
  }
  return {
    version: SWEEP_RECORD_VERSION,
    arm: sweep.arm,
    params: sweep.params,
    baseline: sweep.baseline,
    max_concurrent_arms: sweep.max_concurrent_arms,
    n,
    alpha: ALPHA,
    level: LEVEL,
    arms: rows.map(({ index: _index, ...r }) => r),
    best,
    best_reason: reason,
    rule: BEST_ARM_RULE,
  };
}
