/** The dashboard's checkpoints table as text, for its Copy as Markdown / CSV and Save As… buttons. */
import type { DashboardView, PrimaryScore } from "../../src/core/views/trace/dashboard-view";
import type { TextTable } from "../../src/core/base/util/table-text";
import { copyTableButtons } from "../shared/copy-table";

/** `score`: the panel's own format of a score with its interval ("0.370 [0.305, 0.434]"). */
export function checkpointTable(v: DashboardView, score: (c: { primary: PrimaryScore }) => string): TextTable {
  return {
    title: `Checkpoints · ${v.run}`,
    headers: ["checkpoint", "step", `val ${v.valMetric} [95% CI]`, "n", "eval run"],
    rows: v.checkpoints.map((c) => [
      c.name,
      String(c.step),
      c.primary ? score({ primary: c.primary }) : "not evaluated",
      c.n === undefined ? "–" : String(c.n),
      c.evalRun ?? "–",
    ]),
    notes: v.references.map((r) => `${r.label}: ${score(r)} from ${r.evalRun}`),
  };
}

/** The buttons, reading the view shown when clicked. */
export function checkpointCopyButtons(
  view: () => DashboardView,
  score: Parameters<typeof checkpointTable>[1],
): HTMLElement {
  return copyTableButtons("checkpoints", () => checkpointTable(view(), score));
}
