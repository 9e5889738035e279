/**
 * A sweep's ranking as a table (the CLI prints it in Markdown, the panel shows and copies it): one
 * row per arm, best mean first, with its swept values, its score, its paired delta against the
 * baseline with the interval, the raw and Holm-adjusted p and the verdict; the best-arm claim under it.
 */
import type { TextTable } from "../../base/util/table-text";
import type { SweepNumbers } from "./sweep-analysis";

const signed = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(4);
const pText = (p: number | null) => (p === null ? "" : p < 0.001 ? p.toExponential(1) : p.toFixed(3));

export function sweepTextTable(sweep: SweepNumbers, metric: string, title = "sweep"): TextTable {
  return {
    title,
    notes: [
      `${sweep.arms.length} arms on the same ${sweep.n} items, ranked by ${metric}; Δ paired against ${sweep.baseline} ` +
        `(${sweep.level * 100}% bootstrap interval), p from a paired sign-flip test, Holm-adjusted across the arms.`,
      `best arm: ${sweep.best ?? "none"} — ${sweep.best_reason}`,
    ],
    headers: [
      "rank",
      "arm",
      ...sweep.params,
      `${metric} [${sweep.level * 100}% CI]`,
      `Δ vs ${sweep.baseline} [CI]`,
      "p",
      "p (Holm)",
      "vs baseline",
    ],
    rows: sweep.arms.map((a) => [
      String(a.rank),
      a.name,
      ...sweep.params.map((k) => (k in a.values ? String(a.values[k]) : "")),
      `${a.mean.toFixed(4)} [${a.ci.lo.toFixed(4)}, ${a.ci.hi.toFixed(4)}]`,
      a.minus_baseline
        ? `${signed(a.minus_baseline.point)} [${signed(a.minus_baseline.ci.lo)}, ${signed(a.minus_baseline.ci.hi)}]`
        : "(baseline)",
      pText(a.p),
      pText(a.p_holm),
      a.versus_baseline ?? "",
    ]),
  };
}
