/**
 * Experiment webview, read like a paper's result box: the hypothesis; the verdict in one plain
 * sentence with its numbers (written by core from the record); each criterion as a row (stated,
 * measured with its CI, holds or not); the arms' train reward and their eval score from the start
 * point, side by side, each chart on one scale for every arm (the shared chart module, with axes);
 * the scores and paired comparisons; the recovery interval on a labelled axis against the
 * criterion's thresholds; every validation check; each arm's runs and traces. While the experiment
 * runs: its phase i/n, the phase's step n/N (a sweep's arms side by side: every running phase with
 * its own steps), spend of budget and one ETA.
 * Every number is a link to the run it came from (the extension opens it; only runs it named).
 * All text is set as text (h() never parses HTML): titles, arm names and reasons are untrusted.
 */
import type { ExperimentProgressView, ExperimentView, LinkedNumber } from "../../src/core/views/experiments/view-model";
import { append, clear, fmt, formatScore, h, svg } from "../shared/dom";
import { listen, send } from "../shared/host";
import { copyTableButtons } from "../shared/copy-table";
import { chartFigure, createTimeChart, palette, type TimeChart } from "../shared/charts";
import { recordTable } from "./record-table";
import { sweepSection } from "./sweep-table";

const app = document.getElementById("app")!;
let charts: TimeChart[] = [];
let lastView: ExperimentView | undefined;
let lastProgress: ExperimentProgressView | undefined;

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

function progressSection(p: ExperimentProgressView): HTMLElement {
  const bar = (label: string, done: number, planned: number, cls: string) =>
    h(
      "div",
      { class: `progress-row ${cls}` },
      h("span", { class: "progress-label" }, label),
      h("progress", { value: done, max: Math.max(planned, 1) }),
    );
  return h(
    "section",
    { id: "progress", class: `state-${p.state}` },
    h("h2", null, p.state === "running" ? "Running" : `Not finished (${p.state})`),
    h("p", { id: "progress-line" }, p.line ?? "no progress written yet"),
    ...(p.running && p.phase
      ? [
          bar(
            `phases ${p.running.map((r) => r.index).join("+")}/${p.phase.count}`,
            p.phasesDone ?? 0,
            p.phase.count,
            "phase",
          ),
          ...p.running.map((r) =>
            r.step
              ? bar(`${r.name} · ${r.step.unit} ${r.step.done}/${r.step.planned}`, r.step.done, r.step.planned, "step")
              : bar(r.name, 0, 1, "step"),
          ),
        ]
      : [
          p.phase
            ? bar(`phase ${p.phase.index}/${p.phase.count} ${p.phase.name}`, p.phase.index - 1, p.phase.count, "phase")
            : null,
          p.step
            ? bar(
                `${p.step.label} · ${p.step.unit} ${p.step.done}/${p.step.planned}`,
                p.step.done,
                p.step.planned,
                "step",
              )
            : null,
        ]),
    h(
      "p",
      { class: "muted" },
      `spent $${p.spendUsd.toFixed(2)}${p.budgetUsd > 0 ? ` of the $${p.budgetUsd.toFixed(2)} budget` : ""}`,
      p.eta !== undefined ? ` · about ${p.eta} left for the whole experiment` : "",
    ),
  );
}

function verdict(v: ExperimentView): HTMLElement {
  const mark = (holds: boolean) =>
    h("span", { class: holds ? "holds" : "fails" }, holds ? "✓ holds" : "✗ does not hold");
  return h(
    "section",
    { id: "verdict" },
    h("h2", null, "Verdict: ", h("span", { class: `verdict verdict-${v.verdict}` }, v.verdict)),
    h("p", { id: "verdict-sentence" }, v.sentence),
    h(
      "table",
      { id: "criteria" },
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", null, "criterion"),
          h("th", null, "stated"),
          h("th", null, "measured [95% CI]"),
          h("th", null, ""),
        ),
      ),
      h(
        "tbody",
        null,
        ...v.criteria.map((c) =>
          h(
            "tr",
            { class: c.holds ? "holds" : "fails" },
            h("td", null, c.kind === "supported" ? "supported if" : "refuted if"),
            h("td", null, c.stated),
            h("td", null, c.measured),
            h("td", null, mark(c.holds)),
          ),
        ),
      ),
    ),
    h("p", { class: "muted" }, v.rule),
  );
}

