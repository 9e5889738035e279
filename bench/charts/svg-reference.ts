/**
 * The reference for bench/charts: the dashboard's previous line chart, hand-written SVG with one
 * polyline per metric (as webview/shared/charts.ts drew it before the uPlot module), kept here
 * unchanged so the benchmark compares against it in the same run.
 */
import { svg } from "../../webview/shared/dom";
import { palette } from "../../webview/shared/palette";

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
    {
      xmlns: "http://www.w3.org/2000/svg",
      viewBox: `0 0 ${f.width} ${f.height}`,
      width: f.width,
      height: f.height,
      role: "img",
      "aria-label": title,
      class: "chart",
    },
    svg("rect", { x: 0, y: 0, width: f.width, height: f.height, fill: c.bg }),
    svg("text", { x: f.left, y: 15, fill: c.fg, "font-size": 12, "font-family": "sans-serif" }, title),
  );
}

function axes(
  root: SVGElement,
  f: Frame,
  c: ReturnType<typeof palette>,
  x: { lo: number; hi: number; label?: string },
  y: { lo: number; hi: number },
) {
  const sx = scale(x.lo, x.hi, f.left, f.width - f.right);
  const sy = scale(y.lo, y.hi, f.height - f.bottom, f.top);
  for (const t of niceTicks(y.lo, y.hi)) {
    root.appendChild(
      svg("line", { x1: f.left, x2: f.width - f.right, y1: sy(t), y2: sy(t), stroke: c.grid, "stroke-width": 0.5 }),
    );
    root.appendChild(
      svg(
        "text",
        {
          x: f.left - 4,
          y: sy(t) + 3,
          fill: c.muted,
          "font-size": 9,
          "text-anchor": "end",
          "font-family": "sans-serif",
        },
        tickLabel(t),
      ),
    );
  }
  for (const t of niceTicks(x.lo, x.hi, 5)) {
    root.appendChild(
      svg(
        "text",
        {
          x: sx(t),
          y: f.height - f.bottom + 12,
          fill: c.muted,
          "font-size": 9,
          "text-anchor": "middle",
          "font-family": "sans-serif",
        },
        tickLabel(t),
      ),
    );
  }
  if (x.label)
    root.appendChild(
      svg(
        "text",
        {
          x: f.width - f.right,
          y: f.height - 4,
          fill: c.muted,
          "font-size": 9,
          "text-anchor": "end",
          "font-family": "sans-serif",
        },
        x.label,
      ),
    );
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
export function lineChart(
  title: string,
  points: LinePoint[],
  options: { xLabel?: string; errorBars?: boolean; colorIndex?: number } = {},
): SVGElement {
  const c = palette();
  const color = c.series[(options.colorIndex ?? 0) % c.series.length];
  const root = frame(title, FRAME, c);
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]);
  const { sx, sy } = axes(root, FRAME, c, { ...extent(xs, 0.02), label: options.xLabel ?? "step" }, extent(ys));
  if (points.length > 1 && !options.errorBars) {
    root.appendChild(
      svg("polyline", {
        points: points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" "),
        fill: "none",
        stroke: color,
        "stroke-width": 1.5,
      }),
    );
  }
  for (const p of points) {
    if (p.lo !== undefined && p.hi !== undefined) {
      root.appendChild(
        svg("line", {
          x1: sx(p.x),
          x2: sx(p.x),
          y1: sy(p.lo),
          y2: sy(p.hi),
          stroke: color,
          "stroke-width": 1.5,
          class: "errorbar",
        }),
      );
    }
    if (options.errorBars || points.length <= 40)
      root.appendChild(
        svg(
          "circle",
          { cx: sx(p.x), cy: sy(p.y), r: 2.5, fill: color },
          svg(
            "title",
            {},
            `${p.x}: ${tickLabel(p.y)}${p.lo !== undefined ? ` [${tickLabel(p.lo)}, ${tickLabel(p.hi ?? p.y)}]` : ""}`,
          ),
        ),
      );
  }
  return root;
}
