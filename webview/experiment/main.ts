/**
 * Experiment webview: the hypothesis, the verdict and the criterion's conditions, the arms' train
 * reward curves side by side (one scale), the scores and paired comparisons with their intervals,
 * the recovery interval drawn against the criterion's thresholds, and the validation checklist.
 * Every number is a link to the run it came from (the extension opens it; only runs it named).
 */
import type { ExperimentView, LinkedNumber } from "../../src/core/views/experiments/view-model";
import { append, clear, fmt, h, svg } from "../shared/dom";
import { listen, send } from "../shared/host";
import { copyTableButtons } from "../shared/copy-table";
import { recordTable } from "./record-table";
import { sweepSection } from "./sweep-table";

const app = document.getElementById("app")!;

/** A number that opens its run (the first of `runs`; the title names them all). */
function linked(text: string, runs: string[]): HTMLElement {
  const a = h(
    "a",
    { class: "run-link", role: "link", tabindex: 0, title: `from ${runs.join(" and ")}`, "data-run": runs[0] },
    text,
  );
  const open = () => send({ type: "experiment/openRun", run: runs[0] });
  a.addEventListener("click", open);
  a.addEventListener("keydown", (e) => {
    if (e.key === "Enter") open();
  });
  return a;
}

const interval = (x: LinkedNumber, d = 3) => `${fmt(x.point, d)} [${fmt(x.ci.lo, d)}, ${fmt(x.ci.hi, d)}]`;

function curves(v: ExperimentView): HTMLElement {
  const W = 260;
  const H = 120;
  const all = v.arms.flatMap((a) => a.rewards);
  const lo = all.length ? Math.min(...all) : 0;
  const hi = all.length ? Math.max(...all, lo + 1e-9) : 1;
  const flat = !all.some((r) => r !== lo);
  const charts = v.arms.map((a) => {
    const n = a.rewards.length;
    // Every reward the same (a run that never scored): the line across the middle, not on the floor.
    const y = (r: number) => (flat ? H / 2 : H - ((r - lo) / (hi - lo)) * H);
    const pts = a.rewards.map((r, i) => `${n > 1 ? (i / (n - 1)) * W : W / 2},${y(r)}`).join(" ");
    return h(
      "figure",
      { class: "arm-curve", "data-arm": a.name },
      svg(
        "svg",
        {
          viewBox: `-4 -4 ${W + 8} ${H + 8}`,
          width: W + 8,
          height: H + 8,
          role: "img",
          "aria-label": `${a.name} train reward per step`,
        },
        svg("polyline", { points: pts, fill: "none", stroke: "currentColor", "stroke-width": 1.5 }),
      ),
      h(
        "figcaption",
        null,
        linked(`${a.name}${a.role === "arm" ? "" : ` (${a.role})`}`, [a.run]),
        ` · ${n} steps · reward ${fmt(a.rewards[0])} → ${fmt(a.rewards[n - 1])}`,
      ),
    );
  });
  return h(
    "section",
    { id: "curves" },
    h("h2", null, `Train reward per step (shared scale ${fmt(lo)}–${fmt(hi)})`),
    h("div", { class: "curves" }, ...charts),
  );
}

function numbers(v: ExperimentView): HTMLElement {
  const row = (x: LinkedNumber) =>
    h("tr", null, h("th", { scope: "row" }, x.label), h("td", null, linked(interval(x, 4), x.runs)));
  return h(
    "section",
    { id: "numbers" },
    h("h2", null, `${v.metric} on ${v.n} shared items (95% bootstrap CIs; deltas paired)`),
    h("table", null, h("tbody", null, ...v.scores.map(row), ...v.deltas.map(row))),
  );
}

function recovery(v: ExperimentView): HTMLElement {
  const r = v.recovery;
  if (!r)
    return h(
      "section",
      { id: "recovery" },
      h("h2", null, "Recovery"),
      h("p", { class: "muted" }, "undefined: the reference arm did not move from base"),
    );
  const W = 420;
  const marks = [0, 1, ...r.thresholds, r.ci.lo, r.ci.hi, r.point];
  const lo = Math.min(...marks) - 0.1;
  const hi = Math.max(...marks) + 0.1;
  const x = (t: number) => ((t - lo) / (hi - lo)) * W;
  const plot = svg(
    "svg",
    {
      viewBox: `0 0 ${W} 50`,
      width: W,
      height: 50,
      role: "img",
      "aria-label": "recovery interval against the thresholds",
    },
    svg("line", {
      x1: x(r.ci.lo),
      x2: x(r.ci.hi),
      y1: 25,
      y2: 25,
      stroke: "currentColor",
      "stroke-width": 3,
      class: "ci",
    }),
    svg("circle", { cx: x(r.point), cy: 25, r: 4, fill: "currentColor" }),
    ...r.thresholds.map((t) =>
      svg(
        "line",
        { x1: x(t), x2: x(t), y1: 5, y2: 45, class: "threshold", stroke: "currentColor", "stroke-dasharray": "3 2" },
        svg("title", {}, `threshold ${t}`),
      ),
    ),
    ...[0, 1].map((t) =>
      svg("text", { x: x(t), y: 48, "font-size": 9, "text-anchor": "middle", fill: "currentColor" }, String(t)),
    ),
  );
  return h(
    "section",
    { id: "recovery" },
    h("h2", null, r.label),
    h(
      "p",
      null,
      linked(interval(r), r.runs),
      ` · thresholds ${r.thresholds.length ? r.thresholds.join(", ") : "none"} · ${r.resamples_used} resamples with a reference gain`,
    ),
    plot,
  );
}

function render(v: ExperimentView): void {
  clear(app);
  append(app, [
    h("h1", null, v.title),
    copyTableButtons("record", () => recordTable(v, interval)),
    h("p", { id: "hypothesis" }, h("strong", null, "Hypothesis: "), v.hypothesis),
    h(
      "section",
      { id: "verdict" },
      h("h2", null, "Verdict: ", h("span", { class: `verdict verdict-${v.verdict}` }, v.verdict)),
      h(
        "ul",
        null,
        ...v.conditions.map((c) => h("li", { class: c.holds ? "holds" : "fails" }, `${c.kind}: ${c.text}`)),
      ),
      h("p", { class: "muted" }, v.rule),
    ),
    curves(v),
    numbers(v),
    recovery(v),
    ...(v.sweep ? [sweepSection(v.sweep, linked)] : []),
    h(
      "section",
      { id: "checks" },
      h("h2", null, `Validation (${v.checks.filter((c) => c.status === "passed").length}/${v.checks.length} passed)`),
      h(
        "ul",
        null,
        ...v.checks.map((c) =>
          h(
            "li",
            { class: `check check-${c.status}` },
            `${c.status === "passed" ? "✓" : c.status === "failed" ? "✗" : "?"} ${c.check}: ${c.reason}`,
          ),
        ),
      ),
      h("p", { class: "muted" }, `evaluator ${v.evaluatorId.slice(0, 12)}… · spent $${v.spendUsd.toFixed(2)}`),
    ),
  ]);
}

listen((m) => {
  if (m.type === "experiment/view") render(m.view);
});
