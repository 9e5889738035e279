/**
 * Step charts on uPlot (canvas, made for long time series: 10,000 steps × 12 metrics draw in a
 * few ms, see bench/charts): one or several runs on shared step axes, TensorBoard-style EMA
 * smoothing with the raw line faint behind, log scale, drag-zoom (double-click resets), a hover
 * readout of every series at the cursor's step, the recipe's healthy range as a band whose advice
 * shows on hover, reference lines, error bars, stacked bars and a marked step. Width follows the
 * container (ResizeObserver). A long line is drawn from its per-pixel-column first/last/min/max
 * points only (M4 decimation, redone for the visible range on zoom and on resize): every spike
 * stays, a tenth of the points are handed to uPlot; the readout and the exports read the exact
 * values at the cursor's step. SVG export is written from the data and the chart's own scales; PNG
 * export is the canvas itself. Where a canvas has no 2D context (a DOM without one) the chart is a
 * placeholder with the same readout.
 */
import uPlot from "uplot";
import { h } from "./dom";
import { palette } from "./palette";
import {
  alignSeries,
  emaSmooth,
  formatNumber,
  formatTick,
  m4Indices,
  nearestIndex,
  niceStep,
  niceTicks,
  type RunSeries,
} from "./chart-math";

export interface ChartBand {
  lo?: number;
  hi?: number;
  range: string;
  advice: string;
}

export interface RefLine {
  label: string;
  value: number;
  /** Shown in the readout next to the value, e.g. its CI. */
  detail?: string;
}

export interface TimeChartOptions {
  /** Export file name and the chart's data-key. */
  name: string;
  title: string;
  /** One line per run; `color` indexes the palette (a run keeps its colour on every chart). */
  series: (RunSeries & { colorIndex?: number; errors?: readonly (readonly [lo: number, hi: number])[] })[];
  /** EMA weight 0…0.99; 0 draws the raw lines only. */
  smoothing?: number;
  log?: boolean;
  band?: ChartBand;
  refLines?: RefLine[];
  /** Points on the line, and half a step of room at the ends: sparse series such as checkpoint scores. */
  points?: boolean;
  /** Stacked bars: series are stacked in order (first at the bottom); no smoothing. */
  stacked?: boolean;
  format?: (v: number | null) => string;
  height?: number;
  /** Step to mark with a vertical line (the selected step); the readout rests there, not at the last step. */
  markStep?: number;
  /**
   * Where the x axis ends unzoomed: the run's last step, so a sparse series (checkpoint scores)
   * spans the run it belongs to instead of its own points padded by the chart.
   */
  xMax?: number;
  /** Initial zoom (kept across redraws by the caller). */
  xRange?: [number, number];
  onZoom?: (range: [number, number] | null) => void;
  /** Click on a step (disables drag-zoom: a click picks). */
  onPick?: (step: number) => void;
  /** Cursor sync group: charts with the same key move their cursors together. */
  syncKey?: string;
  /** The x axis' title (default "step"): the dashboard also plots against wall time and tokens. */
  xLabel?: string;
  /** The y axis' title, with its unit where it has one (default: the chart's title). */
  yLabel?: string;
}

export interface TimeChart {
  /** The figure's content: readout, plot, band legend. */
  el: HTMLElement;
  readonly steps: number[];
  setSmoothing(weight: number): void;
  setLog(log: boolean): void;
  /** The readout text for the step at index `i` (what hovering there shows). */
  readoutAt(i: number): string;
  toSvg(): string;
  toPng(): Promise<string>;
  destroy(): void;
}

const DEFAULT_HEIGHT = 180;
/** The y axis' width and the plot's right padding, in CSS px. */
const Y_AXIS_SIZE = 56;
/** Room for an axis' title beside its tick labels, in CSS px. */
const AXIS_LABEL_SIZE = 16;
const PAD_RIGHT = 12;
const STEP_INCRS = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 50_000, 100_000,
];

let drawable: boolean | undefined;

function canDraw(): boolean {
  if (drawable === undefined) {
    try {
      drawable = !!document.createElement("canvas").getContext("2d");
    } catch {
      drawable = false; // a DOM without canvas support: show the placeholder
    }
  }
  return drawable;
}

