/**
 * The training dashboard's real webview bundle in happy-dom, fed a real GRPO run folder read by
 * readDashboard, with payloads in a metric name and a question: metrics grouped with constant ones
 * collapsed into one line, the checkpoint table with an Evaluate action, a group's episodes side by
 * side, and a redraw when new data arrives — all inert. (happy-dom has no canvas: the charts are
 * placeholders here; charts-uplot-chromium and dashboard-chromium draw them in Chromium.)
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import { groupEpisodeViews, readDashboard } from "../../../src/core/views/trace/dashboard-view";
import { requireSharedData } from "../../helpers/shared-data";
import { readHotpot } from "../core/views/trace/real-episodes";
import { G, writeTrainingRun, type TrainingFixture } from "../core/views/trace/training-fixture";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";
import { PROTOCOL_VERSION, type WebviewMessage } from "../../../src/extension/webview/protocol";

describe("webview: training dashboard", function () {
  let root: string;
  let fx: TrainingFixture;
  let t: WebviewUnderTest;

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).filter(
      (r) => !["yes", "no"].includes(r.answer),
    );
    const tok = await offlineTokenizer("qwen3");
    await webviewBundles();
    root = mkdtempSync(join(tmpdir(), "agent-lab-dashweb-"));
    fx = await writeTrainingRun(root, tok, rows, (r) => `${PAYLOADS[0]} ${r.question}`);
    // A metric whose name is a payload (names come from the file).
    appendFileSync(join(fx.runDir, "metrics.jsonl"), JSON.stringify({ step: 3, reward: 0.5, [PAYLOADS[1]]: 7 }) + "\n");
  });
  // root is unset when the before hook skipped (no shared data): nothing to remove then.
  after(() => root && rmSync(root, { recursive: true, force: true }));
  beforeEach(async () => {
    t = await openWebview("dashboard");
  });
  afterEach(async () => {
    await t.close();
  });

  it("groups the metrics, lists constant ones in one line, and offers Evaluate for a checkpoint not evaluated", async () => {
    const v = readDashboard(fx.runDir);
    t.post({ type: "dashboard/data", data: v });
    await t.settle();
    assertInert(t);
    const doc = t.document;
    const metrics = Array.from(doc.querySelectorAll("#metrics .metric")).map((m) => [
      m.getAttribute("data-group"),
      m.getAttribute("data-key"),
    ]);
    assert.deepEqual(metrics, [
      ["reward", "reward"],
      ["health", "skipped_groups"],
      ["length", "tokens"],
      ["cost", "usd"],
      ["other", PAYLOADS[1]],
    ]);
    assert.equal(doc.querySelectorAll("#metrics .timechart").length, metrics.length);
    assert.match(doc.getElementById("constants")!.textContent!, /^constant\s*answered 1\s*budget_hit 0\s*searches 1$/);
    assert.match(doc.querySelector('#metrics .metric[data-key="reward"] .metric-last')!.textContent!, /^step 3: 0\.5$/);
    assert.match(doc.querySelector('#metrics .metric[data-key="usd"] .metric-last')!.textContent!, /^step 2: \$0\.02$/);
    const rows = Array.from(doc.querySelectorAll("#checkpoints tr[data-checkpoint]"));
    assert.equal(rows.length, 2);
    assert.match(rows[0].textContent!, /grpo-test-s1.*not evaluated/);
    assert.match(rows[1].textContent!, /grpo-test-s2.*val-grpo-s2/);
    assert.equal(rows[1].querySelector(".evaluate"), null, "an evaluated checkpoint has no Evaluate");
    // Its table as text: one row per checkpoint, the score with its interval as the table shows it.
    (doc.getElementById("checkpoints-copy-csv") as unknown as { click(): void }).click();
    const m = t.sent.at(-1) as Extract<WebviewMessage, { type: "table/export" }>;
    assert.deepEqual([m.type, m.format, m.to], ["table/export", "csv", "clipboard"]);
    assert.equal(m.table.headers[2], `val ${v.valMetric} [95% CI]`);
    assert.deepEqual(
      m.table.rows.map((r) => [r[0], r[4]]),
      [
        ["grpo-test-s1", "–"],
        ["grpo-test-s2", "val-grpo-s2"],
      ],
    );
    assert.equal(m.table.rows[1][2], rows[1].children[2].textContent);
    (rows[0].querySelector(".evaluate") as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), { v: PROTOCOL_VERSION, type: "dashboard/evaluate", checkpoint: "grpo-test-s1" });
  });

  it("a group's episodes side by side; overlay add and remove post typed messages", async () => {
    const v = readDashboard(fx.runDir);
    t.post({ type: "dashboard/data", data: { ...v, overlays: [{ run: "other-run", series: v.series }] } });
    await t.settle();
    const doc = t.document;
    (doc.getElementById("add-overlay") as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), { v: PROTOCOL_VERSION, type: "dashboard/addOverlay" });
    (doc.querySelector('.run-chip[data-run="other-run"] .remove-overlay') as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), { v: PROTOCOL_VERSION, type: "dashboard/removeOverlay", run: "other-run" });
    const episodes = await groupEpisodeViews(fx.runDir, v.groups[0]);
    t.post({ type: "dashboard/group", group: { step: 1, group: v.groups[0], episodes } });
    await t.settle();
    const columns = doc.querySelectorAll("#group-episodes .column");
    assert.equal(columns.length, G);
    const adv = v.groups[0].advantages!;
    assert.match(
      columns[0].textContent!,
      new RegExp(`reward ${v.groups[0].rewards[0].toFixed(2)}advantage ${adv[0].toFixed(2)}`),
    );
    assert.ok(
      doc.getElementById("group-episodes")!.textContent!.includes(PAYLOADS[0]),
      "the payload question, as text",
    );
    assertInert(t);
  });

  it("redraws when the log grows", async () => {
    t.post({ type: "dashboard/data", data: readDashboard(fx.runDir) });
    await t.settle();
    appendFileSync(join(fx.runDir, "metrics.jsonl"), JSON.stringify({ step: 4, reward: 0.75 }) + "\n");
    t.post({ type: "dashboard/data", data: readDashboard(fx.runDir) });
    await t.settle();
    assert.match(
      t.document.querySelector('#metrics .metric[data-key="reward"] .metric-last')!.textContent!,
      /^step 4: 0\.75$/,
    );
  });
});
