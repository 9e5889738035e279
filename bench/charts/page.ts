/**
 * The page the chart benchmark runs in Chromium: builds M charts of N steps with the uPlot module
 * (smoothing on, as the dashboard opens), with that module as it was before decimation, or with
 * the previous SVG renderer, into a fresh container
 * of a dashboard's width, and reports the script time (building the DOM and laying it out; the
 * uPlot canvases draw on the next frame, once they have their width) and the time to the second
 * animation frame after the start (what the user waits for: all charts drawn and painted).
 */
import { createTimeChart, type TimeChart } from "../../webview/shared/timeseries";
import { lineChart } from "./svg-reference";
import { createTimeChart as createReferenceChart } from "./uplot-reference";

/** The chart module now, the module before decimation (uplot-reference.ts), the SVG before that. */
type Renderer = "uplot" | "uplot-reference" | "svg";

function series(n: number, m: number): [number, number][][] {
  let s = 12345;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: m }, (_, k) =>
    Array.from({ length: n }, (_, i) => [i + 1, Math.sin(i / (50 + k)) + rnd() * 0.3 + k] as [number, number]),
  );
}

const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

let data: [number, number][][] = [];
let charts: TimeChart[] = [];

/** Data made and the page emptied before the clock starts. */
async function prepare(n: number, m: number): Promise<void> {
  for (const c of charts) c.destroy();
  charts = [];
  data = series(n, m);
  document.body.replaceChildren();
  await frame();
}

async function run(renderer: Renderer, m: number): Promise<{ scriptMs: number; frameMs: number }> {
  const root = document.createElement("div");
  root.className = "grid";
  document.body.append(root);
  const t0 = performance.now();
  for (let k = 0; k < m; k++) {
    const cell = document.createElement("div");
    root.append(cell);
    if (renderer !== "svg") {
      const create = renderer === "uplot" ? createTimeChart : createReferenceChart;
      const c = create({
        name: `m${k}`,
        title: `metric ${k}`,
        series: [{ label: `m${k}`, points: data[k] }],
        smoothing: 0.6,
      });
      cell.append(c.el);
      charts.push(c);
    } else {
      cell.append(
        lineChart(
          `metric ${k}`,
          data[k].map(([x, y]) => ({ x, y })),
        ),
      );
    }
  }
  void document.body.offsetHeight; // layout now, inside the timed span
  const scriptMs = performance.now() - t0;
  await frame();
  await frame();
  const frameMs = performance.now() - t0;
  return { scriptMs, frameMs };
}

(window as unknown as { __bench: unknown }).__bench = { prepare, run };
