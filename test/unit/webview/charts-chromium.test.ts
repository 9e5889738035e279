/// <reference lib="dom" />
/**
 * Compare and dashboard in real Chromium under their CSP: no violation from our code or from
 * @vscode-elements or uPlot, and the forest plot's export really produces a PNG (SVG → blob: image →
 * canvas) and an SVG.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { ablate } from "../../../src/core/steps/ablate/ablate";
import { hostMessage } from "../../../src/extension/webview/protocol";
import { metricSeries, healthByStep } from "../../../src/core/views/trace/dashboard-view";
import { fakeManifest, fakeRecord } from "../core/base/runs/fakes";
import { cspViolations, launch, openPanelPage } from "./chromium-page";
import { PAYLOADS } from "./webview-dom";

describe("webview: charts in Chromium (CSP, PNG/SVG export)", function () {
  this.timeout(60_000);
  let browser: Browser;
  before(async function () {
    browser = await launch(this);
  });
  after(async () => {
    await browser?.close();
  });

  it("compare: renders under the CSP and exports the forest plot as PNG and SVG", async () => {
    const runA = Array.from({ length: 40 }, (_, i) =>
      fakeRecord(`q${i}`, { f1: i % 2, em: i % 2, prediction: i % 2 ? "Paris" : "Lyon" }),
    );
    const runB = Array.from({ length: 40 }, (_, i) =>
      fakeRecord(`q${i}`, { f1: i % 4 === 0 ? 0 : 1, em: i % 4 === 0 ? 0 : 1, prediction: PAYLOADS[1] }),
    );
    const report = ablate(
      [
        { name: "a", dir: "/a", manifest: fakeManifest(), episodes: runA },
        { name: `b ${PAYLOADS[0]}`, dir: "/b", manifest: fakeManifest(), episodes: runB },
      ],
      { resamples: 300, seed: 3 },
    );
    const p = await openPanelPage(browser, "compare");
    await p.postTimed(
      hostMessage({ type: "compare/report", report, setup: { origin: "runs", fields: [], expect: [], prompts: [] } }),
    );
    await p.page.click("#forest .export[data-format='png'] >> nth=0");
    await p.page.click("#forest .export[data-format='svg'] >> nth=0");
    let exports: { type: string; format?: string; data?: string }[] = [];
    for (let i = 0; i < 50 && exports.length < 2; i++) {
      exports = (await p.sent()).filter((m) => m.type === "export") as typeof exports;
      await new Promise((r) => setTimeout(r, 100));
    }
    const png = exports.find((m) => m.format === "png");
    const svg = exports.find((m) => m.format === "svg");
    assert.ok(png && svg, `exports: ${JSON.stringify(exports.map((m) => m.format))}`);
    const bytes = Buffer.from(png.data!.replace(/^data:image\/png;base64,/, ""), "base64");
    assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG");
    assert.equal(bytes.readUInt32BE(16), 1120, "2× the chart's 560 px width");
    assert.match(svg.data!, /^<svg/);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(await cspViolations(p), []);
    assert.equal(await p.page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
  });

  it("dashboard: renders charts under the CSP without violations", async () => {
    const rows = [1, 2, 3].map((step) => ({ step, reward: step / 4, skipped_groups: 0.5, usd: step / 100 }));
    const groups = [
      { step: 1, rewards: [1, 0], episodes: [] },
      { step: 2, rewards: [0, 0], episodes: [] },
    ];
    const p = await openPanelPage(browser, "dashboard", "vscode-light");
    await p.postTimed(
      hostMessage({
        type: "dashboard/data",
        data: {
          run: "r",
          series: metricSeries(rows),
          groups,
          health: healthByStep(groups),
          checkpoints: [
            { name: "c", step: 2, n: 10, evalRun: "v", primary: { mean: 0.5, lo: 0.3, hi: 0.7 }, otherEvals: [] },
          ],
          references: [],
          evalSettings: null,
          questions: {},
          overlays: [],
          problems: [],
          valMetric: "F1",
          lastStep: null,
        },
      }),
    );
    const charts = await p.page.evaluate(() => document.querySelectorAll(".timechart canvas").length);
    assert.equal(
      charts,
      2 + 1 + 1,
      "two metrics (skipped_groups is constant: listed, not drawn), val F1, group health",
    );
    assert.deepEqual(p.errors, []);
    assert.deepEqual(await cspViolations(p), []);
  });
});
