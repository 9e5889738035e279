/**
 * The training dashboard's real webview bundle in happy-dom, fed a real GRPO run folder read by
 * readDashboard, with payloads in a metric name and a question: a chart per metric, val F1 with
 * error bars, group health bars that list a step's groups, a group's episodes side by side, and a
 * redraw when new data arrives — all inert.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/chat/offline-tokenizer";
import { groupEpisodeViews, readDashboard } from "../../../src/core/trace/dashboard-view";
import { requireSharedData } from "../../helpers/shared-data";
import { readHotpot } from "../core/trace/real-episodes";
import { G, writeTrainingRun, type TrainingFixture } from "../core/trace/training-fixture";
import { assertInert, openWebview, PAYLOADS, webviewBundles, type WebviewUnderTest } from "./webview-dom";

describe("webview: training dashboard", function () {
  let root: string;
  let fx: TrainingFixture;
  let t: WebviewUnderTest;

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).filter((r) => !["yes", "no"].includes(r.answer));
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

  it("draws a chart per metric and the checkpoints' val F1 with error bars", async () => {
    const v = readDashboard(fx.runDir);
    t.post({ type: "dashboard/data", data: v });
    await t.settle();
    assertInert(t);
    const doc = t.document;
    const metrics = Array.from(doc.querySelectorAll("#metrics .metric")).map((m) => m.getAttribute("data-key"));
    assert.deepEqual(metrics.slice(0, 3), ["reward", "skipped_groups", "searches"], "the recipe's metrics first");
    assert.ok(metrics.includes(PAYLOADS[1]));
    assert.equal(doc.querySelectorAll("#metrics svg").length, v.series.length);
    assert.match(doc.querySelector('#metrics .metric[data-key="reward"] .metric-last')!.textContent!, /^step 3: 0\.5000$/);
    assert.equal(doc.querySelectorAll("#checkpoints line.errorbar").length, 1, "one scored checkpoint, one CI");
    assert.match(doc.getElementById("checkpoints")!.textContent!, /grpo-test-s1.*not evaluated/);
  });

  it("group health: click a step, then a group, to see its episodes side by side", async () => {
    const v = readDashboard(fx.runDir);
    t.post({ type: "dashboard/data", data: v });
    await t.settle();
    const doc = t.document;
    const bars = doc.querySelectorAll("#health g.bar");
    assert.equal(bars.length, 2);
    bars[0].dispatchEvent(new t.window.MouseEvent("click", { bubbles: true }));
    await t.settle();
    const groups = doc.querySelectorAll("#groups li.group");
    assert.equal(groups.length, 2);
    assert.match(groups[1].textContent!, /rewards 0\.00, 0\.00, 0\.00 \(skipped\)/);
    (groups[0] as unknown as { click(): void }).click();
    assert.deepEqual(t.sent.at(-1), { v: 1, type: "dashboard/openGroup", index: 0 });
    const episodes = await groupEpisodeViews(fx.runDir, v.groups[0]);
    t.post({ type: "dashboard/group", group: { step: 1, group: v.groups[0], episodes } });
    await t.settle();
    const columns = doc.querySelectorAll("#group-episodes .column");
    assert.equal(columns.length, G);
    const adv = v.groups[0].advantages!;
    assert.match(columns[0].textContent!, new RegExp(`reward ${v.groups[0].rewards[0].toFixed(2)}advantage ${adv[0].toFixed(2)}`));
    assert.ok(doc.getElementById("group-episodes")!.textContent!.includes(PAYLOADS[0]), "the payload question, as text");
    assertInert(t);
  });

  it("redraws when the log grows", async () => {
    t.post({ type: "dashboard/data", data: readDashboard(fx.runDir) });
    await t.settle();
    appendFileSync(join(fx.runDir, "metrics.jsonl"), JSON.stringify({ step: 4, reward: 0.75 }) + "\n");
    t.post({ type: "dashboard/data", data: readDashboard(fx.runDir) });
    await t.settle();
    assert.match(t.document.querySelector('#metrics .metric[data-key="reward"] .metric-last')!.textContent!, /^step 4: 0\.7500$/);
  });
});
