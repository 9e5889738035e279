/**
 * Training dashboard webview: a chart per logged metric (SFT loss; GRPO reward, skipped groups,
 * searches, answered, budget hits, tokens, spend — whatever metrics.jsonl holds), val F1 of the
 * saved checkpoints with CIs, and group health per step; clicking a step lists its groups and a
 * group shows its G episodes side by side with reward and advantage. Redrawn on each update.
 */
import "../shared/elements";
import type { GroupEpisodes } from "../../src/extension/panels/protocol";
import type { DashboardView } from "../../src/core/trace/dashboard-view";
import { chartFigure, lineChart, palette, stackedBars } from "../shared/charts";
import { append, clear, fmt, h, usd } from "../shared/dom";
import { listen, send } from "../shared/host";
import { renderStream } from "../trace/token-stream";

const app = document.getElementById("app")!;
let view: DashboardView | undefined;
let pickedStep: number | undefined;
let group: GroupEpisodes | undefined;

/** Metrics the recipe cares about first; anything else the trainer logs follows. */
const PREFERRED = ["loss", "reward", "skipped_groups", "searches", "answered", "budget_hit", "tokens", "usd", "lr", "loss_tokens", "epoch"];

function seriesOrder(keys: string[]): string[] {
  const rank = (k: string) => (PREFERRED.indexOf(k) < 0 ? PREFERRED.length : PREFERRED.indexOf(k));
  return [...keys].sort((a, b) => rank(a) - rank(b));
}

function metricCharts(v: DashboardView): HTMLElement {
  const byKey = new Map(v.series.map((s) => [s.key, s]));
  const figures = seriesOrder([...byKey.keys()]).map((key, i) => {
    const s = byKey.get(key)!;
    const last = s.points[s.points.length - 1];
    return h(
      "div",
      { class: "metric", "data-key": key },
      h("div", { class: "metric-head" }, h("span", { class: "metric-name" }, key), h("span", { class: "metric-last" }, last ? `step ${last[0]}: ${key.includes("usd") ? usd(last[1]) : fmt(last[1], 4)}` : "")),
      chartFigure(key, lineChart(key, s.points.map(([x, y]) => ({ x, y })), { colorIndex: i })),
    );
  });
  return h("div", { class: "charts", id: "metrics" }, ...(figures.length ? figures : [h("p", { class: "muted" }, "No metrics yet: waiting for the job to write metrics.jsonl.")]));
}

function checkpointChart(v: DashboardView): HTMLElement | null {
  if (v.checkpoints.length === 0) return null;
  const scored = v.checkpoints.filter((c) => c.f1);
  return h(
    "div",
    { class: "checkpoints", id: "checkpoints" },
    h("h3", null, "Val F1 of saved checkpoints (95% bootstrap CI)"),
    scored.length ? chartFigure("val-f1", lineChart("val F1", scored.map((c) => ({ x: c.step, y: c.f1!.mean, lo: c.f1!.lo, hi: c.f1!.hi })), { errorBars: true })) : null,
    h(
      "table",
      null,
      h("tr", null, h("th", null, "checkpoint"), h("th", null, "step"), h("th", null, "val F1 [95% CI]"), h("th", null, "n"), h("th", null, "eval run")),
      ...v.checkpoints.map((c) => h("tr", null, h("td", null, c.name), h("td", null, c.step), h("td", null, c.f1 ? `${fmt(c.f1.mean)} [${fmt(c.f1.lo)}, ${fmt(c.f1.hi)}]` : "not evaluated"), h("td", null, c.n ?? "–"), h("td", null, c.evalRun ?? "–"))),
    ),
  );
}

function health(v: DashboardView): HTMLElement | null {
  if (v.health.length === 0) return null;
  const c = palette();
  const colors = { all_correct: c.good, all_wrong: c.bad, mixed: c.series[0], constant: c.muted };
  const keys = ["all_correct", "all_wrong", "mixed", "constant"] as const;
  const chart = stackedBars(
    "groups per step: all-correct / all-wrong / mixed",
    v.health.map((s) => s.step),
    v.health.map((s) => keys.map((k) => ({ key: k, value: s[k], color: colors[k] }))),
    (i) => {
      pickedStep = v.health[i].step;
      render();
    },
  );
  const step = v.health.find((s) => s.step === pickedStep);
  return h(
    "div",
    { class: "health", id: "health" },
    h("h3", null, "Group health"),
    h("div", { class: "legend" }, ...keys.map((k) => h("span", { class: `key key-${k}` }, `■ ${k.replace("_", "-")} `))),
    chartFigure("group-health", chart),
    step
      ? h(
          "div",
          { class: "groups", id: "groups" },
          h("h4", null, `Step ${step.step}: ${step.groups.length} groups`),
          h(
            "ul",
            null,
            ...step.groups.map((gi) => {
              const g = v.groups[gi];
              const li = h("li", { class: `group${g.skipped ? " skipped" : ""}`, tabindex: 0, "data-index": gi }, `${g.question_id ?? `group ${g.group ?? gi}`} — rewards ${g.rewards.map((r) => fmt(r, 2)).join(", ")}${g.skipped ? " (skipped)" : ""}`);
              li.addEventListener("click", () => send({ type: "dashboard/openGroup", index: gi }));
              return li;
            }),
          ),
        )
      : h("p", { class: "muted" }, "Click a bar to list that step's groups."),
  );
}

function groupEpisodes(): HTMLElement | null {
  if (!group) return null;
  const g = group.group;
  return h(
    "div",
    { class: "group-episodes", id: "group-episodes" },
    h("h3", null, `Step ${group.step} · ${g.question_id ?? ""}${group.episodes[0] ? ` · ${group.episodes[0].question}` : ""}`),
    group.episodes.length === 0 ? h("p", { class: "muted" }, "This group's episodes are not in the run's episodes.jsonl.") : null,
    h(
      "div",
      { class: "side-by-side" },
      ...group.episodes.map((ep, i) =>
        h(
          "div",
          { class: "column" },
          h("div", { class: "badges" }, h("span", { class: "badge" }, `reward ${fmt(g.rewards[i], 2)}`), h("span", { class: "badge" }, `advantage ${fmt(g.advantages?.[i], 2)}`), h("span", { class: "badge" }, `end ${ep.end}`), h("span", { class: "badge" }, `${ep.searches.length} searches`)),
          h("div", { class: "prediction" }, ep.prediction || "(no answer)"),
          renderStream(ep).root,
        ),
      ),
    ),
  );
}

function render(): void {
  if (!view) return;
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
  } else if (m.type === "dashboard/group") {
    group = m.group;
    render();
  }
});

// Theme switch (VS Code swaps the body class): redraw so chart colours follow.
new MutationObserver(() => render()).observe(document.body, { attributes: true, attributeFilter: ["class"] });
