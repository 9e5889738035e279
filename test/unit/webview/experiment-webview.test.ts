/**
 * The experiment panel's real webview bundle in happy-dom, fed a view whose title, hypothesis, arm
 * names, verdict sentence, criteria and check reasons carry XSS payloads: everything renders as inert
 * text; the result box (verdict sentence, criteria rows, reward and eval charts with axes, the labelled
 * recovery plot, checks, arms' runs) is there; while it runs, its progress; clicking a number asks the
 * extension to open the run it came from.
 */
import assert from "node:assert/strict";
import type { ExperimentView } from "../../../src/core/views/experiments/view-model";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";
import type { WebviewMessage } from "../../../src/extension/webview/protocol";

function view(): ExperimentView {
  const n = (label: string, point: number, runs: string[]) => ({
    label,
    point,
    ci: { lo: point - 0.05, hi: point + 0.05 },
    runs,
  });
  return {
    recordDir: "/ws/runs/exp",
    name: "exp",
    title: `Generated vs world ${PAYLOADS[0]}`,
    hypothesis: `generated tasks recover half the gain ${PAYLOADS[1]}`,
    metric: "f1",
    n: 200,
    verdict: "supported",
    rule: "refuted when any refuted condition holds; …",
    sentence: `supported: generated (GRPO on generated tasks) moved val F1 by +0.040 [−0.010, +0.090] ${PAYLOADS[2]}`,
    criteria: [
      { kind: "supported", stated: "generated − base ≥ +0.020", measured: "+0.040 [−0.010, +0.090]", holds: true },
      { kind: "refuted", stated: `drift ${PAYLOADS[5]}`, measured: "generated − base +0.040", holds: false },
    ],
    metricLabel: "val F1",
    conditions: [
      { kind: "supported", text: `arm_minus_base 0.0400 >= 0.02: holds ${PAYLOADS[2]}`, holds: true },
      { kind: "refuted", text: "drift: …", holds: false },
    ],
    arms: [
      {
        name: `generated ${PAYLOADS[3]}`,
        run: "/ws/runs/exp-generated",
        rewards: [0.1, 0.2, 0.3],
        role: "treatment",
        training: "GRPO on generated tasks",
        links: [
          { label: "GRPO", run: "/ws/runs/exp-generated", kind: "training" },
          { label: "eval traces", run: "/ws/runs/exp-eval-generated", kind: "eval" },
        ],
      },
      {
        name: "world",
        run: "/ws/runs/exp-world",
        rewards: [0.2, 0.25, 0.35],
        role: "reference",
        training: "GRPO on the environment's train split",
        links: [
          { label: "GRPO", run: "/ws/runs/exp-world", kind: "training" },
          { label: "eval traces", run: "/ws/runs/exp-eval-world", kind: "eval" },
        ],
      },
    ],
    scores: [
      n("base", 0.3, ["/ws/runs/exp-eval-base"]),
      n("generated", 0.34, ["/ws/runs/exp-eval-generated"]),
      n("world", 0.36, ["/ws/runs/exp-eval-world"]),
    ],
    deltas: [n("generated − base", 0.04, ["/ws/runs/exp-eval-generated", "/ws/runs/exp-eval-base"])],
    recovery: {
      ...n("recovery (generated vs world)", 0.66, [
        "/ws/runs/exp-eval-generated",
        "/ws/runs/exp-eval-world",
        "/ws/runs/exp-eval-base",
      ]),
      thresholds: [0.5],
      resamples_used: 1000,
    },
    checks: [
      { check: "same-items", status: "passed", reason: `200 items ${PAYLOADS[4]}` },
      { check: "budget", status: "failed", reason: PAYLOADS[5] },
    ],
    evaluatorId: "ab".repeat(32),
    spendUsd: 0,
    budgetUsd: 5,
  };
}

