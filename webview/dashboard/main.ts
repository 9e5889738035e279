/**
 * Training dashboard webview: the run's metrics grouped (reward, health, length, cost, throughput,
 * optimisation) as step charts with one smoothing slider for all, a log toggle per chart, synced
 * hover readouts, drag-zoom, the recipe's healthy ranges as bands, other runs overlaid; constant
 * metrics in one line instead of flat charts; the val score (the run's own metric, `valMetric`) of
 * the saved checkpoints (only from evals with the run's eval settings, others listed apart)
 * against base and SFT lines, with Evaluate for those not evaluated; group health per step —
 * click a step for its groups (mixed first, with their questions), a group for its G episodes side
 * by side. Redrawn on each update; zoom, log and smoothing survive the redraw.
 */
import type { GroupEpisodes } from "../../src/extension/webview/protocol";
import type { CheckpointScore, DashboardView, PrimaryScore, Series } from "../../src/core/views/trace/dashboard-view";
import {
  healthyBand,
  type BandContext,
  METRIC_GROUPS,
  metricGroup,
  metricLabel,
  orderMetrics,
  type MetricGroup,
} from "../../src/core/views/trace/metric-groups";
import { chartFigure, createTimeChart, palette, type TimeChart } from "../shared/charts";
import { formatNumber, formatUsdValue, isConstant, MAX_SMOOTHING } from "../shared/chart-math";
import { append, clear, fmt, formatScore, h, isChecked } from "../shared/dom";
import { listen, loadingLine, markFirstFrame, send } from "../shared/host";
import { renderStream } from "../trace/token-stream";
import { checkpointCopyButtons } from "./checkpoint-table-copy";
import { onXAxis, X_AXIS_LABELS, type XAxis, type XAxisKind } from "../../src/core/views/trace/x-axes";

const app = document.getElementById("app")!;
let view: DashboardView | undefined;
let pickedStep: number | undefined;
let group: GroupEpisodes | undefined;
/** TensorBoard's default smoothing. */
let smoothing = 0.6;
const logScale = new Set<string>();
const zoom = new Map<string, [number, number]>();
let charts: TimeChart[] = [];
/** The metric charts' x axis: step, wall time or tokens trained (as W&B offers them). */
let xAxis: XAxisKind = "step";

const formatFor = (key: string) => (/usd|cost/.test(key) ? formatUsdValue : formatNumber);

interface RunLine {
  run: string;
  colorIndex: number;
  series: Series;
}

/** Each metric's lines: this run's first, then the overlays that log the same metric. */
function linesByMetric(v: DashboardView): Map<string, RunLine[]> {
  const out = new Map<string, RunLine[]>();
  const add = (run: string, colorIndex: number, list: Series[]) => {
    for (const s of list) {
      if (!out.has(s.key)) out.set(s.key, []);
      out.get(s.key)!.push({ run, colorIndex, series: s });
    }
  };
  // On wall time or tokens, each run's points move to its own x values; a run without that axis is left out.
  const onAxis = (axes: XAxis[] | undefined, list: Series[]): Series[] => {
    if (xAxis === "step") return list;
    const axis = axes?.find((a) => a.kind === xAxis);
    return axis ? list.map((s) => ({ key: s.key, points: onXAxis(s.points, axis) })) : [];
  };
  add(v.run, 0, onAxis(v.xAxes, v.series));
  v.overlays.forEach((o, i) => add(o.run, i + 1, onAxis(o.xAxes, o.series)));
  return out;
}

/** "x axis: step | wall time | tokens": the axes this run logs (others greyed out, with why). */
function xAxisPicker(v: DashboardView): HTMLElement {
  const kinds: XAxisKind[] = ["step", "wall", "tokens"];
  const buttons = kinds.map((kind) => {
    const has = kind === "step" || (v.xAxes ?? []).some((a) => a.kind === kind);
    const b = h(
      "button",
      {
        class: `x-axis-choice${kind === xAxis ? " picked" : ""}`,
        "data-axis": kind,
        "aria-pressed": String(kind === xAxis),
        title: has
          ? `plot every metric against ${X_AXIS_LABELS[kind]}`
          : `this run's metrics.jsonl logs no ${X_AXIS_LABELS[kind]}`,
        ...(has ? {} : { disabled: true }),
      },
      kind === "wall" ? "wall time" : kind,
    );
    b.addEventListener("click", () => {
      if (!has || kind === xAxis) return;
      xAxis = kind;
      zoom.clear(); // a zoom in steps means nothing in seconds
      render();
    });
    return b;
  });
  return h("span", { class: "x-axis", id: "x-axis", role: "group", "aria-label": "x axis" }, "x axis ", ...buttons);
}

