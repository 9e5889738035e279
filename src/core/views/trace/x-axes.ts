/**
 * The x axes a training run's charts can use besides the step (as W&B offers them): wall time and
 * tokens trained, each a map from step to its value, read from what the run's metrics.jsonl holds.
 * An axis the run does not log is absent (an older run without per-step times offers step and
 * tokens only).
 */

export type XAxisKind = "step" | "wall" | "tokens";

export interface XAxis {
  kind: Exclude<XAxisKind, "step">;
  /** The axis title, with its unit. */
  label: string;
  /** [step, x] for every step that has one, in step order. */
  points: [number, number][];
}

/** Every x axis in the order the picker lists them, with its title. */
export const X_AXIS_LABELS: Readonly<Record<XAxisKind, string>> = Object.freeze({
  step: "step",
  wall: "wall time (s)",
  tokens: "tokens trained",
});

/**
 * Per-step token counts, first present wins: GRPO's `trained_tokens` (its `tokens` is a mean per
 * episode, not a count), SFT's `tokens` (the batch's), tinker-cookbook's `optim/tokens` style names
 * are not logged per step and give no axis.
 */
const TOKEN_FIELDS = ["trained_tokens", "tokens"] as const;

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Wall time since the run's first step: Agent Lab's `time` (ISO, per row), or the cookbook's per-iteration `time/total` summed. */
function wallAxis(rows: readonly Record<string, unknown>[]): [number, number][] {
  const stamped = rows.filter((r) => num(r.step) !== undefined && typeof r.time === "string");
  if (stamped.length > 0) {
    const first = Date.parse(stamped[0].time as string);
    return stamped
      .map((r) => [r.step as number, (Date.parse(r.time as string) - first) / 1000] as [number, number])
      .filter(([, x]) => Number.isFinite(x));
  }
  let total = 0;
  const out: [number, number][] = [];
  for (const r of rows) {
    const step = num(r.step);
    const t = num(r["time/total"]);
    if (step === undefined || t === undefined) continue;
    total += t;
    out.push([step, total]);
  }
  return out;
}

function tokensAxis(rows: readonly Record<string, unknown>[]): [number, number][] {
  const field = TOKEN_FIELDS.find((f) => rows.some((r) => num(r[f]) !== undefined));
  if (!field) return [];
  let total = 0;
  const out: [number, number][] = [];
  for (const r of rows) {
    const step = num(r.step);
    const n = num(r[field]);
    if (step === undefined || n === undefined) continue;
    total += n;
    out.push([step, total]);
  }
  return out;
}

/** The run's other x axes (wall time, tokens), those it logs. */
export function runXAxes(rows: readonly Record<string, unknown>[]): XAxis[] {
  const axes: XAxis[] = [
    { kind: "wall", label: X_AXIS_LABELS.wall, points: wallAxis(rows) },
    { kind: "tokens", label: X_AXIS_LABELS.tokens, points: tokensAxis(rows) },
  ];
  return axes.filter((a) => a.points.length > 0);
}

/** Series points [step, y] on another x axis: [x, y] where the axis has the step, the rest dropped. */
export function onXAxis(points: readonly (readonly [number, number])[], axis: XAxis | undefined): [number, number][] {
  if (!axis) return points.map(([s, y]) => [s, y]);
  const xOf = new Map(axis.points);
  return points.flatMap(([s, y]) => (xOf.has(s) ? [[xOf.get(s)!, y] as [number, number]] : []));
}
