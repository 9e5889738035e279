/**
 * The Checkpoints sidebar (a webview view, 300–400 px wide): the chosen training runs, the val score
 * of each checkpoint vs step with its 95% interval (one line per run, the baseline as a reference
 * line), the best-by-val note, and one row per checkpoint — name and step, the score with its
 * interval, the paired Δ against the baseline with its Holm-adjusted p and verdict, the evals with
 * other settings listed apart naming the field that differs — never a wide table. Ticking rows picks
 * them for Compare selected; Evaluate missing and Open full Compare are the extension's.
 */
import type { CheckpointsSidebarView, SidebarRow } from "../../src/core/views/checkpoints/sidebar-view";
import type { HostMessage } from "../../src/extension/webview/protocol";
import { createTimeChart, type TimeChart } from "../shared/charts";
import { append, clear, fmt, formatScore, h, isChecked } from "../shared/dom";
import { listen, loadingLine, markFirstFrame, send } from "../shared/host";

const app = document.getElementById("app")!;
let chart: TimeChart | undefined;
let selected = new Set<string>();

const signed = (x: number) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(3);
const interval = (p: { lo: number; hi: number }) => `[${fmt(p.lo)}, ${fmt(p.hi)}]`;
const pText = (p: number) => (p < 1e-4 ? "<0.0001" : p >= 0.1 ? p.toFixed(2) : p.toPrecision(2));

function button(id: string, text: string, title: string, onClick: () => void, secondary = true): HTMLElement {
  const b = h("vscode-button", { id, title, ...(secondary ? { secondary: true } : {}) }, text);
  b.addEventListener("click", onClick);
  return b;
}

function header(v: CheckpointsSidebarView): HTMLElement {
  const chosen = v.runs.filter((r) => r.chosen).map((r) => r.name);
  const picker = h(
    "select",
    { id: "baseline", title: "the baseline every Δ is paired against" },
    // Nothing scored yet: say so in the control rather than show it blank.
    v.baseline
      ? null
      : h("option", { value: "", selected: true, disabled: true }, "none yet: no val score to pair against"),
    ...v.baselines.map((b) =>
      h(
        "option",
        {
          value: b.id,
          ...(b.id === v.baseline?.id ? { selected: true } : {}),
          ...(b.evalRun ? {} : { disabled: true }),
          title: b.evalRun ? `${b.label}: ${b.evalRun}` : `${b.label}: ${b.why ?? "not available"}`,
        },
        b.evalRun ? b.label : `${b.label} — ${b.why ?? "not available"}`,
      ),
    ),
  );
  picker.addEventListener("change", () =>
    send({ type: "checkpoints/setBaseline", baseline: (picker as HTMLSelectElement).value }),
  );
  return h(
    "div",
    { class: "ckpt-head" },
    h(
      "div",
      { class: "ckpt-runs" },
      h("span", { id: "runs", title: "training runs shown" }, chosen.length ? chosen.join(", ") : "no training runs"),
      button("choose-runs", "Runs…", "choose the training runs shown", () => send({ type: "checkpoints/chooseRuns" })),
    ),
    h("label", { class: "ckpt-baseline" }, "Δ vs ", picker),
  );
}

function scoreChart(v: CheckpointsSidebarView): HTMLElement | null {
  chart?.destroy();
  chart = undefined;
  const runs = v.runs.filter((r) => r.chosen).map((r) => r.name);
  const series = runs.flatMap((run, i) => {
    const scored = v.rows.filter((r) => r.run === run && r.primary);
    return scored.length
      ? [
          {
            label: run,
            colorIndex: i,
            points: scored.map((r) => [r.step, r.primary!.mean] as const),
            errors: scored.map((r) => [r.primary!.lo, r.primary!.hi] as const),
          },
        ]
      : [];
  });
  if (series.length === 0) return null;
  chart = createTimeChart({
    name: "checkpoint-val",
    title: `val ${v.valMetric} by step (95% CI)`,
    series,
    points: true,
    format: formatScore,
    yLabel: `val ${v.valMetric}`,
    refLines: v.baseline?.primary
      ? [
          {
            label: v.baseline.label,
            value: v.baseline.primary.mean,
            detail: `${interval(v.baseline.primary)} (${v.baseline.evalRun})`,
          },
        ]
      : [],
    height: 160,
  });
  return h("div", { class: "ckpt-chart", id: "chart" }, chart.el);
}

function deltaLine(r: SidebarRow, v: CheckpointsSidebarView): HTMLElement | null {
  if (r.isBaseline) return h("div", { class: "delta muted" }, "baseline");
  if (!r.delta) return null;
  const d = r.delta;
  return h(
    "div",
    {
      class: `delta verdict-${d.verdict.replace(/ /g, "-")}`,
      title: `paired over ${d.n} questions against ${v.baseline?.evalRun}; p = ${pText(d.p)} before Holm across ${v.holmFamily} rows`,
    },
    `Δ ${signed(d.delta)} [${signed(d.lo)}, ${signed(d.hi)}] · p_holm ${pText(d.pHolm)} · ${d.verdict}`,
  );
}