/** What a metric's healthy band reads from this run besides the metric: its other metrics and its group size. */
function bandContext(run: string): BandContext {
  const v = view;
  if (!v || v.run !== run) return {};
  return {
    metric: (key) => v.series.find((s) => s.key === key)?.points.map(([, y]) => y),
    group: v.groups.find((g) => g.rewards.length > 0)?.rewards.length,
  };
}

function metricFigure(key: string, lines: RunLine[], overlaid: boolean): HTMLElement {
  const own = lines.find((l) => l.colorIndex === 0);
  const fmtValue = formatFor(key);
  // The header's readout, by step whatever the x axis: the picked step's value (group health's click), else the last step's.
  const bySteps = own ? view?.series.find((x) => x.key === key)?.points : undefined;
  const picked = pickedStep !== undefined ? bySteps?.find(([step]) => step === pickedStep) : undefined;
  const shown = picked ?? bySteps?.at(-1);
  // The range and its advice read the run's own numbers: its group size and its other metrics.
  const band = own
    ? healthyBand(
        key,
        own.series.points.map(([, y]) => y),
        bandContext(own.run),
      )
    : undefined;
  const chart = createTimeChart({
    name: key,
    title: key,
    series: lines.map((l) => ({ label: overlaid ? l.run : key, colorIndex: l.colorIndex, points: l.series.points })),
    smoothing,
    log: logScale.has(key),
    band,
    format: fmtValue,
    xLabel: X_AXIS_LABELS[xAxis],
    yLabel: metricLabel(key),
    xRange: zoom.get(key),
    onZoom: (r) => (r ? zoom.set(key, r) : zoom.delete(key)),
    syncKey: "dashboard-steps",
  });
  charts.push(chart);
  const log = h("vscode-checkbox", {
    label: "log",
    class: "log-toggle",
    checked: logScale.has(key),
    title: "logarithmic y axis",
  });
  log.addEventListener("change", () => {
    const on = isChecked(log);
    if (on) logScale.add(key);
    else logScale.delete(key);
    chart.setLog(on);
  });
  return h(
    "div",
    { class: "metric", "data-key": key, "data-group": metricGroup(key) },
    h(
      "div",
      { class: "metric-head" },
      h("span", { class: "metric-name", title: key }, metricLabel(key)),
      h("span", { class: "metric-last" }, shown ? `step ${shown[0]}: ${fmtValue(shown[1])}` : ""),
    ),
    chartFigure(key, chart, log),
  );
}

function constantsLine(keys: string[], lines: Map<string, RunLine[]>, overlaid: boolean): HTMLElement | null {
  if (keys.length === 0) return null;
  const cells = keys.map((key) => {
    const fmtValue = formatFor(key);
    const values = lines.get(key)!.map((l) => `${overlaid ? `${l.run} ` : ""}${fmtValue(l.series.points[0][1])}`);
    return h(
      "td",
      { "data-key": key },
      h("span", { class: "metric-name", title: key }, metricLabel(key)),
      " ",
      values.join(" · "),
    );
  });
  return h(
    "table",
    { class: "constants", id: "constants", title: "Metrics with one value at every step: listed, not plotted" },
    h("tr", null, h("th", null, "constant"), ...cells),
  );
}

