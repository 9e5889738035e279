/// <reference lib="dom" />
/**
 * The uPlot chart module in real Chromium, through the dashboard panel under its CSP: hover
 * readouts of every run at the cursor's step (smoothed values checked against a reference EMA
 * computed here), the smoothing slider, drag-zoom and double-click reset, an overlaid run,
 * healthy bands with their advice, constant metrics collapsed into one line, log scale, width
 * that follows the panel, PNG/SVG export, and a 10,000-step run drawn decimated (a fraction of its
 * points handed to uPlot, more again for a zoomed range) with exact values in the readout.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { metricSeries, type DashboardView } from "../../../src/core/views/trace/dashboard-view";
import { hostMessage } from "../../../src/extension/webview/protocol";
import { formatNumber } from "../../../webview/shared/chart-math";
import { cspViolations, launch, openPanelPage, type PanelPage } from "./chromium-page";

const STEPS = 40;
/** A GRPO-like log: noisy reward, skipped_groups leaving its band late, constant group counts, a decaying lr. */
function log(seed: number): Record<string, number>[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: STEPS }, (_, i) => ({
    step: i + 1,
    reward: 0.3 + i / 100 + (rnd() - 0.5) * 0.2,
    skipped_groups: i < 30 ? 0.4 : 0.9,
    tokens: 150 + rnd() * 10,
    usd: (i + 1) * 0.01,
    lr: 1e-3 * 0.85 ** i,
    groups: 32,
    episodes: 256,
  }));
}

function referenceEma(values: number[], w: number): number[] {
  return values.map((_, n) => {
    let num = 0;
    for (let k = 0; k <= n; k++) num += (1 - w) * w ** (n - k) * values[k];
    return num / (1 - w ** (n + 1));
  });
}

function view(overlay = false, rows = log(7)): DashboardView {
  return {
    run: "grpo-a",
    series: metricSeries(rows),
    groups: [],
    health: [],
    checkpoints: [],
    references: [],
    evalSettings: null,
    questions: {},
    overlays: overlay ? [{ run: "grpo-b", series: metricSeries(log(99)) }] : [],
    problems: [],
    valMetric: "F1",
    lastStep: null,
  };
}

/** Client x of a step on a chart's plot area, from its current x scale. */
/** Drags across a chart from one step to another (uPlot's drag-to-zoom). */
async function dragZoom(p: PanelPage, key: string, fromStep: number, toStep: number): Promise<void> {
  const from = await stepX(p, key, fromStep);
  const to = await stepX(p, key, toStep);
  await p.page.mouse.move(from.x, from.y);
  await p.page.mouse.down();
  await p.page.mouse.move(to.x, to.y, { steps: 5 });
  await p.page.mouse.up();
}

async function stepX(p: PanelPage, key: string, step: number): Promise<{ x: number; y: number }> {
  return p.page.evaluate(
    ([k, st]) => {
      const el = document.querySelector<HTMLElement>(`.timechart[data-key="${k}"]`)!;
      el.scrollIntoView({ block: "nearest" });
      const over = el.querySelector<HTMLElement>(".u-over")!.getBoundingClientRect();
      const min = Number(el.dataset.xMin);
      const max = Number(el.dataset.xMax);
      return { x: over.left + ((Number(st) - min) / (max - min)) * over.width, y: over.top + over.height / 2 };
    },
    [key, String(step)] as const,
  );
}

/** A long run: 10,000 steps of noisy reward with one-step spikes. */
function longLog(): Record<string, number>[] {
  let s = 5;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: 10_000 }, (_, i) => ({
    step: i + 1,
    reward: 0.3 + Math.sin(i / 700) * 0.1 + rnd() * 0.05 + (i % 211 === 0 ? 0.5 : 0),
    tokens: 150 + rnd() * 20,
  }));
}

const readout = (p: PanelPage, key: string) =>
  p.page.evaluate((k) => document.querySelector(`.timechart[data-key="${k}"] .chart-readout`)!.textContent ?? "", key);

