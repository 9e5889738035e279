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

/**
 * The webview's width in a 1,280 px window with VS Code's sidebar open: the activity bar (48 px)
 * and the sidebar at its default width (about 300 px) leave the editor about 930 px.
 */
const SIDEBAR_OPEN_WEBVIEW_PX = 930;

describe("webview: compare in Chromium at 1280 px", function () {
  this.timeout(60_000);
  let browser: Browser;
  before(async function () {
    browser = await launch(this);
  });
  after(async () => {
    await browser?.close();
  });

  it("cuts nothing at 1,280 px with the sidebar open (a 930 px webview): cells wrap, intervals stay whole", async () => {
    const names = ["pipeline-val-closed-book", "pipeline-val-base", "pipeline-val-sft-e2", "pipeline-val-grpo-s60"];
    const inputs = names.map((name, k) => ({
      name,
      dir: `/runs/${name}`,
      manifest: { ...fakeManifest(), policy: { ...fakeManifest().policy, checkpoint: `tinker://run/${name}` } },
      episodes: Array.from({ length: 200 }, (_, i) =>
        fakeRecord(`q${i}`, { f1: ((i * 7) % 10) / 10 < 0.2 * (k + 1) ? 0.5 : 0, em: (i * (k + 5)) % 7 === 0 ? 1 : 0 }),
      ),
    }));
    const { report, setup } = compareView(inputs, "pipeline", undefined, []);
    const p = await openPanelPage(browser, "compare");
    await p.page.setViewportSize({ width: SIDEBAR_OPEN_WEBVIEW_PX, height: 900 });
    await p.postTimed(hostMessage({ type: "compare/report", report, setup }));
    const cut = () =>
      p.page.evaluate(() => {
        const table = document.getElementById("ablation-table")!;
        const scroll = table.parentElement!;
        const cells = Array.from(table.querySelectorAll<HTMLElement>("th, td")).filter(
          (c) => getComputedStyle(c).display !== "none",
        );
        return {
          scrolls: scroll.scrollWidth - scroll.clientWidth,
          page: document.documentElement.scrollWidth - window.innerWidth,
          cutCells: cells.filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent),
          splitIntervals: Array.from(table.querySelectorAll<HTMLElement>(".interval")).filter(
            (c) => c.getClientRects().length > 1,
          ).length,
          verdicts: Array.from(table.querySelectorAll<HTMLElement>(".verdict")).map((c) => c.textContent),
        };
      });
    const r = await cut();
    assert.equal(r.scrolls, 0, `the table scrolls sideways by ${r.scrolls} px: ${JSON.stringify(r)}`);
    assert.equal(r.page, 0);
    assert.deepEqual(r.cutCells, []);
    assert.equal(r.splitIntervals, 0, "an interval is never broken across lines");
    assert.ok(r.verdicts.includes("not distinguishable"), JSON.stringify(r.verdicts));
    assert.deepEqual(p.errors, []);
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
