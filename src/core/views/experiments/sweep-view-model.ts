/**
 * What the experiment panel shows of a sweep, from its record alone (no vscode; tested in plain
 * Node): the ranking as a table (the CLI's, sweep-table-text.ts, so the panel copies the same
 * digits), each arm's runs to link, and per swept parameter one metric-vs-value plot: a line per
 * combination of the other parameters, each point the arm's mean with its interval.
 */
import type { TextTable } from "../../base/util/table-text";
import type { ExperimentRecord } from "../../steps/experiments/record";
import { sweepTextTable } from "../../steps/experiments/sweep-table-text";

export interface SweepPlot {
  /** The swept parameter on the x axis ("grpo.lr"). */
  param: string;
  /** One line per combination of the other parameters' values, points sorted by x: [value, mean] with [lo, hi]. */
  series: { label: string; points: [number, number][]; errors: [number, number][] }[];
}

export interface SweepView {
  metric: string;
  n: number;
  baseline: string;
  params: string[];
  best: string | null;
  bestReason: string;
  rule: string;
  table: TextTable;
  /** Per table row (same order): the arm and its runs (absolute), for the links. */
  arms: { name: string; evalRun: string; trainRun: string | undefined }[];
  plots: SweepPlot[];
}

/** The sweep part of the panel's view, or undefined for an experiment without a sweep. */
export function sweepView(rec: ExperimentRecord, abs: (p: string) => string): SweepView | undefined {
  const s = rec.sweep;
  if (!s) return undefined;
  const swept = s.arms.filter((a) => Object.keys(a.values).length > 0);
  const plots = s.params.map((param) => {
    const others = s.params.filter((k) => k !== param);
    const lines = new Map<string, SweepPlot["series"][number]>();
    // Lines in the order of the other parameters' values (the ranking would reorder them run to run).
    const byOthers = (x: (typeof swept)[number], y: (typeof swept)[number]) => {
      for (const k of others)
        if ((x.values[k] ?? 0) !== (y.values[k] ?? 0)) return (x.values[k] ?? 0) - (y.values[k] ?? 0);
      return 0;
    };
    for (const a of swept.filter((x) => param in x.values).sort(byOthers)) {
      const label = others.map((k) => `${k}=${a.values[k] ?? "—"}`).join(", ") || rec.metric;
      const line = lines.get(label) ?? { label, points: [], errors: [] };
      line.points.push([a.values[param], a.mean]);
      line.errors.push([a.ci.lo, a.ci.hi]);
      lines.set(label, line);
    }
    for (const line of lines.values()) {
      const order = line.points.map((_, i) => i).sort((i, j) => line.points[i][0] - line.points[j][0]);
      line.points = order.map((i) => line.points[i]);
      line.errors = order.map((i) => line.errors[i]);
    }
    return { param, series: [...lines.values()] };
  });
  return {
    metric: rec.metric,
    n: s.n,
    baseline: s.baseline,
    params: s.params,
    best: s.best,
    bestReason: s.best_reason,
    rule: s.rule,
    table: sweepTextTable(s, rec.metric, `${rec.title} — sweep`),
    arms: s.arms.map((a) => ({
      name: a.name,
      evalRun: abs(rec.scores[a.name]?.run ?? ""),
      trainRun: rec.arms.find((x) => x.name === a.name)?.run
        ? abs(rec.arms.find((x) => x.name === a.name)!.run)
        : undefined,
    })),
    plots,
  };
}
