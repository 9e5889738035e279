/// <reference lib="dom" />
/**
 * The Compare panel in real Chromium at 1280 px: four runs with the pipeline's run names, and the
 * table fits without scrolling sideways (less-used columns folded away until asked for); the pair
 * view lays both episodes out in one grid under the CSP.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { compareView } from "../../../src/core/steps/ablate/compare-setup";
import { hostMessage } from "../../../src/extension/webview/protocol";
import { fakeManifest, fakeRecord } from "../core/base/runs/fakes";
import { cspViolations, launch, openPanelPage } from "./chromium-page";

describe("webview: compare in Chromium at 1280 px", function () {
  this.timeout(60_000);
  let browser: Browser;
  before(async function () {
    browser = await launch(this);
  });
  after(async () => {
    await browser?.close();
  });

  it("fits the ablation table in 1280 px and folds the less-used columns", async () => {
    const names = [
      "pipeline-val-base",
      "pipeline-val-closed-book",
      "pipeline-val-sft-e2",
      "pipeline-val-grpo-s60-prompt-1130",
    ];
    const inputs = names.map((name, k) => ({
      name,
      dir: `/runs/${name}`,
      manifest: { ...fakeManifest(), policy: { ...fakeManifest().policy, checkpoint: `tinker://run/${name}` } },
      episodes: Array.from({ length: 120 }, (_, i) =>
        fakeRecord(`q${i}`, { f1: (i * (k + 3)) % 5 === 0 ? 0 : 1, em: (i * (k + 3)) % 5 === 0 ? 0 : 1 }),
      ),
    }));
    const { report, setup } = compareView(inputs, "checkpoint", undefined, []);
    const p = await openPanelPage(browser, "compare");
    await p.page.setViewportSize({ width: 1280, height: 900 });
    await p.postTimed(hostMessage({ type: "compare/report", report, setup }));
    const widths = () =>
      p.page.evaluate(() => ({
        table: document.getElementById("ablation-table")!.getBoundingClientRect().width,
        page: document.documentElement.scrollWidth,
        view: window.innerWidth,
      }));
    const folded = await widths();
    assert.ok(
      folded.table <= folded.view - 16 && folded.page <= folded.view,
      `table ${folded.table} px, page ${folded.page} px in a ${folded.view} px view`,
    );
    await p.page.click("#more-columns");
    await new Promise((r) => setTimeout(r, 100));
    const shown = await widths();
    assert.ok(shown.table > folded.table, "the toggle shows the other columns");
    assert.deepEqual(await cspViolations(p), []);
    assert.deepEqual(p.errors, []);
  });
});