function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(color.trim());
  if (hex) {
    const n = parseInt(hex[1], 16);
    return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
  }
  return `color-mix(in srgb, ${color} ${Math.round(alpha * 100)}%, transparent)`;
}

/** Above this many points per canvas pixel column a line is filled as its envelope instead of stroked. */
const DENSE_PER_COLUMN = 2;

/**
 * A line that has several points in every pixel column, drawn as what a stroke of it would cover:
 * per column, its lowest to its highest point, `lineWidth` thicker, filled as one polygon. A
 * stroked zigzag of 10,000 noisy points (uPlot's own path, round joins at every turn) was half of a
 * dashboard's raster time; the filled envelope covers the same pixels. Sparser lines (few steps, or
 * zoomed in) are uPlot's linear path.
 */
function envelopePaths(color: string, lineWidth: number): uPlot.Series.PathBuilder {
  const linear = uPlot.paths.linear!();
  return (self, sidx, i0, i1) => {
    if (i1 - i0 < DENSE_PER_COLUMN * self.bbox.width) return linear(self, sidx, i0, i1);
    const xs = self.data[0];
    const ys = self.data[sidx];
    const cx: number[] = [];
    const top: number[] = [];
    const bottom: number[] = [];
    let col = Number.NaN;
    let prev = Number.NaN;
    for (let i = i0; i <= i1; i++) {
      const v = ys[i];
      if (v === null || v === undefined) continue;
      const y = self.valToPos(v, "y", true);
      if (!Number.isFinite(y)) continue;
      const x = Math.round(self.valToPos(xs[i], "x", true));
      if (x !== col) {
        // A column also covers the segment from the previous column's last point, as a stroke would.
        col = x;
        cx.push(x);
        top.push(Number.isNaN(prev) ? y : Math.min(y, prev));
        bottom.push(Number.isNaN(prev) ? y : Math.max(y, prev));
      } else {
        const k = cx.length - 1;
        if (y < top[k]) top[k] = y;
        else if (y > bottom[k]) bottom[k] = y;
      }
      prev = y;
    }
    // Each column one pixel wide, the line's width thicker all round: a spike keeps a stroke's width.
    const half = (lineWidth * uPlot.pxRatio) / 2;
    const fill = new Path2D();
    for (let k = 0; k < cx.length; k++) {
      fill.lineTo(cx[k] - 0.5, top[k] - half);
      fill.lineTo(cx[k] + 0.5, top[k] - half);
    }
    for (let k = cx.length - 1; k >= 0; k--) {
      fill.lineTo(cx[k] + 0.5, bottom[k] + half);
      fill.lineTo(cx[k] - 0.5, bottom[k] + half);
    }
    fill.closePath();
    // `_width` 0: uPlot strokes nothing and fills `fill` with `_fill` (its per-path overrides).
    const paths: uPlot.Series.Paths & { _width: number } = {
      stroke: null,
      fill,
      clip: null,
      band: null,
      flags: 0,
      _fill: color,
      _width: 0,
    };
    return paths;
  };
}

/** Cumulative sums, so that drawing the highest first and the rest over it reads as a stack. */
function stackValues(values: (number | null)[][]): (number | null)[][] {
  const out: (number | null)[][] = [];
  let acc = values[0]?.map(() => 0) ?? [];
  for (const v of values) {
    acc = acc.map((a, i) => a + (v[i] ?? 0));
    out.push(acc.slice());
  }
  return out;
}