/** The arms' train reward per step, and their eval score at the start (base) and end: side by side, each on one scale. */
function curves(v: ExperimentView): HTMLElement {
  charts.forEach((c) => c.destroy());
  const armLabel = (a: ExperimentView["arms"][number]) => `${a.name}${a.role === "arm" ? "" : ` (${a.role})`}`;
  const reward = createTimeChart({
    name: "train-reward",
    title: "Train reward per step",
    series: v.arms.map((a, i) => ({
      label: armLabel(a),
      colorIndex: i,
      points: a.rewards.map((r, k) => [k + 1, r] as const),
    })),
    xLabel: "step",
    yLabel: "mean train reward",
  });
  const base = v.scores.find((s) => s.label === "base");
  const evals = createTimeChart({
    name: "eval-score",
    title: `${v.metricLabel}: base → arm (95% CI)`,
    series: v.arms.flatMap((a, i) => {
      const s = v.scores.find((x) => x.label === a.name);
      if (!s || !base) return [];
      const end = Math.max(a.rewards.length, 1);
      return [
        {
          label: armLabel(a),
          colorIndex: i,
          points: [[0, base.point] as const, [end, s.point] as const],
          errors: [[base.ci.lo, base.ci.hi] as const, [s.ci.lo, s.ci.hi] as const],
        },
      ];
    }),
    points: true,
    format: formatScore,
    xLabel: "step",
    yLabel: v.metricLabel,
  });
  charts = [reward, evals];
  return h(
    "section",
    { id: "curves" },
    h("h2", null, "Training and evaluation"),
    h("div", { class: "curves" }, chartFigure("train-reward", reward), chartFigure("eval-score", evals)),
  );
}

function numbers(v: ExperimentView): HTMLElement {
  const row = (x: LinkedNumber) =>
    h("tr", null, h("th", { scope: "row" }, x.label), h("td", null, linked(interval(x, 4), x.runs)));
  return h(
    "section",
    { id: "numbers" },
    h("h2", null, `${v.metricLabel} on ${v.n} shared items (95% bootstrap CIs; deltas paired)`),
    h("table", null, h("tbody", null, ...v.scores.map(row), ...v.deltas.map(row))),
  );
}

/** The recovery interval on an axis whose 0 is base and 1 the reference's gain, the thresholds marked and named. */
function recovery(v: ExperimentView): HTMLElement {
  const r = v.recovery;
  if (!r)
    return h(
      "section",
      { id: "recovery" },
      h("h2", null, "Recovery"),
      h("p", { class: "muted" }, "undefined: the reference arm did not move from base"),
    );
  const c = palette();
  const W = 520;
  const H = 96;
  const left = 20;
  const right = 20;
  const axisY = 64;
  const marks = [0, 1, ...r.thresholds, r.ci.lo, r.ci.hi, r.point];
  const lo = Math.min(...marks) - 0.1;
  const hi = Math.max(...marks) + 0.1;
  const x = (t: number) => left + ((t - lo) / (hi - lo)) * (W - left - right);
  const text = (at: number, y: number, s: string, cls: string, anchor = "middle") =>
    svg(
      "text",
      { x: at, y, "font-size": 10, "text-anchor": anchor, fill: c.fg, class: cls, "font-family": "sans-serif" },
      s,
    );
  const pct = (t: number) => `${Math.round(t * 100)}%`;
  const plot = svg(
    "svg",
    {
      xmlns: "http://www.w3.org/2000/svg",
      viewBox: `0 0 ${W} ${H}`,
      width: W,
      height: H,
      role: "img",
      class: "chart recovery-plot",
      "aria-label": `${r.label}: ${pct(r.point)} [${pct(r.ci.lo)}, ${pct(r.ci.hi)}] against the thresholds ${r.thresholds.map(pct).join(", ") || "none"}`,
    },
    svg("line", { x1: left, x2: W - right, y1: axisY, y2: axisY, stroke: c.muted, class: "axis" }),
    ...[0, 1].flatMap((t) => [
      svg("line", { x1: x(t), x2: x(t), y1: axisY - 4, y2: axisY + 4, stroke: c.muted }),
      text(x(t), axisY + 16, t === 0 ? "0% (base)" : "100% (reference's gain)", "tick"),
    ]),
    text(W / 2, H - 2, "share of the reference arm's gain the treatment recovered", "axis-title"),
    svg("line", {
      x1: x(r.ci.lo),
      x2: x(r.ci.hi),
      y1: 34,
      y2: 34,
      stroke: "currentColor",
      "stroke-width": 3,
      class: "ci",
    }),
    svg("circle", { cx: x(r.point), cy: 34, r: 4, fill: "currentColor" }),
    text(x(r.point), 24, `${pct(r.point)} [${pct(r.ci.lo)}, ${pct(r.ci.hi)}]`, "point-label"),
    ...r.thresholds.flatMap((t) => [
      svg(
        "line",
        { x1: x(t), x2: x(t), y1: 12, y2: axisY, class: "threshold", stroke: c.muted, "stroke-dasharray": "3 2" },
        svg("title", {}, `threshold ${pct(t)}`),
      ),
      text(x(t) + 3, 10, `threshold ${pct(t)}`, "threshold-label", "start"),
    ]),
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
    chartFigure("recovery", plot),
  );
}