function metricCharts(v: DashboardView): HTMLElement {
  const lines = linesByMetric(v);
  const overlaid = v.overlays.length > 0;
  const keys = orderMetrics([...lines.keys()]);
  const constant = keys.filter(
    (k) =>
      lines.get(k)!.every((l) => isConstant(l.series.points.map(([, y]) => y))) &&
      lines.get(k)!.every((l) => l.series.points.length > 1),
  );
  const plotted = keys.filter((k) => !constant.includes(k));
  const slider = h("input", {
    type: "range",
    id: "smoothing",
    min: "0",
    max: String(MAX_SMOOTHING),
    step: "0.01",
    value: String(smoothing),
    "aria-label": "smoothing",
  });
  const sliderValue = h("span", { class: "smoothing-value", id: "smoothing-value" }, smoothing.toFixed(2));
  slider.addEventListener("input", () => {
    smoothing = Number(slider.value);
    sliderValue.textContent = smoothing.toFixed(2);
    for (const c of charts) c.setSmoothing(smoothing);
  });
  const addRun = h(
    "vscode-button",
    { secondary: true, id: "add-overlay", title: "Draw another training run of this workspace on the same axes" },
    "Overlay run…",
  );
  addRun.addEventListener("click", () => send({ type: "dashboard/addOverlay" }));
  const runChips = [v.run, ...v.overlays.map((o) => o.run)].map((run, i) => {
    const chip = h(
      "span",
      { class: `run-chip color-${i}`, "data-run": run },
      h("span", { class: "swatch" }, "■"),
      ` ${run}`,
    );
    if (i > 0) {
      const remove = h(
        "button",
        { class: "remove-overlay", title: `Remove ${run} from the charts`, "aria-label": `remove ${run}` },
        "✕",
      );
      remove.addEventListener("click", () => send({ type: "dashboard/removeOverlay", run }));
      chip.append(remove);
    }
    return chip;
  });
  const c = palette();
  runChips.forEach((chip, i) =>
    chip.querySelector<HTMLElement>(".swatch")!.style.setProperty("color", c.series[i % c.series.length]),
  );
  const groups = [...METRIC_GROUPS, "other" as MetricGroup]
    .map((g) => ({ g, keys: plotted.filter((k) => metricGroup(k) === g) }))
    .filter((x) => x.keys.length)
    .map(({ g, keys: ks }) =>
      h(
        "section",
        { class: "metric-group", "data-group": g },
        h("h3", null, g),
        h("div", { class: "charts" }, ...ks.map((k) => metricFigure(k, lines.get(k)!, overlaid))),
      ),
    );
  return h(
    "div",
    { id: "metrics" },
    h(
      "div",
      { class: "chart-controls" },
      h("label", { class: "smoothing" }, "smoothing ", slider, " ", sliderValue),
      xAxisPicker(v),
      h("span", { class: "runs" }, ...runChips),
      addRun,
    ),
    h(
      "p",
      { class: "muted hint" },
      "Hover a chart for every run's value at that step · drag to zoom, double-click to reset · shaded: the recipe's healthy range (hover the chart for its advice).",
    ),
    constantsLine(constant, lines, overlaid),
    ...(groups.length || constant.length
      ? groups
      : [h("p", { class: "muted" }, "No metrics yet: waiting for the job to write metrics.jsonl.")]),
  );
}

function ci(c: { primary: PrimaryScore }): string {
  return `${fmt(c.primary.mean)} [${fmt(c.primary.lo)}, ${fmt(c.primary.hi)}]`;
}

function evaluateButton(c: CheckpointScore): HTMLElement {
  const b = h(
    "vscode-button",
    { class: "evaluate", "data-checkpoint": c.name, title: `Evaluate ${c.name} on val with this run's settings` },
    "Evaluate",
  );
  b.addEventListener("click", () => send({ type: "dashboard/evaluate", checkpoint: c.name }));
  return b;
}