function row(r: SidebarRow, v: CheckpointsSidebarView, evaluating: Set<string>): HTMLElement {
  const box = h("vscode-checkbox", {
    class: "pick",
    "data-checkpoint": r.name,
    title: "pick for Compare selected",
    ...(selected.has(r.name) ? { checked: true } : {}),
  });
  box.addEventListener("change", () => {
    if (isChecked(box)) selected.add(r.name);
    else selected.delete(r.name);
    send({ type: "checkpoints/select", selected: [...selected] });
    updateSelectedCount();
  });
  const where = [r.epoch !== undefined ? `epoch ${r.epoch}` : undefined, `step ${r.step}`].filter(Boolean).join(" · ");
  const score = r.primary
    ? h(
        "span",
        { class: "score", title: `${r.evalRun}: ${r.n} questions` },
        `${v.valMetric} ${fmt(r.primary.mean)} ${interval(r.primary)}`,
      )
    : h(
        "span",
        { class: "score muted" },
        evaluating.has(r.name) ? "evaluating…" : r.samplerPath ? "not evaluated" : "no sampler to evaluate",
      );
  return h(
    "li",
    {
      class: `ckpt-row${r.isBest ? " best" : ""}${r.isBaseline ? " is-baseline" : ""}`,
      "data-checkpoint": r.name,
    },
    h(
      "div",
      { class: "ckpt-line" },
      box,
      h("span", { class: "name", title: `${r.run}/${r.name}` }, r.isBest ? `★ ${r.name}` : r.name),
      h("span", { class: "where muted" }, where),
    ),
    h("div", { class: "ckpt-line" }, score),
    deltaLine(r, v),
    ...r.otherEvals.map((o) =>
      h(
        "div",
        { class: "other-eval muted", title: `not the training run's eval settings: ${o.differs.join(", ")}` },
        `other eval ${o.evalRun} (${o.differs.join(", ")}): ${fmt(o.primary.mean)} ${interval(o.primary)}`,
      ),
    ),
  );
}

let compareButton: HTMLElement | undefined;
function updateSelectedCount(): void {
  if (compareButton) compareButton.textContent = `Compare selected (${selected.size})`;
}

function render(v: CheckpointsSidebarView, evaluating: Set<string>): void {
  clear(app);
  const waiting = v.missing.filter((m) => !evaluating.has(m.name));
  compareButton = button(
    "compare-selected",
    "",
    "the Compare panel on the ticked checkpoints' matched val evals (the first ticked is the baseline)",
    () => send({ type: "checkpoints/openCompare", which: "selected" }),
  );
  updateSelectedCount();
  append(app, [
    header(v),
    ...v.problems.map((p) => h("p", { class: "warning" }, p)),
    v.rows.length === 0
      ? h("p", { class: "muted", id: "empty" }, "No checkpoints yet: train SFT or GRPO, or run the pipeline.")
      : null,
    scoreChart(v),
    v.best
      ? h(
          "p",
          {
            id: "best-note",
            class: v.best.overlapping.length ? "best-note overlap" : "best-note",
            title: `rule: ${v.bestRule}`,
          },
          `★ ${v.best.best}: ${v.best.note}`,
        )
      : null,
    v.baseline && v.holmFamily > 0
      ? h(
          "p",
          { class: "muted", id: "holm-note" },
          `Δ paired against ${v.baseline.label} (${v.baseline.evalRun}); p Holm-adjusted across ${v.holmFamily} row${v.holmFamily === 1 ? "" : "s"}.`,
        )
      : null,
    h(
      "div",
      { class: "ckpt-actions" },
      button(
        "evaluate-missing",
        evaluating.size ? `Evaluating ${evaluating.size}…` : `Evaluate missing (${waiting.length})`,
        "estimate, confirm, then evaluate on val every checkpoint shown without a matched eval",
        () => send({ type: "checkpoints/evaluateMissing" }),
        waiting.length === 0,
      ),
      compareButton,
      button("open-compare", "Open full Compare", "the Compare panel on the baseline and every scored checkpoint", () =>
        send({ type: "checkpoints/openCompare", which: "all" }),
      ),
    ),
    h("ul", { class: "ckpt-rows", id: "rows" }, ...v.rows.map((r) => row(r, v, evaluating))),
  ]);
}

function handle(m: HostMessage): void {
  if (m.type === "checkpoints/view") {
    selected = new Set(m.selected);
    render(m.view, new Set(m.evaluating));
    markFirstFrame("dataFrameAt");
  } else if (m.type === "retarget") {
    clear(app);
    app.appendChild(loadingLine());
  }
}

listen(handle);