describe("webview: uPlot charts in Chromium (hover, smoothing, zoom, overlay, bands)", function () {
  this.timeout(60_000);
  let browser: Browser;
  before(async function () {
    browser = await launch(this);
  });
  after(async () => {
    await browser?.close();
  });

  it("draws canvases grouped by kind, collapses constant metrics into one line, no CSP violation", async () => {
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: view() }));
    const groups = await p.page.evaluate(() =>
      Array.from(document.querySelectorAll(".metric-group")).map((g) => [
        g.getAttribute("data-group"),
        Array.from(g.querySelectorAll(".metric")).map((m) => m.getAttribute("data-key")),
      ]),
    );
    assert.deepEqual(groups, [
      ["reward", ["reward"]],
      ["health", ["skipped_groups"]],
      ["length", ["tokens"]],
      ["cost", ["usd"]],
      ["optimisation", ["lr"]],
    ]);
    assert.equal(await p.page.evaluate(() => document.querySelectorAll("#metrics canvas").length), 5);
    assert.match(
      await p.page.evaluate(() => document.getElementById("constants")!.textContent!),
      /constant\s*episodes 256\s*groups 32/,
    );
    assert.deepEqual(p.errors, []);
    assert.deepEqual(await cspViolations(p), []);
  });

  it("hover reads every run's smoothed and raw value at the cursor's step; the slider changes the smoothing", async () => {
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: view(true) }));
    const a = log(7).map((r) => r.reward);
    const b = log(99).map((r) => r.reward);
    const at = 17; // step 18
    const { x, y } = await stepX(p, "reward", at + 1);
    await p.page.mouse.move(x, y);
    const text = await readout(p, "reward");
    const sa = referenceEma(a, 0.6)[at];
    const sb = referenceEma(b, 0.6)[at];
    assert.equal(
      text,
      `step ${at + 1} · grpo-a ${formatNumber(sa)} (raw ${formatNumber(a[at])}) · grpo-b ${formatNumber(sb)} (raw ${formatNumber(b[at])})`,
    );
    // Cursors are synced: the tokens chart reads the same step.
    assert.match(await readout(p, "tokens"), new RegExp(`^step ${at + 1} · grpo-a`));

    await p.page.evaluate(() => {
      const s = document.getElementById("smoothing") as HTMLInputElement;
      s.value = "0.9";
      s.dispatchEvent(new Event("input"));
    });
    await p.page.mouse.move(x + 1, y);
    await p.page.mouse.move(x, y);
    assert.match(
      await readout(p, "reward"),
      new RegExp(`grpo-a ${formatNumber(referenceEma(a, 0.9)[at]).replace(".", "\\.")} \\(raw`),
    );
    await p.page.evaluate(() => {
      const s = document.getElementById("smoothing") as HTMLInputElement;
      s.value = "0";
      s.dispatchEvent(new Event("input"));
    });
    await p.page.mouse.move(x + 1, y);
    await p.page.mouse.move(x, y);
    assert.equal(
      await readout(p, "reward"),
      `step ${at + 1} · grpo-a ${formatNumber(a[at])} · grpo-b ${formatNumber(b[at])}`,
    );
    assert.deepEqual(p.errors, []);
  });

  it("drag zooms the step axis, double-click resets it, and the zoom survives a redraw", async () => {
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: view() }));
    const range = () =>
      p.page.evaluate(() => {
        const el = document.querySelector<HTMLElement>('.timechart[data-key="reward"]')!;
        return [Number(el.dataset.xMin), Number(el.dataset.xMax)];
      });
    assert.deepEqual(await range(), [1, STEPS]);
    await dragZoom(p, "reward", 10, 20);
    const [lo, hi] = await range();
    assert.ok(Math.abs(lo - 10) < 0.6 && Math.abs(hi - 20) < 0.6, `zoomed to [${lo}, ${hi}]`);
    // New data arrives while zoomed in (the job wrote a line): the zoom stays.
    await p.postTimed(hostMessage({ type: "dashboard/data", data: view() }));
    const [lo2, hi2] = await range();
    assert.ok(Math.abs(lo2 - lo) < 1e-9 && Math.abs(hi2 - hi) < 1e-9, `after redraw [${lo2}, ${hi2}]`);
    const mid = await stepX(p, "reward", 15);
    await p.page.mouse.dblclick(mid.x, mid.y);
    assert.deepEqual(await range(), [1, STEPS]);
  });

  it("a healthy band gives its advice on hover where the value leaves it", async () => {
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: view() }));
    const band = () =>
      p.page.evaluate(() => {
        const el = document.querySelector('.timechart[data-key="skipped_groups"] .chart-band-legend')!;
        return [el.textContent, el.classList.contains("outside-band")];
      });
    const inside = await stepX(p, "skipped_groups", 10);
    await p.page.mouse.move(inside.x, inside.y);
    assert.equal(await readout(p, "skipped_groups"), "step 10 · skipped_groups 0.4 (raw 0.4)");
    assert.deepEqual(await band(), ["▮ healthy: 0.2–0.6", false]);
    const outside = await stepX(p, "skipped_groups", 35);
    await p.page.mouse.move(outside.x, outside.y);
    const [text, flagged] = await band();
    assert.match(String(text), /^▮ step 35 is outside the healthy range \(0\.2–0\.6\): Near 1\.0/);
    assert.equal(flagged, true);
  });

  it("log scale puts decades on the y axis; SVG and PNG export", async () => {
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: view() }));
    await p.page.click('.metric[data-key="lr"] .log-toggle');
    await p.page.click('.metric[data-key="lr"] .export[data-format="svg"]');
    await p.page.click('.metric[data-key="lr"] .export[data-format="png"]');
    let exports: { type: string; format?: string; data?: string }[] = [];
    for (let i = 0; i < 50 && exports.length < 2; i++) {
      exports = (await p.sent()).filter((m) => m.type === "export") as typeof exports;
      await new Promise((r) => setTimeout(r, 50));
    }
    const svg = exports.find((m) => m.format === "svg")!.data!;
    assert.match(svg, /^<svg/);
    assert.ok(svg.includes(">1.0e-4<") && svg.includes(">1.0e-3<"), "decade ticks on the log axis");
    assert.equal((svg.match(/class="series"/g) ?? []).length, 1);
    const png = Buffer.from(
      exports.find((m) => m.format === "png")!.data!.replace(/^data:image\/png;base64,/, ""),
      "base64",
    );
    assert.equal(png.subarray(1, 4).toString("latin1"), "PNG");
    assert.ok(png.readUInt32BE(16) >= 240, "as wide as the drawn chart");
    assert.deepEqual(p.errors, []);
  });

  it("charts take the panel's width and follow it when it changes", async () => {
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: view() }));
    // The plot is the figure less the y axis (56 px) and padding: never a fixed 420 px.
    const sizes = () =>
      p.page.evaluate(() => ({
        canvas: document
          .querySelector<HTMLCanvasElement>('.timechart[data-key="reward"] canvas')!
          .getBoundingClientRect().width,
        figure: document.querySelector<HTMLElement>('.metric[data-key="reward"]')!.getBoundingClientRect().width,
      }));
    await new Promise((r) => setTimeout(r, 100));
    const before = await sizes();
    assert.ok(Math.abs(before.canvas - before.figure) <= 2, JSON.stringify(before));
    await p.page.setViewportSize({ width: 1900, height: 900 });
    await new Promise((r) => setTimeout(r, 200));
    const after = await sizes();
    assert.notEqual(Math.round(after.figure), Math.round(before.figure));
    assert.ok(Math.abs(after.canvas - after.figure) <= 2, JSON.stringify(after));
  });

  it("a 10,000-step run is drawn decimated, reads exact values at the cursor's step, and re-decimates on zoom", async () => {
    const p = await openPanelPage(browser, "dashboard");
    const rows = longLog();
    await p.postTimed(hostMessage({ type: "dashboard/data", data: view(false, rows) }));
    const state = () =>
      p.page.evaluate(() => {
        const el = document.querySelector<HTMLElement>('.timechart[data-key="reward"]')!;
        const over = el.querySelector<HTMLElement>(".u-over")!.getBoundingClientRect();
        return {
          drawn: Number(el.dataset.drawn),
          inView: Number(el.dataset.drawnInView),
          min: Number(el.dataset.xMin),
          max: Number(el.dataset.xMax),
          left: over.left,
          width: over.width,
        };
      });
    await new Promise((r) => setTimeout(r, 100));
    const full = await state();
    // At most first, last, min and max per pixel column of each line drawn (raw and smoothed).
    assert.ok(
      full.drawn > 0 && full.drawn < rows.length && full.drawn <= 8 * full.width + 4,
      `${full.drawn} of ${rows.length} points handed to uPlot for ${full.width} px`,
    );
    const reward = rows.map((r) => r.reward);
    const smooth = referenceEma(reward, 0.6);
    /** Hovers at a client x; returns the step the readout names, the step under the cursor, and the readout. */
    const hoverAt = async (x: number, y: number) => {
      await p.page.mouse.move(x, y);
      const text = await readout(p, "reward");
      const s = await state();
      const under = s.min + ((x - s.left) / s.width) * (s.max - s.min);
      return { step: Number(/^step (\d+)/.exec(text)?.[1]), under, text };
    };
    const exact = (step: number) =>
      `step ${step} · reward ${formatNumber(smooth[step - 1])} (raw ${formatNumber(reward[step - 1])})`;
    for (const target of [212, 4221, 7000]) {
      const { x, y } = await stepX(p, "reward", target);
      const h = await hoverAt(x, y);
      // The step under the cursor, to the pixel (one CSS pixel is several steps here).
      const perPx = (full.max - full.min) / full.width;
      assert.ok(
        Math.abs(h.step - h.under) <= perPx + 0.5,
        `readout step ${h.step}, cursor at step ${h.under.toFixed(1)}`,
      );
      assert.equal(h.text, exact(h.step));
    }

    // Zoom to 300 steps: every one of them is handed to uPlot (on top of the whole run's decimation).
    await dragZoom(p, "reward", 4000, 4300);
    await new Promise((r) => setTimeout(r, 100));
    const zoomed = await state();
    assert.ok(zoomed.max - zoomed.min < 400, `zoomed to [${zoomed.min}, ${zoomed.max}]`);
    const stepsInView = rows.filter((r) => r.step >= zoomed.min && r.step <= zoomed.max).length;
    assert.equal(zoomed.inView, stepsInView, `${zoomed.inView} points in view after the zoom, ${stepsInView} steps`);
    const spike = 4221; // i % 211 === 0 at i = 4220: a spike, exact in the readout
    const at = await stepX(p, "reward", spike);
    const h = await hoverAt(at.x, at.y);
    assert.equal(h.step, spike);
    assert.equal(h.text, exact(spike));
    await p.page.mouse.dblclick(at.x, at.y);
    await new Promise((r) => setTimeout(r, 100));
    const reset = await state();
    assert.deepEqual([reset.min, reset.max, reset.drawn, reset.inView], [1, rows.length, full.drawn, full.drawn]);
    assert.deepEqual(p.errors, []);
  });
});
