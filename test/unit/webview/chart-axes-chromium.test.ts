/// <reference lib="dom" />
/**
 * Two chart axes in real Chromium: the dashboard's val-score chart of a real 60-step GRPO run
 * (trained by trainGrpo on the local backend at tiny sizes, its step-30 checkpoint scored by a
 * real val eval) ends its x axis at the run's step 60, not where the chart pads its own points;
 * and the Compare panel's forest plot of a Δ of −0.25 [−0.375, −0.125] (ticks summed 0.1 at a
 * time from −0.3 used to land on −2.8e-17) labels its zero tick 0.0, with no "e-" anywhere.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { compareView } from "../../../src/core/steps/ablate/compare-setup";
import { readDashboard } from "../../../src/core/views/trace/dashboard-view";
import { hostMessage } from "../../../src/extension/webview/protocol";
import { requireSharedData } from "../../helpers/shared-data";
import { fakeManifest, fakeRecord } from "../core/base/runs/fakes";
import type { LocalWorld } from "../core/steps/train/helpers";
import { launch, openPanelPage } from "./chromium-page";
import { buildSixtyStepRun, SIXTY_STEPS as STEPS } from "./sixty-step-run";

describe("webview: chart axes in Chromium on a real 60-step run", function () {
  this.timeout(600_000);
  let browser: Browser;
  let world: LocalWorld;
  let runDir: string;

  before(async function () {
    const devFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    const trainFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    browser = await launch(this);
    ({ world, runDir } = await buildSixtyStepRun(devFile, trainFile));
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  it("the val chart's x axis ends at the run's last step (60), not the chart's padding of its points", async () => {
    const v = readDashboard(runDir);
    assert.equal(v.lastStep, STEPS);
    assert.deepEqual(
      v.checkpoints.filter((c) => c.primary).map((c) => c.step),
      [30],
      "only the step-30 checkpoint is scored: the chart's own points end at 30",
    );
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: v }));
    const axis = await p.page.evaluate(() => {
      const el = document.querySelector<HTMLElement>('.timechart[data-key="val-f1"]')!;
      return { min: Number(el.dataset.xMin), max: Number(el.dataset.xMax) };
    });
    assert.equal(axis.max, STEPS, `x axis ${axis.min}…${axis.max}`);
    assert.ok(axis.min <= 30, `x axis ${axis.min}…${axis.max}`);
    assert.deepEqual(p.errors, []);
  });

  it("the forest plot's tick labels are rounded to its axis (0.0, never -2.8e-17)", async () => {
    // 40 questions; the second run misses every 4th: Δ −0.25 with a CI of about [−0.375, −0.125].
    const inputs = ["val-base", "val-grpo-s60"].map((name, k) => ({
      name,
      dir: `/runs/${name}`,
      manifest: { ...fakeManifest(), policy: { ...fakeManifest().policy, checkpoint: `tinker://run/${name}` } },
      episodes: Array.from({ length: 40 }, (_, i) => {
        const score = k === 1 && i % 4 === 0 ? 0 : 1;
        return fakeRecord(`q${i}`, { f1: score, em: score });
      }),
    }));
    const { report, setup } = compareView(inputs, "checkpoint", undefined, []);
    const p = await openPanelPage(browser, "compare");
    await p.postTimed(hostMessage({ type: "compare/report", report, setup }));
    const ticks = await p.page.evaluate(() =>
      Array.from(document.querySelectorAll("#forest svg.forest > text[text-anchor='middle']")).map(
        (t) => t.textContent!,
      ),
    );
    assert.ok(ticks.length >= 2 * 3, `tick labels: ${ticks.join(" ")}`);
    for (const t of ticks) assert.doesNotMatch(t, /e-/, `tick labels: ${ticks.join(" ")}`);
    assert.ok(ticks.includes("0.0"), `a zero tick written at the axis's precision: ${ticks.join(" ")}`);
    assert.deepEqual(p.errors, []);
  });
});