export function createTimeChart(o: TimeChartOptions): TimeChart {
  const c = palette();
  const fmt = o.format ?? formatNumber;
  const aligned = alignSeries(o.series);
  const steps = aligned.steps;
  const raw = aligned.values;
  let smoothing = o.stacked ? 0 : (o.smoothing ?? 0);
  let log = !!o.log;
  const colorOf = (i: number) => c.series[(o.series[i].colorIndex ?? i) % c.series.length];
  const smoothedOf = () => raw.map((v) => emaSmooth(v, smoothing));
  let smoothed = smoothedOf();
  const errorsAt = o.series.map((s) => {
    if (!s.errors) return undefined;
    const m = new Map<number, readonly [number, number]>();
    s.points.forEach(([x], k) => m.set(x, s.errors![k]));
    return m;
  });

  // Every chart names both axes (drawn beside them, and on the figure for tests and screen readers).
  const xLabel = o.xLabel ?? "step";
  const yLabel = o.yLabel ?? o.title;
  const xAt = (x: number) => (xLabel === "step" ? `step ${x}` : `${xLabel} ${formatNumber(x)}`);
  const readout = h("div", { class: "chart-readout", "aria-live": "polite" });
  const plot = h("div", { class: "chart-plot" });
  const bandLine = o.band ? h("div", { class: "chart-band-legend", title: o.band.advice }) : null;
  const el = h(
    "div",
    {
      class: "timechart",
      "data-key": o.name,
      "data-x-label": xLabel,
      "data-y-label": yLabel,
      "aria-label": `${o.title}: ${yLabel} by ${xLabel}`,
      ...(o.markStep !== undefined ? { "data-mark-step": o.markStep } : {}),
    },
    h("div", { class: "chart-title" }, o.title),
    readout,
    plot,
    bandLine,
  );

  const inBand = (v: number | null) =>
    v === null ||
    !o.band ||
    ((o.band.lo === undefined || v >= o.band.lo) && (o.band.hi === undefined || v <= o.band.hi));

  /** Every series' value at step index i (smoothed, raw in brackets), reference lines after. */
  function valuesAt(i: number): string {
    if (i < 0 || i >= steps.length) return "";
    const parts = o.series.map((s, k) => {
      const r = raw[k][i];
      if (r === null) return `${s.label} –`;
      const sm = smoothed[k][i];
      const err = errorsAt[k]?.get(steps[i]);
      const main = smoothing > 0 && sm !== null ? `${fmt(sm)} (raw ${fmt(r)})` : fmt(r);
      return `${s.label} ${main}${err ? ` [${fmt(err[0])}, ${fmt(err[1])}]` : ""}`;
    });
    for (const r of o.refLines ?? []) parts.push(`${r.label} ${fmt(r.value)}${r.detail ? ` ${r.detail}` : ""}`);
    return `${xAt(steps[i])} · ${parts.join(" · ")}`;
  }

  const outsideAt = (i: number) => !!o.band && i >= 0 && raw.some((v) => !inBand(v[i]));

  /** The band's verdict at step index i: its range, and its advice where a value leaves it. */
  function bandAt(i: number): string {
    if (!o.band) return "";
    return outsideAt(i) ? `outside the healthy range (${o.band.range}): ${o.band.advice}` : `healthy: ${o.band.range}`;
  }

  function readoutAt(i: number): string {
    const values = valuesAt(i);
    return o.band && values ? `${values} · ${bandAt(i)}` : values;
  }

  /** Where the readout rests with no cursor on the chart: the marked step (a picked one), else the last. */
  const markedIndex = o.markStep === undefined ? -1 : steps.indexOf(o.markStep);
  const restingIndex = markedIndex >= 0 ? markedIndex : steps.length - 1;

  /** The readout at step index i; with no cursor on the chart, at the resting step. */
  function showReadout(at: number | null | undefined): void {
    const i = at === null || at === undefined || at < 0 ? restingIndex : at;
    readout.textContent = valuesAt(i);
    readout.title = readout.textContent;
    if (bandLine && o.band) {
      bandLine.textContent = `▮ ${outsideAt(i) ? `${xAt(steps[i])} is ${bandAt(i)}` : bandAt(i)}`;
      bandLine.classList.toggle("outside-band", outsideAt(i));
    }
  }

  // Data and series as uPlot wants them: x, then per run its faint raw line and its smoothed line.
  function uData(): uPlot.AlignedData {
    if (o.stacked) return [steps, ...stackValues(raw).reverse()] as uPlot.AlignedData;
    const cols: (number | null)[][] = [];
    raw.forEach((r, k) => cols.push(r, smoothed[k]));
    return [steps, ...cols] as uPlot.AlignedData;
  }

  /** Pixel columns of the plot area for a chart `width` CSS px wide (the y axis and padding aside). */
  const columnsFor = (width: number) =>
    Math.max(1, Math.round((width - Y_AXIS_SIZE - PAD_RIGHT) * (globalThis.devicePixelRatio || 1)));
  /** Bars and marked points draw every step; a line with fewer than two points per column gains nothing. */
  const decimates = (width: number) => !o.stacked && !o.points && steps.length > 2 * columnsFor(width);
  /** The x range the data handed to uPlot was decimated for (null: all of it is handed over). */
  let drawnRange: [number, number] | null = null;

  /**
   * uData() cut to what `width` pixels show of [xMin, xMax], plus the whole run at the same
   * resolution so that a double-click reset (uPlot scales to its data) has the full extent.
   */
  function drawnData(width: number, xRange?: [number, number]): uPlot.AlignedData {
    const full = uData();
    if (!decimates(width) || steps.length === 0) {
      drawnRange = null;
      return full;
    }
    const lines = full.slice(1) as (number | null)[][];
    const shown = lines.filter((_, k) => smoothing > 0 || k % 2 === 1);
    const cols = columnsFor(width);
    const first = steps[0];
    const last = steps[steps.length - 1];
    const range: [number, number] = xRange ? [Math.max(first, xRange[0]), Math.min(last, xRange[1])] : [first, last];
    let idx = m4Indices(steps, shown, first, last, cols);
    if (range[0] > first || range[1] < last) {
      const zoomed = m4Indices(steps, shown, range[0], range[1], cols);
      idx = [...new Set([...idx, ...zoomed])].sort((a, b) => a - b);
    }
    drawnRange = xRange ? [xRange[0], xRange[1]] : [first, last];
    return [idx.map((i) => steps[i]), ...lines.map((l) => idx.map((i) => l[i]))] as uPlot.AlignedData;
  }

  /** Hands uPlot the points for the x range it shows now (after a zoom, a resize or new smoothing). */
  function redecimate(self: uPlot): void {
    const min = self.scales.x.min;
    const max = self.scales.x.max;
    if (min === undefined || max === undefined) return;
    const wasDecimated = drawnRange !== null;
    const data = drawnData(self.width, [min, max]);
    if (!wasDecimated && drawnRange === null) return;
    self.setData(data, false);
    noteDrawn(data, [min, max]);
    // uPlot keeps the visible index window of the old data until the x scale is set again.
    self.setScale("x", { min, max });
  }

  /** How many points uPlot holds, and how many of them in view (the tests see decimation by it). */
  function noteDrawn(data: uPlot.AlignedData, xRange?: [number, number]): void {
    const xs = data[0];
    el.dataset.drawn = String(xs.length);
    let inView = 0;
    for (const x of xs) if (!xRange || (x >= xRange[0] && x <= xRange[1])) inView++;
    el.dataset.drawnInView = String(inView);
  }

  /** The index into `steps` at the cursor: exact even where uPlot holds a decimated copy. */
  function cursorIndex(self: uPlot): number | null {
    const left = self.cursor.left;
    if (left === undefined || left < 0) return null;
    if (drawnRange === null) return self.cursor.idx ?? null;
    return nearestIndex(steps, self.posToVal(left, "x"));
  }

  function uSeries(): uPlot.Series[] {
    const out: uPlot.Series[] = [{ label: "step" }];
    if (o.stacked) {
      const n = o.series.length;
      for (let k = n - 1; k >= 0; k--) {
        const color = colorOf(k);
        out.push({
          label: o.series[k].label,
          stroke: color,
          fill: color,
          width: 0,
          paths: uPlot.paths.bars!({ size: [0.8, 40] }),
          points: { show: false },
        });
      }
      return out;
    }
    o.series.forEach((s, k) => {
      const color = colorOf(k);
      const faint = withAlpha(color, 0.28);
      out.push({
        label: `${s.label} (raw)`,
        stroke: faint,
        width: 1,
        paths: envelopePaths(faint, 1),
        spanGaps: true,
        show: smoothing > 0,
        points: { show: false },
      });
      out.push({
        label: s.label,
        stroke: color,
        width: 1.6,
        paths: envelopePaths(color, 1.6),
        spanGaps: true,
        points: { show: !!o.points || steps.length === 1, size: o.points ? 7 : 5, fill: color },
      });
    });
    return out;
  }

  const yRange = (_u: uPlot, min: number | null, max: number | null): uPlot.Range.MinMax => {
    let lo = min ?? 0;
    let hi = max ?? 1;
    for (const r of o.refLines ?? []) {
      lo = Math.min(lo, r.value);
      hi = Math.max(hi, r.value);
    }
    for (const m of errorsAt)
      for (const [a, b] of m?.values() ?? []) {
        lo = Math.min(lo, a);
        hi = Math.max(hi, b);
      }
    if (o.stacked) lo = 0;
    if (log) {
      lo = Math.max(lo, Number.MIN_VALUE);
      return [10 ** Math.floor(Math.log10(lo)), 10 ** Math.ceil(Math.log10(Math.max(hi, lo * 10)))];
    }
    if (lo === hi) {
      const pad = Math.abs(lo) * 0.1 || 0.5;
      return [lo - pad, hi + pad];
    }
    const pad = (hi - lo) * 0.06;
    return [o.stacked ? 0 : lo - pad, hi + pad];
  };

  /** Band, reference lines, error bars and the marked step, drawn in canvas pixels. */
  function decorate(u: uPlot): void {
    const ctx = u.ctx;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    const px = uPlot.pxRatio;
    if (o.markStep !== undefined) {
      const x = u.valToPos(o.markStep, "x", true);
      ctx.strokeStyle = c.fg;
      ctx.lineWidth = 1.5 * px;
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    (o.refLines ?? []).forEach((r, k) => {
      const y = u.valToPos(r.value, "y", true);
      ctx.strokeStyle = k === 0 ? c.muted : c.series[3];
      ctx.lineWidth = 1.2 * px;
      ctx.setLineDash([6 * px, 4 * px]);
      ctx.beginPath();
      ctx.moveTo(left, y);
      ctx.lineTo(left + width, y);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = ctx.strokeStyle;
      ctx.font = `${11 * px}px sans-serif`;
      ctx.textAlign = "left";
      ctx.fillText(`${r.label} ${fmt(r.value)}`, left + 4 * px, y - 4 * px);
    });
    errorsAt.forEach((m, k) => {
      if (!m) return;
      ctx.strokeStyle = colorOf(k);
      ctx.lineWidth = 1.5 * px;
      for (const [x, [a, b]] of m) {
        const cx = u.valToPos(x, "x", true);
        const y0 = u.valToPos(a, "y", true);
        const y1 = u.valToPos(b, "y", true);
        ctx.beginPath();
        ctx.moveTo(cx, y0);
        ctx.lineTo(cx, y1);
        ctx.moveTo(cx - 4 * px, y0);
        ctx.lineTo(cx + 4 * px, y0);
        ctx.moveTo(cx - 4 * px, y1);
        ctx.lineTo(cx + 4 * px, y1);
        ctx.stroke();
      }
    });
    ctx.restore();
  }

  function drawBand(u: uPlot): void {
    if (!o.band) return;
    const { left, top, width, height } = u.bbox;
    const [ymin, ymax] = [u.scales.y.min ?? 0, u.scales.y.max ?? 1];
    const lo = Math.max(o.band.lo ?? ymin, ymin);
    const hi = Math.min(o.band.hi ?? ymax, ymax);
    if (!(hi > lo)) return;
    const y0 = u.valToPos(hi, "y", true);
    const y1 = u.valToPos(lo, "y", true);
    u.ctx.save();
    u.ctx.fillStyle = withAlpha(c.good, 0.13);
    u.ctx.fillRect(left, Math.max(top, y0), width, Math.min(top + height, y1) - Math.max(top, y0));
    u.ctx.restore();
  }

  let u: uPlot | undefined;
  let resize: ResizeObserver | undefined;
  let downAt: [number, number] | undefined;
  const height = o.height ?? DEFAULT_HEIGHT;

  function widthNow(): number {
    return Math.max(240, Math.floor(plot.clientWidth || el.clientWidth || 420));
  }

  function build(xRange?: [number, number], width = widthNow()): void {
    u?.destroy();
    const axisFont = "11px sans-serif";
    const opts: uPlot.Options = {
      width,
      height,
      legend: { show: false },
      padding: [8, PAD_RIGHT, 0, 0],
      cursor: {
        drag: { x: !o.onPick, y: false, setScale: true },
        points: { size: 6 },
        ...(o.syncKey ? { sync: { key: o.syncKey } } : {}),
      },
      scales: {
        x: {
          time: false,
          // Bars get half a step of room at both ends so the first and last are not cut in half.
          range: (_u, min, max) => {
            const half = o.stacked
              ? Math.max(0.5, (max - min) / Math.max(1, steps.length - 1) / 2)
              : o.points
                ? Math.max(0.5, (max - min) * 0.05)
                : 0;
            const [lo, hi] = min === max ? [min - 1, max + 1] : [min - half, max + half];
            return o.xMax !== undefined && o.xMax > lo ? [lo, o.xMax] : [lo, hi];
          },
        },
        y: log ? { distr: 3, log: 10, range: yRange } : { range: yRange },
      },
      axes: [
        {
          stroke: c.muted,
          font: axisFont,
          grid: { stroke: withAlpha(c.grid, 0.35), width: 1 },
          ticks: { stroke: c.grid, width: 1, size: 4 },
          incrs: STEP_INCRS,
          values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : "")),
          label: xLabel,
          labelSize: AXIS_LABEL_SIZE,
          labelFont: axisFont,
        },
        {
          stroke: c.muted,
          font: axisFont,
          size: Y_AXIS_SIZE,
          grid: { stroke: withAlpha(c.grid, 0.35), width: 1 },
          ticks: { stroke: c.grid, width: 1, size: 4 },
          // Linear ticks are rounded to the axis's spacing (uPlot's incr); a caller's format and log decades as they are.
          values: (_u, splits, _axis, _space, incr) =>
            splits.map((v) => (o.format || log ? fmt(v) : formatTick(v, incr))),
          label: yLabel,
          labelSize: AXIS_LABEL_SIZE,
          labelFont: axisFont,
        },
      ],
      series: uSeries(),
      hooks: {
        drawAxes: [drawBand],
        draw: [decorate],
        setCursor: [(self) => showReadout(cursorIndex(self))],
        setScale: [
          (self, key) => {
            if (key !== "x") return;
            const min = self.scales.x.min ?? 0;
            const max = self.scales.x.max ?? 0;
            el.dataset.xMin = String(min);
            el.dataset.xMax = String(max);
            const full = steps.length === 0 || (min <= steps[0] && max >= steps[steps.length - 1]);
            o.onZoom?.(full ? null : [min, max]);
            // A zoom re-decimates for the range it shows (deferred: uPlot is inside its commit here).
            if (drawnRange && (drawnRange[0] !== min || drawnRange[1] !== max))
              queueMicrotask(() => u === self && redecimate(self));
          },
        ],
      },
    };
    const data = drawnData(width, xRange);
    noteDrawn(data, xRange);
    u = new uPlot(opts, data, plot);
    if (xRange) u.setScale("x", { min: xRange[0], max: xRange[1] });
    u.over.addEventListener("mouseleave", () => showReadout(null));
    if (o.onPick) {
      const pick = o.onPick;
      u.over.addEventListener("mousedown", (e) => (downAt = [e.clientX, e.clientY]));
      u.over.addEventListener("click", (e) => {
        if (downAt && Math.hypot(e.clientX - downAt[0], e.clientY - downAt[1]) > 4) return;
        const i = u ? cursorIndex(u) : null;
        if (i !== null && i >= 0) pick(steps[i]);
      });
    }
  }

  if (canDraw()) {
    if (typeof ResizeObserver !== "undefined") {
      // Drawn once the plot is in the page and has its width (the observer's first call), so a
      // chart built before it is attached is not drawn twice; later calls follow the width.
      // The width comes from the observation itself: reading clientWidth here would force a
      // layout per chart while a dozen are being drawn.
      resize = new ResizeObserver((entries) => {
        const seen = Math.floor(entries[entries.length - 1].contentRect.width);
        if (!plot.isConnected || seen === 0) return;
        const w = Math.max(240, seen);
        if (!u) build(o.xRange, w);
        else if (Math.abs(u.width - w) > 1) {
          u.setSize({ width: w, height });
          if (drawnRange || decimates(w)) redecimate(u);
        }
      });
      resize.observe(plot);
    } else build(o.xRange);
  } else {
    plot.append(h("div", { class: "chart-placeholder muted" }, `${steps.length} steps (no canvas to draw on)`));
  }
  showReadout(restingIndex);

  function toSvg(): string {
    const w = u ? u.width : 420;
    const hgt = (u ? u.height : height) + 24;
    const bb = u
      ? {
          left: u.bbox.left / uPlot.pxRatio,
          top: u.bbox.top / uPlot.pxRatio,
          width: u.bbox.width / uPlot.pxRatio,
          height: u.bbox.height / uPlot.pxRatio,
        }
      : { left: 56, top: 8, width: w - 68, height: height - 40 };
    const xs = (v: number) =>
      u ? u.valToPos(v, "x") : bb.left + ((v - steps[0]) / Math.max(1, steps[steps.length - 1] - steps[0])) * bb.width;
    const ys = (v: number) => (u ? u.valToPos(v, "y") : bb.top);
    const esc = (t: string) =>
      t.replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]!);
    const T = 24;
    const parts: string[] = [
      `<rect x="0" y="0" width="${w}" height="${hgt}" fill="${esc(c.bg)}"/>`,
      `<text x="${bb.left}" y="15" fill="${esc(c.fg)}" font-size="12" font-family="sans-serif">${esc(o.title)}</text>`,
      `<g transform="translate(0 ${T})">`,
    ];
    const ymin = u?.scales.y.min ?? 0;
    const ymax = u?.scales.y.max ?? 1;
    if (o.band) {
      const lo = Math.max(o.band.lo ?? ymin, ymin);
      const hi = Math.min(o.band.hi ?? ymax, ymax);
      if (hi > lo)
        parts.push(
          `<rect class="band" x="${bb.left}" y="${ys(hi).toFixed(1)}" width="${bb.width}" height="${(ys(lo) - ys(hi)).toFixed(1)}" fill="${esc(c.good)}" fill-opacity="0.13"/>`,
        );
    }
    // The axes' titles, as the chart draws them.
    parts.push(
      `<text x="${(bb.left + bb.width / 2).toFixed(1)}" y="${(bb.top + bb.height + 30).toFixed(1)}" fill="${esc(c.muted)}" font-size="10" text-anchor="middle" font-family="sans-serif">${esc(xLabel)}</text>`,
      `<text transform="translate(10 ${(bb.top + bb.height / 2).toFixed(1)}) rotate(-90)" fill="${esc(c.muted)}" font-size="10" text-anchor="middle" font-family="sans-serif">${esc(yLabel)}</text>`,
    );
    const yTicks = log ? niceLogTicks(ymin, ymax) : niceTicks(ymin, ymax, 4);
    const yStep = niceStep(ymin, ymax, 4);
    const yTickLabel = (t: number) => (o.format || log ? fmt(t) : formatTick(t, yStep));
    for (const t of yTicks) {
      parts.push(
        `<line x1="${bb.left}" x2="${bb.left + bb.width}" y1="${ys(t).toFixed(1)}" y2="${ys(t).toFixed(1)}" stroke="${esc(c.grid)}" stroke-width="0.5"/>`,
      );
      parts.push(
        `<text x="${bb.left - 4}" y="${(ys(t) + 3).toFixed(1)}" fill="${esc(c.muted)}" font-size="10" text-anchor="end" font-family="sans-serif">${esc(yTickLabel(t))}</text>`,
      );
    }
    const xmin = u?.scales.x.min ?? steps[0] ?? 0;
    const xmax = u?.scales.x.max ?? steps[steps.length - 1] ?? 1;
    for (const t of niceTicks(xmin, xmax, 5).filter(Number.isInteger)) {
      parts.push(
        `<text x="${xs(t).toFixed(1)}" y="${bb.top + bb.height + 14}" fill="${esc(c.muted)}" font-size="10" text-anchor="middle" font-family="sans-serif">${t}</text>`,
      );
    }
    const inView = (i: number) => steps[i] >= xmin && steps[i] <= xmax;
    const data = o.stacked ? stackValues(raw) : smoothed;
    data.forEach((vals, k) => {
      const pts: string[] = [];
      vals.forEach((v, i) => {
        if (v !== null && inView(i) && (!log || v > 0)) pts.push(`${xs(steps[i]).toFixed(1)},${ys(v).toFixed(1)}`);
      });
      if (smoothing > 0 && !o.stacked) {
        const rp: string[] = [];
        raw[k].forEach((v, i) => {
          if (v !== null && inView(i) && (!log || v > 0)) rp.push(`${xs(steps[i]).toFixed(1)},${ys(v).toFixed(1)}`);
        });
        parts.push(
          `<polyline class="raw" points="${rp.join(" ")}" fill="none" stroke="${esc(colorOf(k))}" stroke-opacity="0.28" stroke-width="1"/>`,
        );
      }
      parts.push(
        `<polyline class="series" points="${pts.join(" ")}" fill="none" stroke="${esc(colorOf(k))}" stroke-width="1.6"><title>${esc(o.series[k].label)}</title></polyline>`,
      );
    });
    for (const r of o.refLines ?? []) {
      parts.push(
        `<line class="ref" x1="${bb.left}" x2="${bb.left + bb.width}" y1="${ys(r.value).toFixed(1)}" y2="${ys(r.value).toFixed(1)}" stroke="${esc(c.muted)}" stroke-dasharray="6 4"/>`,
      );
      parts.push(
        `<text x="${bb.left + 4}" y="${(ys(r.value) - 4).toFixed(1)}" fill="${esc(c.muted)}" font-size="10" font-family="sans-serif">${esc(`${r.label} ${fmt(r.value)}`)}</text>`,
      );
    }
    parts.push("</g>");
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${hgt}" viewBox="0 0 ${w} ${hgt}">${parts.join("")}</svg>`;
  }

  async function toPng(): Promise<string> {
    if (!u) throw new Error("nothing drawn");
    const src = u.ctx.canvas;
    const title = 24 * uPlot.pxRatio;
    const canvas = document.createElement("canvas");
    canvas.width = src.width;
    canvas.height = src.height + title;
    const ctx = canvas.getContext("2d");
    if (!ctx) throw new Error("no canvas");
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = c.fg;
    ctx.font = `${12 * uPlot.pxRatio}px sans-serif`;
    ctx.fillText(o.title, u.bbox.left, 16 * uPlot.pxRatio);
    ctx.drawImage(src, 0, title);
    return canvas.toDataURL("image/png");
  }

  return {
    el,
    steps,
    setSmoothing(weight: number) {
      if (o.stacked) return;
      const wasOn = smoothing > 0;
      smoothing = weight;
      smoothed = smoothedOf();
      if (!u) return;
      if (wasOn !== smoothing > 0) o.series.forEach((_, k) => u!.setSeries(1 + 2 * k, { show: smoothing > 0 }));
      if (drawnRange) redecimate(u);
      else {
        u.setData(uData(), false);
        u.redraw();
      }
      showReadout(cursorIndex(u));
    },
    setLog(next: boolean) {
      if (next === log) return;
      log = next;
      if (u)
        build(
          u.scales.x.min !== undefined && u.scales.x.max !== undefined ? [u.scales.x.min, u.scales.x.max] : undefined,
        );
    },
    readoutAt,
    toSvg,
    toPng,
    destroy() {
      resize?.disconnect();
      u?.destroy();
      u = undefined;
    },
  };
}

function niceLogTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.ceil(Math.log10(Math.max(lo, Number.MIN_VALUE))); 10 ** e <= hi * (1 + 1e-9); e++)
    out.push(10 ** e);
  return out.length ? out : [lo];
}
