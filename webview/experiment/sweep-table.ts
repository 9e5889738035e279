/**
 * A sweep in the experiment panel: the ranking table (arm names link to their eval runs, as every
 * number in the panel does), the best-arm claim with its rule, Copy as Markdown / CSV, and one
 * metric-vs-value chart per swept parameter on the shared chart module (axes, intervals as error
 * bars, a line per combination of the other parameters).
 */
import type { SweepView } from "../../src/core/views/experiments/sweep-view-model";
import { chartFigure, createTimeChart } from "../shared/charts";
import { copyTableButtons } from "../shared/copy-table";
import { h } from "../shared/dom";

export function sweepSection(s: SweepView, linked: (text: string, runs: string[]) => HTMLElement): HTMLElement {
  const armColumn = s.table.headers.indexOf("arm");
  const rows = s.table.rows.map((cells, i) => {
    const arm = s.arms[i];
    return h(
      "tr",
      { "data-arm": arm.name, class: arm.name === s.best ? "best" : undefined },
      ...cells.map((c, k) =>
        k === armColumn
          ? h("th", { scope: "row" }, linked(c, [arm.evalRun, ...(arm.trainRun ? [arm.trainRun] : [])]))
          : h("td", null, c),
      ),
    );
  });
  const charts = s.plots.map((p) =>
    chartFigure(
      `sweep-${p.param}`,
      createTimeChart({
        name: `sweep-${p.param}`,
        title: `${s.metric} by ${p.param} (95% CI)`,
        series: p.series.map((line, i) => ({ ...line, colorIndex: i })),
        points: true,
        xLabel: p.param,
        yLabel: s.metric,
        height: 200,
      }),
    ),
  );
  return h(
    "section",
    { id: "sweep" },
    h("h2", null, `Sweep over ${s.params.join(", ")}: ${s.table.rows.length} arms on ${s.n} shared items`),
    copyTableButtons("sweep", () => s.table),
    h("p", { id: "sweep-best" }, h("strong", null, "Best arm: "), s.best ?? "none", ` — ${s.bestReason}`),
    h(
      "table",
      { id: "sweep-table" },
      h("thead", null, h("tr", null, ...s.table.headers.map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", null, ...rows),
    ),
    h("p", { class: "muted" }, s.table.notes?.[0] ?? "", " ", s.rule),
    h("div", { class: "sweep-plots" }, ...charts),
  );
}
