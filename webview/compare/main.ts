/**
 * Compare webview: fingerprint warnings, the ablation table (F1/EM with CIs, Δ with paired CIs,
 * tests, Holm, verdicts, MDE, searches/q, $/q), a forest plot of Δ F1 and Δ EM, the per-question
 * flips (click: both traces side by side) and pinned questions across every run.
 */
import "../shared/elements";
import type { AblationReport, QuestionRow } from "../../src/core/analysis/report-types";
import { chartFigure, forestPlot } from "../shared/charts";
import { append, clear, fmt, h, usd } from "../shared/dom";
import { listen, markFirstFrame, send } from "../shared/host";

const app = document.getElementById("app")!;
let report: AblationReport | undefined;
let comparison = 0;
const pinned: string[] = [];

function ci(e: { lo: number; hi: number }): string {
  return `[${fmt(e.lo)}, ${fmt(e.hi)}]`;
}

function p(x: number): string {
  return x < 0.001 ? "<0.001" : x.toFixed(3);
}

function warnings(r: AblationReport): HTMLElement {
  // ablate's warnings already name every unexpected fingerprint difference, per run.
  const items = r.warnings;
  const expected = r.comparisons.flatMap((c) => c.expected_differences.map((d) => `${c.name}: ${d.field} (expected)`));
  return h(
    "div",
    { class: items.length ? "warnings" : "warnings none", id: "warnings" },
    items.length ? h("strong", null, "Comparability warnings") : h("span", { class: "muted" }, "Fingerprints match (apart from expected fields)."),
    items.length ? h("ul", null, ...items.map((w) => h("li", null, w))) : null,
    expected.length ? h("div", { class: "muted" }, `Expected differences: ${expected.join("; ")}`) : null,
  );
}

function table(r: AblationReport): HTMLElement {
  const head = ["run", "n", "F1 [95% CI]", "EM [95% CI]", "ΔF1 [paired CI]", "p (Holm)", "verdict F1", "ΔEM [paired CI]", "McNemar p (Holm)", "verdict EM", "MDE F1", "searches/q", "answered", "$/q"];
  const rows = r.runs.map((run, i) => {
    const c = i === 0 ? undefined : r.comparisons.find((x) => x.run === i);
    return h(
      "tr",
      { class: i === 0 ? "baseline" : "" },
      h("th", { scope: "row" }, run.name, i === 0 ? h("span", { class: "muted" }, " (baseline)") : null),
      h("td", null, run.episodes - run.dropped),
      h("td", null, `${fmt(run.f1.mean)} ${ci(run.f1.ci)}`),
      h("td", null, `${fmt(run.em.mean)} ${ci(run.em.ci)}`),
      h("td", null, c ? `${fmt(c.f1.delta)} ${ci(c.f1.ci)}` : "–"),
      h("td", null, c ? `${p(c.f1.p)} (${p(c.f1.p_holm)})` : "–"),
      h("td", { class: c ? `verdict verdict-${c.f1.verdict.replace(/\s+/g, "-")}` : "" }, c ? c.f1.verdict : "–"),
      h("td", null, c ? `${fmt(c.em.delta)} ${ci(c.em.ci)}` : "–"),
      h("td", null, c ? `${p(c.em.p)} (${p(c.em.p_holm)})` : "–"),
      h("td", { class: c ? `verdict verdict-${c.em.verdict.replace(/\s+/g, "-")}` : "" }, c ? c.em.verdict : "–"),
      h("td", null, c ? fmt(c.f1.mde) : "–"),
      h("td", null, fmt(run.searches_per_q, 2)),
      h("td", null, `${Math.round(run.answered * 100)}%`),
      h("td", null, usd(run.usd_per_q)),
    );
  });
  const t = h("table", { class: "ablation", id: "ablation-table" }, h("thead", null, h("tr", null, ...head.map((x) => h("th", null, x)))), h("tbody", null, ...rows));
  return h("div", { class: "table-scroll" }, t);
}

