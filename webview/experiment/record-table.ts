/** An experiment record as one table of text, for its Copy as Markdown / CSV and Save As… buttons. */
import type { ExperimentView, LinkedNumber } from "../../src/core/views/experiments/view-model";
import type { TextTable } from "../../src/core/base/util/table-text";

export function recordTable(v: ExperimentView, interval: (x: LinkedNumber, digits?: number) => string): TextTable {
  const number = (x: LinkedNumber, d = 4) => [x.label, interval(x, d), x.runs.join(" and ")];
  return {
    title: v.title,
    notes: [`Hypothesis: ${v.hypothesis}`, `Verdict: ${v.sentence}`, v.rule],
    headers: ["what", "value", "from"],
    rows: [
      ...v.criteria.map((c) => [
        `${c.kind} if ${c.stated}`,
        `${c.measured}: ${c.holds ? "holds" : "does not hold"}`,
        "",
      ]),
      ...v.scores.map((x) => number(x)),
      ...v.deltas.map((x) => number(x)),
      ...(v.recovery ? [number(v.recovery, 3)] : []),
      ...v.checks.map((c) => [`check ${c.check}`, `${c.status}: ${c.reason}`, ""]),
      ...v.arms.flatMap((a) => a.links.map((l) => [`${a.name} ${l.label}`, a.training, l.run])),
      ["spent", `$${v.spendUsd.toFixed(2)}${v.budgetUsd > 0 ? ` of $${v.budgetUsd.toFixed(2)}` : ""}`, ""],
    ],
  };
}