function checkpointChart(v: DashboardView): HTMLElement | null {
  if (v.checkpoints.length === 0) return null;
  const scored = v.checkpoints.filter((c) => c.primary);
  // The run's own metric (its environment's primary one), never a fixed name.
  const metric = v.valMetric;
  const chart = scored.length
    ? createTimeChart({
        name: "val-f1",
        title: `val ${metric} of saved checkpoints (95% bootstrap CI)`,
        series: [
          {
            label: `val ${metric}`,
            points: scored.map((c) => [c.step, c.primary!.mean] as const),
            errors: scored.map((c) => [c.primary!.lo, c.primary!.hi] as const),
          },
        ],
        points: true,
        format: formatScore,
        yLabel: `val ${metric}`,
        // The run's steps, not the last scored checkpoint padded by the chart.
        ...(v.lastStep !== null ? { xMax: v.lastStep } : {}),
        refLines: v.references.map((r) => ({
          label: r.label,
          value: r.primary.mean,
          detail: `[${fmt(r.primary.lo)}, ${fmt(r.primary.hi)}] (${r.evalRun})`,
        })),
        height: 200,
      })
    : null;
  if (chart) charts.push(chart);
  const others = v.checkpoints.flatMap((c) => c.otherEvals.map((o) => ({ c, o })));
  return h(
    "div",
    { class: "checkpoints", id: "checkpoints" },
    h("h3", null, "Checkpoints"),
    v.evalSettings
      ? h(
          "p",
          {
            class: "muted",
            id: "eval-settings",
            title: Object.entries(v.evalSettings.fields)
              .map(([k, val]) => `${k}: ${JSON.stringify(val)}`)
              .join("\n"),
          },
          `Val ${metric} only from evals with the eval settings of ${v.evalSettings.source} (prompt, harness, search, max tokens).`,
        )
      : null,
    v.references.length
      ? h(
          "p",
          { class: "muted", id: "references" },
          ...v.references.map((r) => `${r.label}: ${ci(r)} from ${r.evalRun} · `),
        )
      : null,
    chart ? chartFigure("val-f1", chart) : null,
    checkpointCopyButtons(() => v, ci),
    h(
      "table",
      { class: "checkpoint-table" },
      h(
        "tr",
        null,
        h("th", null, "checkpoint"),
        h("th", null, "step"),
        h("th", { id: "val-metric-head" }, `val ${metric} [95% CI]`),
        h("th", null, "n"),
        h("th", null, "eval run"),
      ),
      ...v.checkpoints.map((c) =>
        h(
          "tr",
          { "data-checkpoint": c.name },
          h("td", null, c.name),
          h("td", null, c.step),
          h(
            "td",
            null,
            c.primary
              ? ci({ primary: c.primary })
              : h("span", { class: "not-evaluated" }, "not evaluated ", c.samplerPath ? evaluateButton(c) : null),
          ),
          h("td", null, c.n ?? "–"),
          h("td", null, c.evalRun ?? "–"),
        ),
      ),
    ),
    others.length
      ? h(
          "div",
          { class: "other-evals", id: "other-evals" },
          h("h4", null, "Other evals of these checkpoints (other settings: not used above)"),
          h(
            "ul",
            null,
            ...others.map(({ c, o }) =>
              h(
                "li",
                null,
                `${c.name}: ${o.evalRun} — ${metric} ${ci(o)}, n ${o.n} — differs in ${o.differs.join(", ")}`,
              ),
            ),
          ),
        )
      : null,
  );
}

const HEALTH_KEYS = ["mixed", "all_wrong", "all_correct", "constant"] as const;

function health(v: DashboardView): HTMLElement | null {
  if (v.health.length === 0) return null;
  const c = palette();
  const colorIndex = { mixed: 0, all_wrong: 5, all_correct: 4, constant: 1 } as const;
  const chart = createTimeChart({
    name: "group-health",
    title: "groups per step: mixed (these train) / all-wrong / all-correct / constant",
    stacked: true,
    series: HEALTH_KEYS.map((k) => ({
      label: k.replace("_", "-"),
      colorIndex: colorIndex[k],
      points: v.health.map((s) => [s.step, s[k]] as const),
    })),
    format: (n) => (n === null ? "–" : String(Math.round(n))),
    yLabel: "groups",
    markStep: pickedStep,
    onPick: (step) => {
      pickedStep = step;
      render();
    },
  });
  charts.push(chart);
  const at = v.health.findIndex((s) => s.step === pickedStep);
  const step = at >= 0 ? v.health[at] : undefined;
  // The step before / after the picked one (or the last step, with none picked): the keyboard's way to pick.
  const stepButton = (id: string, label: string, to: number) => {
    const target = v.health[to];
    const b = h(
      "button",
      {
        class: "step-nav",
        id,
        title: target ? `list step ${target.step}'s groups` : "no such step",
        ...(target ? {} : { disabled: true }),
      },
      label,
    );
    b.addEventListener("click", () => {
      if (!target) return;
      pickedStep = target.step;
      render();
    });
    return b;
  };
  const from = at >= 0 ? at : v.health.length;
  const nav = h(
    "span",
    { class: "step-navs" },
    stepButton("prev-step", "◀ step", from - 1),
    " ",
    stepButton("next-step", "step ▶", at >= 0 ? at + 1 : -1),
  );
  return h(
    "div",
    { class: "health", id: "health" },
    h("h3", null, "Group health"),
    h(
      "div",
      { class: "legend" },
      ...HEALTH_KEYS.map((k) => {
        const key = h("span", { class: `key key-${k}` }, `■ ${k.replace("_", "-")} `);
        key.style.setProperty("color", c.series[colorIndex[k]]);
        return key;
      }),
    ),
    chartFigure("group-health", chart),
    nav,
    step
      ? h(
          "div",
          { class: "groups", id: "groups" },
          h(
            "h4",
            null,
            `Step ${step.step}: ${step.groups.length} groups (${step.mixed} mixed, ${step.all_wrong} all-wrong, ${step.all_correct} all-correct${step.constant ? `, ${step.constant} constant` : ""})`,
          ),
          h(
            "ul",
            null,
            ...step.groups.map((gi) => {
              const g = v.groups[gi];
              const question = g.question_id ? v.questions[g.question_id] : undefined;
              const li = h(
                "li",
                {
                  class: `group${g.skipped ? " skipped" : ""}`,
                  tabindex: 0,
                  "data-index": gi,
                  title: g.question_id ?? `group ${g.group ?? gi}`,
                },
                h("span", { class: "group-q" }, question ?? g.question_id ?? `group ${g.group ?? gi}`),
                h(
                  "span",
                  { class: "group-rewards" },
                  ` — rewards ${g.rewards.map((r) => fmt(r, 2)).join(", ")}${g.skipped ? " (skipped)" : ""}`,
                ),
              );
              li.addEventListener("click", () => send({ type: "dashboard/openGroup", index: gi }));
              li.addEventListener("keydown", (e) => {
                if ((e as KeyboardEvent).key === "Enter") send({ type: "dashboard/openGroup", index: gi });
              });
              return li;
            }),
          ),
        )
      : h(
          "p",
          { class: "muted" },
          "Click a step in the chart (or ◀ step) to list its groups; the charts' headers follow it.",
        ),
  );
}

