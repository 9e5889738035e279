/**
 * The experiment panel's real webview bundle in happy-dom, fed a view whose title, hypothesis, arm
 * names and check reasons carry XSS payloads: everything renders as inert text; the verdict, the
 * curves (one per arm), the numbers and the recovery interval with its thresholds are there; clicking
 * a number asks the extension to open the run it came from.
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

  it("renders hypothesis, verdict, curves side by side, numbers, recovery against its threshold and the checklist as inert text", () => {
    assertInert(t);
    const doc = t.document;
    assert.match(doc.querySelector("#hypothesis")!.textContent!, /generated tasks recover half the gain <img src=x/);
    assert.equal(doc.querySelector("#verdict .verdict")!.textContent, "supported");
    assert.equal(doc.querySelectorAll("#curves figure.arm-curve").length, 2);
    assert.equal(doc.querySelectorAll("#curves polyline").length, 2);
    assert.match(doc.querySelector("#numbers")!.textContent!, /generated − base0\.0400 \[-?0\.0100, 0\.0900\]/);
    assert.equal(doc.querySelectorAll("#recovery line.threshold").length, 1);
    assert.match(doc.querySelector("#recovery")!.textContent!, /0\.660 \[0\.610, 0\.710\] · thresholds 0\.5/);
    assert.equal(doc.querySelectorAll("#checks li.check-failed").length, 1);
    assert.match(doc.querySelector("#checks h2")!.textContent!, /1\/2 passed/);
  });

  it("every number is a link to its run: a click asks to open that run", async () => {
    assert.ok(t.document.querySelectorAll("a.run-link").length >= 7);
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
    assert.deepEqual(m.table.headers, ["what", "value", "from"]);
    const generated = m.table.rows.find((r) => r[0] === "generated − base")!;
    assert.match(generated[1], /^0\.0400 \[-?0\.0100, 0\.0900\]$/);
    assert.equal(m.table.rows.filter((r) => r[0].startsWith("check ")).length, v.checks.length);
  });
});
