/**
 * Plain-SVG charts with theme colours: line charts (with an optional CI band), points with error
 * bars, a forest plot of Δ with CIs, and stacked bars. Colours are read from VS Code's CSS
 * variables when drawing and written into the SVG as values, so an exported SVG or PNG looks like
 * the panel did. Every chart comes with "SVG" and "PNG" export buttons.
 */
import { h, svg } from "./dom";
import { send } from "./host";

export function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

export function palette() {
  return {
    fg: themeColor("--vscode-editor-foreground", "#cccccc"),
    muted: themeColor("--vscode-descriptionForeground", "#999999"),
    grid: themeColor("--vscode-editorWidget-border", "#555555"),
    bg: themeColor("--vscode-editor-background", "#1e1e1e"),
    series: [
      themeColor("--vscode-charts-blue", "#3794ff"),
      themeColor("--vscode-charts-orange", "#d18616"),
      themeColor("--vscode-charts-purple", "#b180d7"),
      themeColor("--vscode-charts-yellow", "#cca700"),
    ],
    good: themeColor("--vscode-charts-green", "#89d185"),
    bad: themeColor("--vscode-charts-red", "#f14c4c"),
    neutral: themeColor("--vscode-charts-foreground", "#cccccc"),
  };
}

interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const FRAME: Frame = { width: 420, height: 200, left: 48, right: 12, top: 24, bottom: 28 };

function scale(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

function niceTicks(lo: number, hi: number, count = 4): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function tickLabel(v: number): string {
  return Math.abs(v) >= 1000 ? v.toExponential(1) : String(Number(v.toPrecision(3)));
}

function frame(title: string, f: Frame, c: ReturnType<typeof palette>): SVGElement {
  return svg(
    "svg",
    { xmlns: "http://www.w3.org/2000/svg", viewBox: `0 0 ${f.width} ${f.height}`, width: f.width, height: f.height, role: "img", "aria-label": title, class: "chart" },
    svg("rect", { x: 0, y: 0, width: f.width, height: f.height, fill: c.bg }),
    svg("text", { x: f.left, y: 15, fill: c.fg, "font-size": 12, "font-family": "sans-serif" }, title),
  );
}

function axes(root: SVGElement, f: Frame, c: ReturnType<typeof palette>, x: { lo: number; hi: number; label?: string }, y: { lo: number; hi: number }) {
  const sx = scale(x.lo, x.hi, f.left, f.width - f.right);
  const sy = scale(y.lo, y.hi, f.height - f.bottom, f.top);
  for (const t of niceTicks(y.lo, y.hi)) {
    root.appendChild(svg("line", { x1: f.left, x2: f.width - f.right, y1: sy(t), y2: sy(t), stroke: c.grid, "stroke-width": 0.5 }));
    root.appendChild(svg("text", { x: f.left - 4, y: sy(t) + 3, fill: c.muted, "font-size": 9, "text-anchor": "end", "font-family": "sans-serif" }, tickLabel(t)));
  }
  for (const t of niceTicks(x.lo, x.hi, 5)) {
    root.appendChild(svg("text", { x: sx(t), y: f.height - f.bottom + 12, fill: c.muted, "font-size": 9, "text-anchor": "middle", "font-family": "sans-serif" }, tickLabel(t)));
  }
  if (x.label) root.appendChild(svg("text", { x: f.width - f.right, y: f.height - 4, fill: c.muted, "font-size": 9, "text-anchor": "end", "font-family": "sans-serif" }, x.label));
  return { sx, sy };
}

function extent(values: number[], pad = 0.05): { lo: number; hi: number } {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (!Number.isFinite(lo)) return { lo: 0, hi: 1 };
  if (lo === hi) {
    lo -= Math.abs(lo) * 0.1 || 0.5;
    hi += Math.abs(hi) * 0.1 || 0.5;
  }
  const p = (hi - lo) * pad;
  return { lo: lo - p, hi: hi + p };
}

export interface LinePoint {
  x: number;
  y: number;
  lo?: number;
  hi?: number;
}

/** A line over steps; points with lo/hi get error bars. */
export function lineChart(title: string, points: LinePoint[], options: { xLabel?: string; errorBars?: boolean; colorIndex?: number } = {}): SVGElement {
  const c = palette();
  const color = c.series[(options.colorIndex ?? 0) % c.series.length];
  const root = frame(title, FRAME, c);
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]);
  const { sx, sy } = axes(root, FRAME, c, { ...extent(xs, 0.02), label: options.xLabel ?? "step" }, extent(ys));
  if (points.length > 1 && !options.errorBars) {
    root.appendChild(svg("polyline", { points: points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" "), fill: "none", stroke: color, "stroke-width": 1.5 }));
  }
  for (const p of points) {
    if (p.lo !== undefined && p.hi !== undefined) {
      root.appendChild(svg("line", { x1: sx(p.x), x2: sx(p.x), y1: sy(p.lo), y2: sy(p.hi), stroke: color, "stroke-width": 1.5, class: "errorbar" }));
    }
    if (options.errorBars || points.length <= 40) root.appendChild(svg("circle", { cx: sx(p.x), cy: sy(p.y), r: 2.5, fill: color }, svg("title", {}, `${p.x}: ${tickLabel(p.y)}${p.lo !== undefined ? ` [${tickLabel(p.lo)}, ${tickLabel(p.hi ?? p.y)}]` : ""}`)));
  }
  return root;
}

