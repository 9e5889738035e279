/**
 * Chart benchmark: the dashboard's uPlot chart module vs the same module before decimation
 * (uplot-reference.ts) and the previous hand-written SVG renderer, in
 * the same headless Chromium run (the engine VS Code's webviews use), for M metrics × N steps.
 * Prints one table, medians of R runs: the renderer main thread's CPU time from the start to the
 * second frame after it (Chromium's ThreadTime metric: the number to trust on a busy machine),
 * the wall time to that frame (all charts drawn and painted; median and best), and the script
 * time before the first frame. The previous renderer's SVG is rastered off the main thread, so its
 * CPU column reads low; compare wall times on an idle machine. Target: 10,000 steps × 12 metrics under 100 ms.
 *
 *   npx tsx bench/charts/run.ts            sizes 1,000 and 10,000 steps × 12 metrics, 9 runs each
 *   options: --runs R  --metrics M  --steps N[,N…]
 */
import { build } from "esbuild";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { launchHeadless } from "../../test/unit/webview/chromium-page";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "9" },
    metrics: { type: "string", default: "12" },
    steps: { type: "string", default: "1000,10000" },
  },
});
const runs = Number(values.runs);
const metrics = Number(values.metrics);
const sizes = values.steps!.split(",").map(Number);
const NAMES = {
  svg: "SVG (before uPlot)",
  "uplot-reference": "uPlot, no decimation (before)",
  uplot: "uPlot module (M4 decimation)",
} as const;

async function main(): Promise<void> {
  const bundle = await build({
    entryPoints: [join(__dirname, "page.ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "chrome120",
    minify: true,
    logLevel: "warning",
  });
  const browser = await launchHeadless();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.setContent(
      `<!DOCTYPE html><html><head><style>.grid{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}</style></head><body></body></html>`,
    );
    await page.addScriptTag({ content: bundle.outputFiles[0].text });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    const threadMs = async () =>
      ((await cdp.send("Performance.getMetrics")).metrics.find((x) => x.name === "ThreadTime")?.value ?? Number.NaN) *
      1000;
    type Bench = {
      prepare(n: number, m: number): Promise<void>;
      run(r: string, m: number): Promise<{ scriptMs: number; frameMs: number }>;
    };
    const rows: string[][] = [];
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const renderers = ["svg", "uplot-reference", "uplot"] as const;
    for (const n of sizes) {
      type Samples = { script: number[]; frames: number[]; cpu: number[] };
      const samples = new Map<string, Samples>(renderers.map((r) => [r, { script: [], frames: [], cpu: [] }]));
      // Renderers take turns within each run, so a change in the machine's load hits all of them.
      for (let i = 0; i <= runs; i++) {
        for (const renderer of renderers) {
          await page.evaluate(([nn, mm]) => (window as unknown as { __bench: Bench }).__bench.prepare(nn, mm), [
            n,
            metrics,
          ] as const);
          const c0 = await threadMs();
          const t = await page.evaluate(([r, mm]) => (window as unknown as { __bench: Bench }).__bench.run(r, mm), [
            renderer,
            metrics,
          ] as const);
          const c1 = await threadMs();
          if (i === 0) continue; // warm-up
          const s = samples.get(renderer)!;
          s.script.push(t.scriptMs);
          s.frames.push(t.frameMs);
          s.cpu.push(c1 - c0);
        }
      }
      for (const renderer of renderers) {
        const { script, frames, cpu } = samples.get(renderer)!;
        rows.push([
          NAMES[renderer],
          `${n.toLocaleString("en")} × ${metrics}`,
          med(cpu).toFixed(1),
          med(frames).toFixed(1),
          Math.min(...frames).toFixed(1),
          med(script).toFixed(1),
        ]);
      }
    }
    const head = [
      "renderer",
      "steps × metrics",
      "main-thread CPU ms",
      "wall ms to 2nd frame",
      "best wall ms",
      "script ms before 1st frame",
    ];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
    console.log(
      `Chromium ${browser.version()} · ${cpus().length} cores · load ${loadavg()[0].toFixed(2)} · medians of ${runs} runs, smoothing 0.6 on the uPlot charts`,
    );
    console.log(line(head));
    console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
    for (const r of rows) console.log(line(r));
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