function checks(v: ExperimentView): HTMLElement {
  return h(
    "section",
    { id: "checks" },
    h("h2", null, `Validation (${v.checks.filter((c) => c.status === "passed").length}/${v.checks.length} passed)`),
    v.checks.length
      ? h(
          "ul",
          null,
          ...v.checks.map((c) =>
            h(
              "li",
              { class: `check check-${c.status}` },
              `${c.status === "passed" ? "✓" : c.status === "failed" ? "✗" : "?"} ${c.check}: ${c.reason}`,
            ),
          ),
        )
      : h("p", { class: "muted" }, "not validated yet: Validate Experiment runs agent-lab experiment validate"),
    h(
      "p",
      { class: "muted" },
      `evaluator ${v.evaluatorId.slice(0, 12)}… · spent $${v.spendUsd.toFixed(2)}${v.budgetUsd > 0 ? ` of $${v.budgetUsd.toFixed(2)}` : ""}`,
    ),
  );
}

function arms(v: ExperimentView): HTMLElement {
  return h(
    "section",
    { id: "arms" },
    h("h2", null, "Arms"),
    h(
      "ul",
      null,
      ...v.arms.map((a) =>
        h(
          "li",
          { class: "arm", "data-arm": a.name },
          h("strong", null, a.name),
          ` (${a.training}${a.role === "arm" ? "" : `, ${a.role}`}): `,
          ...a.links.flatMap((l, i) => [i ? " · " : "", linked(l.label, [l.run])]),
        ),
      ),
    ),
  );
}

function render(): void {
  clear(app);
  const v = lastView;
  const p = lastProgress;
  if (!v) {
    if (p)
      append(app, [
        h("h1", null, p.title || p.name),
        h("p", { id: "hypothesis" }, h("strong", null, "Hypothesis: "), p.hypothesis),
        progressSection(p),
      ]);
    return;
  }
  append(app, [
    h("h1", null, v.title),
    copyTableButtons("record", () => recordTable(v, interval)),
    p && p.state !== "done" ? progressSection(p) : null,
    h("p", { id: "hypothesis" }, h("strong", null, "Hypothesis: "), v.hypothesis),
    verdict(v),
    curves(v),
    numbers(v),
    recovery(v),
    ...(v.sweep ? [sweepSection(v.sweep, linked)] : []),
    checks(v),
    arms(v),
  ]);
}

listen((m) => {
  if (m.type === "experiment/view") lastView = m.view;
  else if (m.type === "experiment/progress") lastProgress = m.progress;
  else return;
  render();
});