function groupEpisodes(): HTMLElement | null {
  if (!group) return null;
  const g = group.group;
  return h(
    "div",
    { class: "group-episodes", id: "group-episodes" },
    h(
      "h3",
      null,
      `Step ${group.step} · ${g.question_id ?? ""}${group.episodes[0] ? ` · ${group.episodes[0].question}` : ""}`,
    ),
    group.episodes.length === 0
      ? h("p", { class: "muted" }, "This group's episodes are not in the run's episodes.jsonl.")
      : null,
    h(
      "div",
      // The G columns wrap to the panel's width instead of running off its right edge.
      { class: "side-by-side group-columns" },
      ...group.episodes.map((ep, i) =>
        h(
          "div",
          { class: "column" },
          h(
            "div",
            { class: "badges" },
            h("span", { class: "badge" }, `reward ${fmt(g.rewards[i], 2)}`),
            h("span", { class: "badge" }, `advantage ${fmt(g.advantages?.[i], 2)}`),
            h("span", { class: "badge" }, `end ${ep.end}`),
            (ep.view?.searches ?? true) ? h("span", { class: "badge" }, `${ep.searches.length} searches`) : null,
          ),
          h("div", { class: "prediction" }, ep.prediction || "(no answer)"),
          renderStream(ep).root,
        ),
      ),
    ),
  );
}

function render(): void {
  if (!view) return;
  for (const c of charts) c.destroy();
  charts = [];
  clear(app);
  append(app, [
    h("h2", null, `Training · ${view.run}`),
    view.problems.length ? h("div", { class: "warnings" }, ...view.problems.map((p) => h("div", null, p))) : null,
    metricCharts(view),
    checkpointChart(view),
    health(view),
    groupEpisodes(),
  ]);
}

listen((m) => {
  if (m.type === "dashboard/data") {
    view = m.data;
    render();
    markFirstFrame("dataFrameAt");
  } else if (m.type === "retarget") {
    // Another run: its charts start unzoomed, and nothing of this run stays until its data arrives.
    for (const c of charts) c.destroy();
    charts = [];
    view = group = pickedStep = undefined;
    zoom.clear();
    clear(app);
    app.append(loadingLine());
  } else if (m.type === "dashboard/group") {
    group = m.group;
    // Only the episodes change (they come last on the page): the charts above are not rebuilt, so
    // nothing above them grows after the scroll below (a chart draws once it has its width).
    const shown = document.getElementById("group-episodes");
    const fresh = groupEpisodes();
    if (fresh && shown) shown.replaceWith(fresh);
    else if (fresh) app.append(fresh);
    else render();
    // The episodes render below the charts and the group list: bring them to the clicked group.
    const reveal = () => document.getElementById("group-episodes")?.scrollIntoView({ block: "start" });
    reveal();
    requestAnimationFrame(() => requestAnimationFrame(reveal));
  }
});

// Theme switch (VS Code swaps the body class): redraw so chart colours follow.
new MutationObserver(() => render()).observe(document.body, { attributes: true, attributeFilter: ["class"] });
