/**
 * The chart module as it was before per-pixel-column decimation (webview/shared/timeseries.ts at
 * commit 231e601, with the EMA and series alignment it used then), kept unchanged so the chart
 * benchmark can compare the current module against it in the same run. Not used by any panel.
 */
import uPlot from "uplot";
import { h } from "../../webview/shared/dom";
import { palette } from "../../webview/shared/palette";
import { formatNumber, MAX_SMOOTHING, niceTicks, type Aligned, type RunSeries } from "../../webview/shared/chart-math";

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
  /** Step to mark with a vertical line (the selected step). */
  markStep?: number;
  /** Initial zoom (kept across redraws by the caller). */
  xRange?: [number, number];
  onZoom?: (range: [number, number] | null) => void;
  /** Click on a step (disables drag-zoom: a click picks). */
  onPick?: (step: number) => void;
  /** Cursor sync group: charts with the same key move their cursors together. */
  syncKey?: string;
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

  const readout = h("div", { class: "chart-readout", "aria-live": "polite" });
  const plot = h("div", { class: "chart-plot" });
  const bandLine = o.band ? h("div", { class: "chart-band-legend", title: o.band.advice }) : null;
  const el = h(
    "div",
    { class: "timechart", "data-key": o.name, ...(o.markStep !== undefined ? { "data-mark-step": o.markStep } : {}) },
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
    return `step ${steps[i]} · ${parts.join(" · ")}`;
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

  /** The readout at step index i; with no cursor on the chart, at the last step. */
  function showReadout(at: number | null | undefined): void {
    const i = at === null || at === undefined || at < 0 ? steps.length - 1 : at;
    readout.textContent = valuesAt(i);
    readout.title = readout.textContent;
    if (bandLine && o.band) {
      bandLine.textContent = `▮ ${outsideAt(i) ? `step ${steps[i]} is ${bandAt(i)}` : bandAt(i)}`;
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
      out.push({
        label: `${s.label} (raw)`,
        stroke: withAlpha(color, 0.28),
        width: 1,
        spanGaps: true,
        show: smoothing > 0,
        points: { show: false },
      });
      out.push({
        label: s.label,
        stroke: color,
        width: 1.6,
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
      padding: [8, 12, 0, 0],
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
            return min === max ? [min - 1, max + 1] : [min - half, max + half];
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
        },
        {
          stroke: c.muted,
          font: axisFont,
          size: 56,
          grid: { stroke: withAlpha(c.grid, 0.35), width: 1 },
          ticks: { stroke: c.grid, width: 1, size: 4 },
          values: (_u, splits) => splits.map((v) => fmt(v)),
        },
      ],
      series: uSeries(),
      hooks: {
        drawAxes: [drawBand],
        draw: [decorate],
        setCursor: [(self) => showReadout(self.cursor.idx)],
        setScale: [
          (self, key) => {
            if (key !== "x") return;
            const min = self.scales.x.min ?? 0;
            const max = self.scales.x.max ?? 0;
            el.dataset.xMin = String(min);
            el.dataset.xMax = String(max);
            const full = steps.length === 0 || (min <= steps[0] && max >= steps[steps.length - 1]);
            o.onZoom?.(full ? null : [min, max]);
          },
        ],
      },
    };
    u = new uPlot(opts, uData(), plot);
    if (xRange) u.setScale("x", { min: xRange[0], max: xRange[1] });
    u.over.addEventListener("mouseleave", () => showReadout(null));
    if (o.onPick) {
      const pick = o.onPick;
      u.over.addEventListener("mousedown", (e) => (downAt = [e.clientX, e.clientY]));
      u.over.addEventListener("click", (e) => {
        if (downAt && Math.hypot(e.clientX - downAt[0], e.clientY - downAt[1]) > 4) return;
        const i = u?.cursor.idx;
        if (i !== null && i !== undefined && i >= 0) pick(steps[i]);
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
        else if (Math.abs(u.width - w) > 1) u.setSize({ width: w, height });
      });
      resize.observe(plot);
    } else build(o.xRange);
  } else {
    plot.append(h("div", { class: "chart-placeholder muted" }, `${steps.length} steps (no canvas to draw on)`));
  }
  showReadout(steps.length - 1);

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
    const yTicks = log ? niceLogTicks(ymin, ymax) : niceTicks(ymin, ymax, 4);
    for (const t of yTicks) {
      parts.push(
        `<line x1="${bb.left}" x2="${bb.left + bb.width}" y1="${ys(t).toFixed(1)}" y2="${ys(t).toFixed(1)}" stroke="${esc(c.grid)}" stroke-width="0.5"/>`,
      );
      parts.push(
        `<text x="${bb.left - 4}" y="${(ys(t) + 3).toFixed(1)}" fill="${esc(c.muted)}" font-size="10" text-anchor="end" font-family="sans-serif">${esc(fmt(t))}</text>`,
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
      u.setData(uData(), false);
      u.redraw();
      showReadout(u.cursor.idx);
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

// The EMA and alignment as they were (the current ones in chart-math.ts compute the same values).
function emaSmooth(values: readonly (number | null)[], weight: number): (number | null)[] {
  const w = Math.min(Math.max(weight, 0), MAX_SMOOTHING);
  if (w === 0) return values.slice();
  let last = 0;
  let n = 0;
  return values.map((v) => {
    if (v === null || !Number.isFinite(v)) return v;
    last = last * w + (1 - w) * v;
    n++;
    return last / (1 - w ** n);
  });
}

function alignSeries(series: readonly RunSeries[]): Aligned {
  const ascending = (pts: RunSeries["points"]) => {
    for (let i = 1; i < pts.length; i++) if (!(pts[i][0] > pts[i - 1][0])) return false;
    return true;
  };
  const clean = (y: number) => (Number.isFinite(y) ? y : null);
  const first = series[0]?.points ?? [];
  const same =
    series.every((s) => s.points.length === first.length && s.points.every((p, i) => p[0] === first[i][0])) &&
    ascending(first);
  if (same) return { steps: first.map((p) => p[0]), values: series.map((s) => s.points.map((p) => clean(p[1]))) };
  const all = new Float64Array(series.reduce((n, s) => n + s.points.length, 0));
  let k = 0;
  for (const s of series) for (const p of s.points) all[k++] = p[0];
  all.sort();
  const steps: number[] = [];
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) steps.push(all[i]);
  const at = new Map(steps.map((x, i) => [x, i]));
  const values = series.map((s) => {
    const out = new Array<number | null>(steps.length).fill(null);
    for (const [x, y] of s.points) out[at.get(x)!] = clean(y);
    return out;
  });
  return { steps, values };
}
