/**
 * How an ablation's numbers are written, shared by `agent-lab ablate`'s table, report.md and the
 * Compare panel, so the three print the same digits for the same report.
 */
import type { DeltaResult, Interval } from "./report-types";

/** Three decimals. */
export const f3 = (x: number): string => x.toFixed(3);

/** A Δ with its sign: "+0.041", "−0.013" (a true minus sign, as in the tables). */
export const signed = (x: number): string => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(3);

/** "[0.512, 0.601]" */
export const intervalText = (ci: Interval): string => `[${f3(ci.lo)}, ${f3(ci.hi)}]`;

/** "+0.041 [+0.012, +0.070]" */
export const deltaCell = (d: Pick<DeltaResult, "delta" | "ci">): string =>
  `${signed(d.delta)} [${signed(d.ci.lo)}, ${signed(d.ci.hi)}]`;

/** p-values: three significant digits, and "<0.0001" rather than a misleading 0. */
export function formatP(p: number): string {
  if (p < 1e-4) return "<0.0001";
  if (p >= 0.1) return p.toFixed(2);
  return p.toPrecision(2);
}
