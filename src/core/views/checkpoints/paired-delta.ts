/**
 * The paired Δ of one eval against a baseline eval on the questions both answered, drawn exactly as
 * a two-run Compare (ablate) draws it — the shown interval's bootstrap over the pair, the sign-flip
 * test on stream 2 — so a row's Δ and raw p read the same as "Open full Compare" on those two runs.
 * The Holm step across the rows is the caller's (holmAdjust, base/stats/significance.ts).
 */
import { readEpisodes } from "../../base/runs/run-files";
import { runEnvironmentName } from "../../envs/manifest-environment";
import { metricValue } from "../../base/runs/metrics";
import { bootstrapMeans, mean, percentileInterval, type Interval } from "../../base/stats/bootstrap";
import { questionOrder, SHOWN_INTERVAL } from "../../base/stats/shown-interval";
import { signFlipTest } from "../../base/stats/significance";
import { environmentRoles, environmentMetrics } from "../../envs/catalog";

export interface PairedDelta {
  /** mean(run) − mean(baseline) of the primary metric over the shared questions. */
  delta: number;
  ci: Interval;
  /** The paired sign-flip test's p, before Holm. */
  p: number;
  /** Questions both answered. */
  n: number;
}

/** ablate's stream for the second run's sign-flip test (1 + its position): the same p as a two-run Compare. */
const SECOND_RUN_STREAM = 2;

/** Primary-metric values by question id (the run's own environment's primary metric). */
export function primaryById(evalDir: string): Map<string, number> {
  const primary = environmentRoles(runEnvironmentName(evalDir)).primary;
  return new Map(readEpisodes(evalDir, environmentMetrics).map((e) => [e.id, metricValue(e, primary)]));
}

/** Null when the two evals share no question. */
export function pairedDelta(baseline: Map<string, number>, run: Map<string, number>): PairedDelta | null {
  const ids = questionOrder([...baseline.keys()].filter((id) => run.has(id)));
  if (ids.length === 0) return null;
  const a = Float64Array.from(ids, (id) => baseline.get(id)!);
  const b = Float64Array.from(ids, (id) => run.get(id)!);
  const { resamples, seed, stream, level } = SHOWN_INTERVAL;
  const [distA, distB] = bootstrapMeans([a, b], { resamples, seed, stream });
  const d = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) d[r] = distB[r] - distA[r];
  const diffs = Float64Array.from(b, (v, q) => v - a[q]);
  return {
    delta: mean(b) - mean(a),
    ci: percentileInterval(d, level),
    p: signFlipTest(diffs, { resamples, seed, stream: SECOND_RUN_STREAM }),
    n: ids.length,
  };
}