function forest(r: AblationReport): HTMLElement {
  const f1 = r.comparisons.map((c) => ({ label: c.name, delta: c.f1.delta, lo: c.f1.ci.lo, hi: c.f1.ci.hi, verdict: c.f1.verdict }));
  const em = r.comparisons.map((c) => ({ label: c.name, delta: c.em.delta, lo: c.em.ci.lo, hi: c.em.ci.hi, verdict: c.em.verdict }));
  return h("div", { class: "charts", id: "forest" }, chartFigure("delta-f1", forestPlot(`Δ F1 vs ${r.runs[0].name}`, f1)), chartFigure("delta-em", forestPlot(`Δ EM vs ${r.runs[0].name}`, em)));
}

function flipItem(q: QuestionRow, runIndex: number): HTMLElement {
  const item = h(
    "li",
    { class: "flip", "data-id": q.id, tabindex: 0, title: "open both traces side by side" },
    h("span", { class: "q" }, q.question),
    h("span", { class: "muted" }, ` F1 ${fmt(q.f1[0], 2)} → ${fmt(q.f1[runIndex], 2)} · `),
    h("span", { class: "pred" }, `“${q.prediction[0]}” → “${q.prediction[runIndex]}”`),
  );
  const pin = h("vscode-button", { secondary: true, class: "pin", title: "pin: this question across all runs" }, "Pin");
  pin.addEventListener("click", (e) => {
    e.stopPropagation();
    if (!pinned.includes(q.id)) pinned.push(q.id);
    render();
  });
  item.appendChild(pin);
  const open = () => send({ type: "compare/openPair", questionId: q.id, runs: [0, runIndex] });
  item.addEventListener("click", open);
  item.addEventListener("keydown", (e) => {
    if (e.key === "Enter") open();
  });
  return item;
}

function flips(r: AblationReport): HTMLElement {
  const c = r.comparisons[comparison];
  if (!c) return h("div", { class: "muted" }, "One run: nothing to compare.");
  const idx = r.comparisons.indexOf(c);
  const improved = r.questions.filter((q) => q.flips[idx]?.f1 === "improved");
  const regressed = r.questions.filter((q) => q.flips[idx]?.f1 === "regressed");
  const picker = h("select", { id: "comparison-picker" }, ...r.comparisons.map((x, i) => h("option", { value: i, ...(i === comparison ? { selected: true } : {}) }, `${x.name} vs ${r.runs[0].name}`)));
  picker.addEventListener("change", () => {
    comparison = Number(picker.value);
    render();
  });
  return h(
    "div",
    { class: "flips", id: "flips" },
    h("h3", null, "Per-question flips (F1) ", picker),
    h(
      "div",
      { class: "flip-columns" },
      h("div", null, h("h4", null, `Improved (${improved.length})`), h("ul", { id: "improved" }, ...improved.slice(0, 500).map((q) => flipItem(q, c.run)))),
      h("div", null, h("h4", null, `Regressed (${regressed.length})`), h("ul", { id: "regressed" }, ...regressed.slice(0, 500).map((q) => flipItem(q, c.run)))),
    ),
  );
}

function pins(r: AblationReport): HTMLElement | null {
  if (pinned.length === 0) return null;
  return h(
    "div",
    { class: "pins", id: "pins" },
    h("h3", null, "Pinned questions"),
    ...pinned.map((id) => {
      const q = r.questions.find((x) => x.id === id);
      if (!q) return null;
      const unpin = h("vscode-button", { secondary: true }, "Unpin");
      unpin.addEventListener("click", () => {
        pinned.splice(pinned.indexOf(id), 1);
        render();
      });
      return h(
        "div",
        { class: "pin-card" },
        h("div", { class: "q" }, q.question, " ", unpin),
        h("div", { class: "muted" }, `gold: ${q.answers.join(" | ")}`),
        h("ol", null, ...r.runs.map((run, i) => h("li", null, h("strong", null, run.name), `: “${q.prediction[i]}” F1 ${fmt(q.f1[i], 2)} EM ${q.em[i]}`))),
      );
    }),
  );
}

function render(): void {
  if (!report) return;
  clear(app);
  append(app, [
    h("h2", null, `Compare ${report.runs.length} runs on ${report.shared} shared questions`),
    warnings(report),
    table(report),
    h("p", { class: "muted" }, report.verdict_rule),
    forest(report),
    pins(report),
    flips(report),
  ]);
}

listen((m) => {
  if (m.type === "compare/report") {
    report = m.report;
    render();
    markFirstFrame("dataFrameAt");
  }
});
