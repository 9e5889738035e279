/**
 * What of ablate's report the Compare panel shows, written once for the host that sends it and the
 * webview that draws it. Of the per-question rows the page shows only the flip lists: per comparison
 * the first FLIP_LIST_ROWS improved and regressed questions of the flip metric, in question order
 * (pins are made from those rows). Their counts come from the comparison's own flip counts. At
 * 10,000 questions every row was 2.4 MB of the report message, copied by the worker's reply, VS
 * Code's transfer and the page's parse; the rows shown are at most 2 × FLIP_LIST_ROWS per comparison.
 */
import { compareMetrics } from "./compare-metrics";
import type { AblationReport, MetricRole, QuestionRow } from "./report-types";

/** Rows each flip list (improved, regressed) shows. */
export const FLIP_LIST_ROWS = 500;

export type FlipDirection = "improved" | "regressed";

/** The role the flips and per-question scores use: the primary metric (partial credit), or the one metric. */
export function flipRole(report: Pick<AblationReport, "environment" | "metrics">): MetricRole {
  return compareMetrics(report).one ? "binary" : "primary";
}

/** The rows comparison `index`'s `direction` list shows: the first FLIP_LIST_ROWS that flipped that way. */
export function listedFlips(
  report: Pick<AblationReport, "environment" | "metrics" | "questions">,
  index: number,
  direction: FlipDirection,
): QuestionRow[] {
  const role = flipRole(report);
  const out: QuestionRow[] = [];
  for (const q of report.questions) {
    if (out.length === FLIP_LIST_ROWS) break;
    if (q.flips[index]?.[role] === direction) out.push(q);
  }
  return out;
}

/**
 * The report with only the question rows the panel can show (every other field as ablate made it):
 * what the host sends the page. The page draws the same lists from it as from the whole report.
 */
export function shownReport(report: AblationReport): AblationReport {
  const shown = new Set<QuestionRow>();
  report.comparisons.forEach((_, index) => {
    for (const direction of ["improved", "regressed"] as const)
      for (const q of listedFlips(report, index, direction)) shown.add(q);
  });
  return { ...report, questions: report.questions.filter((q) => shown.has(q)) };
}

/** A view (report and setup) with its report as the panel shows it. */
export function shownView<V extends { report: AblationReport }>(view: V): V {
  return { ...view, report: shownReport(view.report) };
}
