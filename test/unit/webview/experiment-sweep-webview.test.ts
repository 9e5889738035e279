/**
 * A sweep in the experiment panel's real webview bundle (happy-dom): the ranking table from the
 * record's numbers (arm names carrying XSS payloads stay inert text, each a link to its eval run),
 * the best-arm line, one metric-vs-value chart per swept parameter, and Copy as Markdown sending the
 * CLI's table. The view comes from sweepView over a record whose sweep section sweepNumbers computed.
 */
import assert from "node:assert/strict";
import type { ExperimentRecord } from "../../../src/core/steps/experiments/record";
import { sweepNumbers } from "../../../src/core/steps/experiments/sweep-analysis";
import { sweepTextTable } from "../../../src/core/steps/experiments/sweep-table-text";
import type { ExperimentView } from "../../../src/core/views/experiments/view-model";
import { sweepView } from "../../../src/core/views/experiments/sweep-view-model";
import type { WebviewMessage } from "../../../src/extension/webview/protocol";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";

const N = 40;
const column = (ones: number, shift: number) =>
  Array.from({ length: N }, (_, i) => ((i * 7 + shift) % N < ones ? 1 : 0));
const odd = `g_lr4e-3 ${PAYLOADS[0]}`;
const names = ["g_lr2e-3_g4", "g_lr2e-3_g8", "g_lr4e-3_g4", odd];
const values = [
  { "grpo.lr": 0.002, "grpo.group": 4 },
  { "grpo.lr": 0.002, "grpo.group": 8 },
  { "grpo.lr": 0.004, "grpo.group": 4 },
  { "grpo.lr": 0.004, "grpo.group": 8 },
];

function record(): ExperimentRecord {
  const cols: Record<string, number[]> = { base: column(10, 0) };
  names.forEach((n, i) => (cols[n] = column([12, 14, 20, 34][i], i + 1)));
  const sweep = sweepNumbers(
    cols,
    {
      arm: "g",
      baseline: names[0],
      max_concurrent_arms: 2,
      params: ["grpo.lr", "grpo.group"],
      points: names.map((name, i) => ({ name, values: values[i] })),
    },
    { resamples: 1000, seed: 0 },
  );
  const scores: Record<string, { run: string }> = {};
  for (const n of names) scores[n] = { run: `runs/sw-eval-${n}` };
  return {
    title: "sweep",
    metric: "f1",
    scores,
    arms: names.map((n) => ({ name: n, run: `runs/sw-${n}` })),
    sweep,
  } as unknown as ExperimentRecord;
}

function view(): ExperimentView {
  return {
    recordDir: "/ws/runs/sw",
    name: "sw",
    title: "sweep",
    hypothesis: "h",
    metric: "f1",
    n: N,
    verdict: "inconclusive",
    rule: "r",
    conditions: [],
    arms: [],
    scores: [],
    deltas: [],
    recovery: null,
    checks: [],
    evaluatorId: "ab".repeat(32),
    spendUsd: 0,
    sentence: "inconclusive: no arm is distinguishable from the baseline",
    criteria: [],
    metricLabel: "val F1",
    budgetUsd: 5,
    sweep: sweepView(record(), (p) => `/ws/${p}`),
  };
}

describe("webview: experiment sweep", function () {
  let t: WebviewUnderTest;
  before(async () => {
    await webviewBundles();
  });
  beforeEach(async () => {
    t = await openWebview("experiment");
    t.post({ type: "experiment/view", view: view() });
    await t.settle();
  });
  afterEach(async () => t.close());

  it("shows the ranking with each arm linked to its eval run, the best arm, and a chart per swept parameter", async () => {
    assertInert(t);
    const doc = t.document;
    const rows = [...doc.querySelectorAll("#sweep-table tbody tr")];
    const rec = record();
    assert.deepEqual(
      rows.map((r) => r.getAttribute("data-arm")),
      rec.sweep!.arms.map((a) => a.name),
    );
    assert.deepEqual(
      [...doc.querySelectorAll("#sweep-table thead th")].map((x) => x.textContent),
      sweepTextTable(rec.sweep!, "f1").headers,
    );
    assert.equal(rows[0].querySelector("th")!.textContent, odd);
    assert.equal(
      doc.querySelector("#sweep-best")!.textContent,
      `Best arm: ${rec.sweep!.best ?? "none"} — ${rec.sweep!.best_reason}`,
    );
    assert.equal(doc.querySelectorAll("#sweep .sweep-plots figure.chart-figure").length, 2);
    (rows[0].querySelector("a.run-link") as unknown as { click(): void }).click();
    await t.settle();
    const asked = t.sent.filter((m) => m.type === "experiment/openRun");
    assert.deepEqual(
      asked.map((m) => (m as { run: string }).run),
      [`/ws/runs/sw-eval-${odd}`],
    );
  });

  it("copies the sweep as the CLI's table", () => {
    (t.document.getElementById("sweep-copy-markdown") as unknown as { click(): void }).click();
    const m = t.sent.at(-1) as Extract<WebviewMessage, { type: "table/export" }>;
    assert.equal(m.type, "table/export");
    assert.deepEqual(m.table, sweepTextTable(record().sweep!, "f1", "sweep — sweep"));
  });

  it("plots each parameter against the metric: a line per value of the other, points in order with their intervals", () => {
    const s = sweepView(record(), (p) => p)!;
    assert.deepEqual(
      s.plots.map((p) => [p.param, p.series.map((x) => x.label)]),
      [
        ["grpo.lr", ["grpo.group=4", "grpo.group=8"]],
        ["grpo.group", ["grpo.lr=0.002", "grpo.lr=0.004"]],
      ],
    );
    const lr4 = s.plots[0].series[0];
    assert.deepEqual(
      lr4.points.map((p) => p[0]),
      [0.002, 0.004],
    );
  });
});
