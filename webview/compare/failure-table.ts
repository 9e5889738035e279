/**
 * Compare's failure-label table: for each label its count in each run and the paired change in the
 * share of shared questions with it against the first run (95% interval, McNemar, Holm across
 * labels), with the one-line sentence per change ("removed 23 answer_too_long (−11.5 pts [−16.0,
 * −7.0])"). A component of its own; every text goes in as a text node (h()).
 */
import type { FailureComparison } from "../../src/extension/webview/protocol";
import { h } from "../shared/dom";

const pts = (x: number) => `${x > 0 ? "+" : x < 0 ? "−" : ""}${Math.abs(100 * x).toFixed(1)}`;
const p = (x: number) => (x < 1e-4 ? "<0.0001" : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2));

function sentence(label: string, c: FailureComparison["rows"][number]["changes"][number]): string {
  const net = c.fixed - c.introduced;
  const verb = net > 0 ? `removed ${net}` : net < 0 ? `added ${-net}` : "left the count of";
  return `${verb} ${label} (${pts(c.delta)} pts [${pts(c.ci.lo)}, ${pts(c.ci.hi)}])`;
}

/** The section, or an empty list before the labels arrive (or when the environment declares none). */
export function failureSection(cmp: FailureComparison | undefined): HTMLElement[] {
  if (!cmp) return [];
  const rows = cmp.rows.filter((r) => r.counts.some((c) => c > 0));
  const others = cmp.runs.slice(1);
  const table = h(
    "table",
    { id: "failure-label-table", class: "failure-label-table" },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        h("th", null, "label"),
        ...cmp.runs.map((n) => h("th", null, n)),
        ...others.map((n) => h("th", null, `Δ share ${n} [95% CI]`)),
        ...others.map((n) => h("th", null, `p (Holm) ${n}`)),
      ),
    ),
    h(
      "tbody",
      null,
      ...rows.map((r) =>
        h(
          "tr",
          { "data-label": r.label, title: r.description },
          h("td", null, r.label),
          ...r.counts.map((c) => h("td", { class: "num" }, String(c))),
          ...r.changes.map((c) =>
            h(
              "td",
              { class: `num change-${c.verdict === "not distinguishable" ? "none" : c.verdict}` },
              `${pts(c.delta)} pts [${pts(c.ci.lo)}, ${pts(c.ci.hi)}]`,
            ),
          ),
          ...r.changes.map((c) => h("td", { class: "num" }, p(c.p_holm))),
        ),
      ),
    ),
  );
  const sentences = rows.flatMap((r) =>
    r.changes
      .filter((c) => c.fixed + c.introduced > 0)
      .map((c) => h("li", null, `${cmp.runs[c.run]} ${sentence(r.label, c)}`)),
  );
  return [
    h(
      "section",
      { id: "failure-labels", class: "failure-labels" },
      h("h3", null, `Failure labels on ${cmp.shared} shared questions`),
      rows.length ? table : h("p", { class: "muted" }, "No failed episode in any run."),
      ...(sentences.length ? [h("ul", { id: "failure-sentences" }, ...sentences)] : []),
      h(
        "p",
        { class: "muted" },
        "Share of the shared questions with each label; paired bootstrap intervals, McNemar per label, Holm across labels.",
      ),
    ),
  ];
}