describe("webview: experiment", function () {
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

  it("reads like a result box: hypothesis, the verdict sentence, a row per criterion, charts with axes side by side, a labelled recovery plot, the checklist, each arm's runs; all inert text", () => {
    assertInert(t);
    const doc = t.document;
    assert.match(doc.querySelector("#hypothesis")!.textContent!, /generated tasks recover half the gain <img src=x/);
    assert.equal(doc.querySelector("#verdict .verdict")!.textContent, "supported");
    assert.match(
      doc.querySelector("#verdict-sentence")!.textContent!,
      /^supported: generated \(GRPO on generated tasks\) moved val F1 by \+0\.040 \[−0\.010, \+0\.090\]/,
    );
    const rows = [...doc.querySelectorAll("#criteria tbody tr")].map((r) =>
      [...r.querySelectorAll("td")].map((c) => c.textContent),
    );
    assert.deepEqual(rows[0], ["supported if", "generated − base ≥ +0.020", "+0.040 [−0.010, +0.090]", "✓ holds"]);
    assert.equal(rows[1][3], "✗ does not hold");
    // Reward and eval side by side, every arm on each chart's one scale, both axes named.
    const charts = [...doc.querySelectorAll("#curves .curves > .chart-figure .timechart")];
    assert.deepEqual(
      charts.map((c) => [c.getAttribute("data-x-label"), c.getAttribute("data-y-label")]),
      [
        ["step", "mean train reward"],
        ["step", "val F1"],
      ],
    );
    assert.match(doc.querySelector("#numbers")!.textContent!, /generated − base0\.0400 \[-?0\.0100, 0\.0900\]/);
    assert.equal(doc.querySelectorAll("#recovery line.threshold").length, 1);
    assert.equal(doc.querySelector("#recovery .threshold-label")!.textContent, "threshold 50%");
    assert.equal(
      doc.querySelector("#recovery .axis-title")!.textContent,
      "share of the reference arm's gain the treatment recovered",
    );
    assert.deepEqual(
      [...doc.querySelectorAll("#recovery .tick")].map((x) => x.textContent),
      ["0% (base)", "100% (reference's gain)"],
    );
    assert.match(doc.querySelector("#recovery")!.textContent!, /0\.660 \[0\.610, 0\.710\] · thresholds 0\.5/);
    assert.equal(doc.querySelectorAll("#checks li.check-failed").length, 1);
    assert.match(doc.querySelector("#checks h2")!.textContent!, /1\/2 passed/);
    assert.deepEqual(
      [...doc.querySelectorAll("#arms li.arm a.run-link")].map((a) => [a.textContent, a.getAttribute("data-run")]),
      [
        ["GRPO", "/ws/runs/exp-generated"],
        ["eval traces", "/ws/runs/exp-eval-generated"],
        ["GRPO", "/ws/runs/exp-world"],
        ["eval traces", "/ws/runs/exp-eval-world"],
      ],
    );
  });

  it("while it runs (no record yet): phase i/n, the phase's step n/N, spend of budget and the ETA", async () => {
    const fresh = await openWebview("experiment");
    try {
      fresh.post({
        type: "experiment/progress",
        progress: {
          recordDir: "/ws/runs/exp",
          name: "exp",
          title: `Generated vs world ${PAYLOADS[0]}`,
          hypothesis: "h",
          state: "running",
          line: "phase 7/11 train:generated · step 1/2 · $0.00 of $5.00 · ETA 40s",
          phase: { index: 7, count: 11, name: "train:generated" },
          step: { label: "GRPO", unit: "step", done: 1, planned: 2 },
          eta: "40s",
          spendUsd: 0,
          budgetUsd: 5,
        },
      });
      await fresh.settle();
      assertInert(fresh);
      const doc = fresh.document;
      assert.equal(
        doc.querySelector("#progress-line")!.textContent,
        "phase 7/11 train:generated · step 1/2 · $0.00 of $5.00 · ETA 40s",
      );
      assert.deepEqual(
        [...doc.querySelectorAll("#progress .progress-label")].map((x) => x.textContent),
        ["phase 7/11 train:generated", "GRPO · step 1/2"],
      );
      assert.match(
        doc.querySelector("#progress")!.textContent!,
        /spent \$0\.00 of the \$5\.00 budget · about 40s left/,
      );
      assert.equal(doc.querySelector("#verdict"), null);
    } finally {
      await fresh.close();
    }
  });

  it("while a sweep runs two arms at once: every running phase with its own steps", async () => {
    const fresh = await openWebview("experiment");
    try {
      fresh.post({
        type: "experiment/progress",
        progress: {
          recordDir: "/ws/runs/sw",
          name: "sw",
          title: "sweep",
          hypothesis: "h",
          state: "running",
          line: "phases 7+9/12 · train:a step 3/8 · train:b step 1/8 · $0.12 of $5.00 · ETA 4m 10s",
          phase: { index: 9, count: 12, name: "train:b" },
          step: { label: "GRPO", unit: "step", done: 1, planned: 8 },
          running: [
            { index: 7, name: "train:a", step: { label: "GRPO", unit: "step", done: 3, planned: 8 } },
            { index: 9, name: "train:b", step: { label: "GRPO", unit: "step", done: 1, planned: 8 } },
          ],
          phasesDone: 6,
          eta: "4m 10s",
          spendUsd: 0.12,
          budgetUsd: 5,
        },
      });
      await fresh.settle();
      assertInert(fresh);
      assert.deepEqual(
        [...fresh.document.querySelectorAll("#progress .progress-label")].map((x) => x.textContent),
        ["phases 7+9/12", "train:a · step 3/8", "train:b · step 1/8"],
      );
    } finally {
      await fresh.close();
    }
  });

  it("every number is a link to its run: a click asks to open that run", async () => {
    assert.ok(t.document.querySelectorAll("a.run-link").length >= 9);
    const recovery = t.document.querySelector("#recovery a.run-link")!;
    (recovery as unknown as { click(): void }).click();
    await t.settle();
    const asked = t.sent.filter((m) => m.type === "experiment/openRun");
    assert.deepEqual(
      asked.map((m) => (m as { run: string }).run),
      ["/ws/runs/exp-eval-generated"],
    );
  });

  it("copies the record as one table: conditions, every number with its runs, the checks", () => {
    (t.document.getElementById("record-copy-markdown") as unknown as { click(): void }).click();
    const m = t.sent.at(-1) as Extract<WebviewMessage, { type: "table/export" }>;
    assert.deepEqual([m.type, m.format, m.to], ["table/export", "markdown", "clipboard"]);
    const v = view();
    assert.equal(m.table.title, v.title);
    assert.ok(m.table.notes![0].startsWith("Hypothesis: "));
    assert.equal(m.table.notes![1], `Verdict: ${v.sentence}`);
    assert.deepEqual(m.table.rows[0], ["supported if generated − base ≥ +0.020", "+0.040 [−0.010, +0.090]: holds", ""]);
    assert.deepEqual(m.table.headers, ["what", "value", "from"]);
    const generated = m.table.rows.find((r) => r[0] === "generated − base")!;
    assert.match(generated[1], /^0\.0400 \[-?0\.0100, 0\.0900\]$/);
    assert.equal(m.table.rows.filter((r) => r[0].startsWith("check ")).length, v.checks.length);
  });
});
