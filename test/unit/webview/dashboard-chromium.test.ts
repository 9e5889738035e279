/// <reference lib="dom" />
/**
 * The dashboard's fixes in real Chromium on real run folders: group health as a step chart —
 * clicking a step marks it and lists its groups, mixed first, with their question text — and the
 * checkpoint chart with its base and start reference lines in the hover readout, the eval it
 * scored from named, the prompt rerun listed apart, and Evaluate on the checkpoint not evaluated.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import { groupEpisodeViews, readDashboard } from "../../../src/core/views/trace/dashboard-view";
import { hostMessage, PROTOCOL_VERSION } from "../../../src/extension/webview/protocol";
import { requireSharedData } from "../../helpers/shared-data";
import { buildEvalWorld, type EvalWorld } from "../core/views/trace/checkpoint-evals-fixture";
import { readHotpot } from "../core/views/trace/real-episodes";
import { writeTrainingRun, type TrainingFixture } from "../core/views/trace/training-fixture";
import { cspViolations, launch, openPanelPage, type PanelPage } from "./chromium-page";

async function clickStep(p: PanelPage, key: string, step: number): Promise<void> {
  const at = await p.page.evaluate(
    ([k, st]) => {
      const el = document.querySelector<HTMLElement>(`.timechart[data-key="${k}"]`)!;
      el.scrollIntoView({ block: "center" });
      const over = el.querySelector<HTMLElement>(".u-over")!.getBoundingClientRect();
      const min = Number(el.dataset.xMin);
      const max = Number(el.dataset.xMax);
      return { x: over.left + ((Number(st) - min) / (max - min)) * over.width, y: over.top + over.height - 4 };
    },
    [key, String(step)] as const,
  );
  await p.page.mouse.move(at.x, at.y);
  await p.page.mouse.click(at.x, at.y);
}

describe("webview: dashboard in Chromium on real runs", function () {
  this.timeout(120_000);
  let browser: Browser;
  let root: string;
  let fx: TrainingFixture;
  let w: EvalWorld;

  before(async function () {
    const devFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    const trainFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    browser = await launch(this);
    const rows = readHotpot(devFile).filter((r) => !["yes", "no"].includes(r.answer));
    root = mkdtempSync(join(tmpdir(), "agent-lab-dashchrome-"));
    fx = await writeTrainingRun(root, await offlineTokenizer("qwen3"), rows);
    w = await buildEvalWorld(devFile, trainFile);
  });
  after(async () => {
    await browser?.close();
    if (root) rmSync(root, { recursive: true, force: true });
    await w?.world.close();
  });

  it("group health: a click on a step marks it and lists its groups, mixed first, by question", async () => {
    const v = readDashboard(fx.runDir);
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: v }));
    assert.match(
      await p.page.evaluate(
        () => document.querySelector('.timechart[data-key="group-health"] .chart-readout')!.textContent!,
      ),
      /^step 2 · mixed 1 · all-wrong 0 · all-correct 1 · constant 0$/,
    );
    await clickStep(p, "group-health", 2);
    assert.equal(
      await p.page.evaluate(() =>
        document.querySelector('.timechart[data-key="group-health"]')!.getAttribute("data-mark-step"),
      ),
      "2",
    );
    const items = await p.page.evaluate(() =>
      Array.from(document.querySelectorAll("#groups li.group")).map((li) => [
        li.getAttribute("data-index"),
        li.querySelector(".group-q")!.textContent,
      ]),
    );
    const step2 = v.health.find((s) => s.step === 2)!;
    assert.deepEqual(
      items.map(([i]) => Number(i)),
      [3, 2],
      "the mixed group (file line 4) before the all-correct one",
    );
    for (const [i, q] of items) assert.equal(q, v.questions[v.groups[Number(i)].question_id!]);
    assert.match(
      await p.page.evaluate(() => document.querySelector("#groups h4")!.textContent!),
      new RegExp(`^Step 2: ${step2.groups.length} groups \\(1 mixed`),
    );
    // The header follows the picked step, not the last one: step 1 picked, its counts read.
    await p.page.click("#prev-step");
    const step1 = v.health.find((s) => s.step === 1)!;
    assert.equal(
      await p.page.evaluate(
        () => document.querySelector('.timechart[data-key="group-health"] .chart-readout')!.textContent!,
      ),
      `step 1 · mixed ${step1.mixed} · all-wrong ${step1.all_wrong} · all-correct ${step1.all_correct} · constant ${step1.constant}`,
    );
    await clickStep(p, "group-health", 2);
    await p.page.click("#groups li.group >> nth=0");
    const sent = (await p.sent()).filter((m) => m.type === "dashboard/openGroup");
    assert.deepEqual(sent.at(-1), { v: PROTOCOL_VERSION, type: "dashboard/openGroup", index: 3 });
    assert.deepEqual(p.errors, []);
    assert.deepEqual(await cspViolations(p), []);
  });

  it("a clicked group's episodes: scrolled into view, every column within the panel's width (700 px)", async () => {
    const v = readDashboard(fx.runDir);
    const p = await openPanelPage(browser, "dashboard");
    await p.page.setViewportSize({ width: 700, height: 700 });
    await p.postTimed(hostMessage({ type: "dashboard/data", data: v }));
    await p.page.click("#prev-step");
    await p.page.click("#groups li.group >> nth=0");
    const group = v.groups[Number(await p.page.getAttribute("#groups li.group >> nth=0", "data-index"))];
    const episodes = await groupEpisodeViews(fx.runDir, group);
    await p.postTimed(hostMessage({ type: "dashboard/group", group: { step: group.step, group, episodes } }));
    await p.page.waitForTimeout(200); // the second scroll waits two frames
    const seen = await p.page.evaluate(() => {
      const inView = (el: Element) => {
        const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.top < window.innerHeight && r.left >= 0 && r.right <= window.innerWidth + 0.5;
      };
      const head = document.querySelector("#group-episodes > h3")!;
      const cols = Array.from(document.querySelectorAll("#group-episodes .group-columns .column"));
      return {
        head: inView(head),
        cols: cols.length,
        colsIn: cols.filter((c) => c.getBoundingClientRect().right <= window.innerWidth + 0.5).length,
      };
    });
    assert.deepEqual(seen, { head: true, cols: episodes.length, colsIn: episodes.length });
    assert.deepEqual(p.errors, []);
  });

  it("checkpoints: score from the matching eval, base and start lines, the prompt rerun apart, Evaluate", async () => {
    const v = readDashboard(w.grpoB);
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: v }));
    const readout = await p.page.evaluate(
      () => document.querySelector('.timechart[data-key="val-f1"] .chart-readout')!.textContent!,
    );
    const [base, start] = v.references;
    const f = (x: number) => x.toFixed(3); // a score's mean in its interval's digits
    const first = v.checkpoints[0].primary!;
    assert.ok(readout.startsWith(`step 1 · val F1 ${f(first.mean)} [${f(first.lo)}, ${f(first.hi)}] ·`), readout);
    assert.ok(readout.includes(`· base ${f(base.primary.mean)} [`) && readout.includes("(val-base)"), readout);
    assert.ok(
      readout.includes(`· start grpo-a-s1 ${f(start.primary.mean)} [`) && readout.includes("(val-a-s1)"),
      readout,
    );
    const table = await p.page.evaluate(() =>
      Array.from(document.querySelectorAll("#checkpoints tr[data-checkpoint]")).map((r) => r.textContent),
    );
    assert.match(table[0]!, /grpo-b-s1.*val-b-s1$/);
    assert.match(table[1]!, /grpo-b-s2.*not evaluated/);
    assert.match(
      await p.page.evaluate(() => document.getElementById("other-evals")!.textContent!),
      /grpo-b-s1: val-b-s1-prompt2 .* differs in system_prompt\.sha256/,
    );
    assert.match(
      await p.page.evaluate(() => document.getElementById("eval-settings")!.textContent!),
      /eval settings of grpo-b\/manifest\.json/,
    );
    await p.page.click('#checkpoints tr[data-checkpoint="grpo-b-s2"] .evaluate');
    assert.deepEqual((await p.sent()).at(-1), {
      v: PROTOCOL_VERSION,
      type: "dashboard/evaluate",
      checkpoint: "grpo-b-s2",
    });
    assert.deepEqual(p.errors, []);
  });
});