export interface ForestRow {
  label: string;
  delta: number;
  lo: number;
  hi: number;
  verdict: string;
}

/** Δ with its CI per comparison, a zero line, coloured by verdict. */
export function forestPlot(title: string, rows: ForestRow[]): SVGElement {
  const c = palette();
  const rowH = 26;
  const f: Frame = { ...FRAME, left: 140, height: FRAME.top + FRAME.bottom + rowH * Math.max(rows.length, 1) };
  const root = frame(title, f, c);
  const ext = extent([0, ...rows.flatMap((r) => [r.lo, r.hi])]);
  const sx = scale(ext.lo, ext.hi, f.left, f.width - f.right);
  for (const t of niceTicks(ext.lo, ext.hi, 5)) {
    root.appendChild(svg("text", { x: sx(t), y: f.height - f.bottom + 12, fill: c.muted, "font-size": 9, "text-anchor": "middle", "font-family": "sans-serif" }, tickLabel(t)));
  }
  root.appendChild(svg("line", { x1: sx(0), x2: sx(0), y1: f.top, y2: f.height - f.bottom, stroke: c.muted, "stroke-dasharray": "3 3" }));
  rows.forEach((r, i) => {
    const y = f.top + rowH * i + rowH / 2;
    const color = r.verdict === "better" ? c.good : r.verdict === "worse" ? c.bad : c.neutral;
    root.appendChild(svg("text", { x: f.left - 6, y: y + 3, fill: c.fg, "font-size": 10, "text-anchor": "end", "font-family": "sans-serif" }, r.label.length > 22 ? r.label.slice(0, 21) + "…" : r.label));
    root.appendChild(svg("line", { x1: sx(r.lo), x2: sx(r.hi), y1: y, y2: y, stroke: color, "stroke-width": 2, class: `ci verdict-${r.verdict.replace(/\s+/g, "-")}` }));
    root.appendChild(svg("rect", { x: sx(r.delta) - 4, y: y - 4, width: 8, height: 8, fill: color }, svg("title", {}, `Δ ${tickLabel(r.delta)} [${tickLabel(r.lo)}, ${tickLabel(r.hi)}] ${r.verdict}`)));
  });
  return root;
}

export interface StackSegment {
  key: string;
  value: number;
  color: string;
}

/** One stacked bar per x; `onPick(i)` when a bar is clicked. */
export function stackedBars(title: string, xs: number[], stacks: StackSegment[][], onPick?: (i: number) => void): SVGElement {
  const c = palette();
  const root = frame(title, FRAME, c);
  const max = Math.max(1, ...stacks.map((s) => s.reduce((a, b) => a + b.value, 0)));
  const { sy } = axes(root, FRAME, c, { lo: 0, hi: 0, label: "step" }, { lo: 0, hi: max });
  const width = (FRAME.width - FRAME.left - FRAME.right) / Math.max(xs.length, 1);
  stacks.forEach((stack, i) => {
    let base = 0;
    const g = svg("g", { class: "bar", "data-index": i, tabindex: 0 }, svg("title", {}, `step ${xs[i]}: ${stack.map((s) => `${s.key} ${s.value}`).join(", ")}`));
    for (const s of stack) {
      if (s.value <= 0) continue;
      g.appendChild(svg("rect", { x: FRAME.left + i * width + 0.5, width: Math.max(width - 1, 1), y: sy(base + s.value), height: sy(base) - sy(base + s.value), fill: s.color }));
      base += s.value;
    }
    if (onPick) {
      g.addEventListener("click", () => onPick(i));
      g.addEventListener("keydown", (e) => {
        if ((e as KeyboardEvent).key === "Enter") onPick(i);
      });
    }
    root.appendChild(g);
  });
  return root;
}

function serialize(chart: SVGElement): string {
  return new XMLSerializer().serializeToString(chart);
}

/** PNG at 2× through a canvas (the image comes from a blob: URL, allowed by the CSP). */
async function toPng(chart: SVGElement): Promise<string> {
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

/** The chart in a figure with its export buttons. */
export function chartFigure(name: string, chart: SVGElement): HTMLElement {
  const svgButton = h("vscode-button", { secondary: true, class: "export", "data-format": "svg" }, "SVG");
  const pngButton = h("vscode-button", { secondary: true, class: "export", "data-format": "png" }, "PNG");
  svgButton.addEventListener("click", () => send({ type: "export", format: "svg", name, data: serialize(chart) }));
  pngButton.addEventListener("click", () => {
    toPng(chart).then(
      (data) => send({ type: "export", format: "png", name, data }),
      () => undefined,
    );
  });
  return h("figure", { class: "chart-figure" }, chart, h("figcaption", { class: "chart-actions" }, svgButton, pngButton));
}
