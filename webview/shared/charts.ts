/**
 * The one chart module every panel uses. Step charts (metrics, checkpoint scores, group health)
 * are uPlot canvases built by ./timeseries; the forest plot of Δ with CIs is SVG (a categorical
 * axis of a few rows, not a time series). Every chart sits in a figure with "SVG" and "PNG"
 * export buttons.
 */
import { h, svg } from "./dom";
import { send } from "./host";
import { formatNumber, formatTick, niceStep, niceTicks } from "./chart-math";
import { palette } from "./palette";
import type { TimeChart } from "./timeseries";

export { palette, themeColor } from "./palette";
export { createTimeChart, type TimeChart, type TimeChartOptions, type ChartBand, type RefLine } from "./timeseries";

export interface ForestRow {
  label: string;
  delta: number;
  lo: number;
  hi: number;
  verdict: string;
}

const signed = (v: number) => (v > 0 ? `+${formatNumber(v)}` : formatNumber(v));

/** Label width in the forest plot: long run names get room, then an ellipsis (full name on hover). */
const FOREST_LABEL_CHARS = 34;

/** Δ with its CI per comparison, a zero line, coloured by verdict; the value is written beside each row. */
export function forestPlot(title: string, rows: ForestRow[]): SVGElement {
  const c = palette();
  const rowH = 30;
  const f = { width: 560, left: 230, right: 110, top: 28, bottom: 26 };
  const height = f.top + f.bottom + rowH * Math.max(rows.length, 1);
  const root = svg(
    "svg",
    {
      xmlns: "http://www.w3.org/2000/svg",
      viewBox: `0 0 ${f.width} ${height}`,
      width: f.width,
      height,
      role: "img",
      "aria-label": title,
      class: "chart forest",
    },
    svg("rect", { x: 0, y: 0, width: f.width, height, fill: c.bg }),
    svg("text", { x: 8, y: 17, fill: c.fg, "font-size": 13, "font-family": "sans-serif" }, title),
  );
  const vals = [0, ...rows.flatMap((r) => [r.lo, r.hi])];
  let lo = Math.min(...vals);
  let hi = Math.max(...vals);
  if (lo === hi) [lo, hi] = [lo - 0.5, hi + 0.5];
  const pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
  const sx = (v: number) => f.left + ((v - lo) / (hi - lo)) * (f.width - f.left - f.right);
  const tickStep = niceStep(lo, hi, 5);
  for (const t of niceTicks(lo, hi, 5)) {
    root.appendChild(
      svg("line", { x1: sx(t), x2: sx(t), y1: f.top, y2: height - f.bottom, stroke: c.grid, "stroke-width": 0.4 }),
    );
    root.appendChild(
      svg(
        "text",
        {
          x: sx(t),
          y: height - f.bottom + 14,
          fill: c.muted,
          "font-size": 11,
          "text-anchor": "middle",
          "font-family": "sans-serif",
        },
        formatTick(t, tickStep),
      ),
    );
  }
  root.appendChild(
    svg("line", { x1: sx(0), x2: sx(0), y1: f.top, y2: height - f.bottom, stroke: c.muted, "stroke-dasharray": "3 3" }),
  );
  rows.forEach((r, i) => {
    const y = f.top + rowH * i + rowH / 2;
    const color = r.verdict === "better" ? c.good : r.verdict === "worse" ? c.bad : c.neutral;
    const label = r.label.length > FOREST_LABEL_CHARS ? r.label.slice(0, FOREST_LABEL_CHARS - 1) + "…" : r.label;
    root.appendChild(
      svg(
        "text",
        {
          x: f.left - 8,
          y: y + 4,
          fill: c.fg,
          "font-size": 12,
          "text-anchor": "end",
          "font-family": "sans-serif",
          class: "forest-label",
        },
        label,
        svg("title", {}, r.label),
      ),
    );
    root.appendChild(
      svg("line", {
        x1: sx(r.lo),
        x2: sx(r.hi),
        y1: y,
        y2: y,
        stroke: color,
        "stroke-width": 2.5,
        class: `ci verdict-${r.verdict.replace(/\s+/g, "-")}`,
      }),
    );
    const detail = `Δ ${signed(r.delta)} [${signed(r.lo)}, ${signed(r.hi)}] ${r.verdict}`;
    root.appendChild(
      svg("rect", { x: sx(r.delta) - 5, y: y - 5, width: 10, height: 10, fill: color }, svg("title", {}, detail)),
    );
    root.appendChild(
      svg(
        "text",
        {
          x: f.width - f.right + 8,
          y: y + 4,
          fill: color,
          "font-size": 11,
          "font-family": "sans-serif",
          class: "forest-value",
        },
        signed(r.delta),
      ),
    );
  });
  return root;
}

function serialize(chart: SVGElement): string {
  return new XMLSerializer().serializeToString(chart);
}

/** PNG at 2× through a canvas (the image comes from a blob: URL, allowed by the CSP). */
async function svgToPng(chart: SVGElement): Promise<string> {
  const text = serialize(chart);
  const w = Number(chart.getAttribute("width"));
  const hgt = Number(chart.getAttribute("height"));
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error("could not draw the chart"));
      img.src = url;
    });
    const canvas = document.createElement("canvas");
    canvas.width = w * 2;
    canvas.height = hgt * 2;
    const ctx = canvas.getContext("2d");
    if (!ctx) throw new Error("no canvas");
    ctx.scale(2, 2);
    ctx.drawImage(img, 0, 0);
    return canvas.toDataURL("image/png");
  } finally {
    URL.revokeObjectURL(url);
  }
}

function isTimeChart(chart: SVGElement | TimeChart): chart is TimeChart {
  return "toSvg" in chart;
}

/** The chart in a figure with its export buttons (and any extra controls, e.g. a log toggle). */
export function chartFigure(name: string, chart: SVGElement | TimeChart, ...controls: HTMLElement[]): HTMLElement {
  const svgButton = h("vscode-button", { secondary: true, class: "export", "data-format": "svg" }, "SVG");
  const pngButton = h("vscode-button", { secondary: true, class: "export", "data-format": "png" }, "PNG");
  const asSvg = () => (isTimeChart(chart) ? chart.toSvg() : serialize(chart));
  const asPng = () => (isTimeChart(chart) ? chart.toPng() : svgToPng(chart));
  svgButton.addEventListener("click", () => send({ type: "export", format: "svg", name, data: asSvg() }));
  pngButton.addEventListener("click", () => {
    asPng().then(
      (data) => send({ type: "export", format: "png", name, data }),
      () => undefined, // nothing drawn yet (no canvas): no file to offer
    );
  });
  const body = isTimeChart(chart) ? chart.el : chart;
  return h(
    "figure",
    { class: "chart-figure" },
    body,
    h("figcaption", { class: "chart-actions" }, ...controls, svgButton, pngButton),
  );
}
