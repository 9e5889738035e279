/**
 * What GRPO changed, per question kind of an invented world (its declaration's `kindOf`): the
 * environment's primary metric and the share of episodes that end in an answer, before (the SFT
 * checkpoint's eval) and after (GRPO's), computed from the two eval runs' recorded episodes, so the
 * report can name what was learned instead of asserting it.
 */
import { readEpisodes } from "../../base/runs/run-files";
import { environmentMetrics } from "../../envs/catalog";

export interface KindStats {
  n: number;
  /** The mean of the primary metric over the kind's episodes. */
  score: number;
  /** Share of episodes that ended with an <answer> (not on the search budget, a cut-off or no action). */
  answered: number;
}

export interface KindRow {
  kind: string;
  before: KindStats;
  after: KindStats;
}

/** How a world's questions are sorted into kinds and scored. */
export interface KindOptions {
  kindOf: (question: string) => string;
  /** The metric averaged per kind (the environment's primary), and its label in the line. */
  metric: string;
  label: string;
}

function statsByKind(runDir: string, k: KindOptions): Map<string, KindStats> {
  const sums = new Map<string, KindStats>();
  // Through the one record reader: format 1 lines come back as format 2, metrics by name.
  for (const e of readEpisodes(runDir, environmentMetrics, ["question", "end", "metrics"])) {
    const kind = k.kindOf(e.question);
    const s = sums.get(kind) ?? { n: 0, score: 0, answered: 0 };
    s.n++;
    s.score += e.metrics[k.metric] ?? 0;
    s.answered += e.end === "answer" ? 1 : 0;
    sums.set(kind, s);
  }
  return new Map([...sums].map(([k, s]) => [k, { n: s.n, score: s.score / s.n, answered: s.answered / s.n }]));
}

const NONE: KindStats = { n: 0, score: 0, answered: 0 };

/** One row per kind either run holds, the largest gain first (ties: by name). */
export function kindBreakdown(beforeDir: string, afterDir: string, k: KindOptions): KindRow[] {
  const before = statsByKind(beforeDir, k);
  const after = statsByKind(afterDir, k);
  const kinds = [...new Set([...before.keys(), ...after.keys()])];
  const rows = kinds.map((kind) => ({ kind, before: before.get(kind) ?? NONE, after: after.get(kind) ?? NONE }));
  return rows.sort(
    (a, b) => b.after.score - b.before.score - (a.after.score - a.before.score) || a.kind.localeCompare(b.kind),
  );
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The report's line: the kind GRPO gained most on, then every kind's score (its `label`) and answered share, SFT → GRPO. */
export function renderKindBreakdown(rows: readonly KindRow[], label: string): string {
  if (rows.length === 0) return "";
  const top = rows[0];
  const gain = top.after.score - top.before.score;
  const head =
    gain > 0
      ? `GRPO learned most on ${top.kind} questions: ${label} ${top.before.score.toFixed(3)} → ${top.after.score.toFixed(3)}, answered ${pct(top.before.answered)} → ${pct(top.after.answered)}`
      : "GRPO gained on no question kind";
  const each = rows.map(
    (r) =>
      `${r.kind} (n ${r.after.n || r.before.n}) ${label} ${r.before.score.toFixed(3)} → ${r.after.score.toFixed(3)}, answered ${pct(r.before.answered)} → ${pct(r.after.answered)}`,
  );
  return `${head} (val, SFT → GRPO, from the eval episodes)\n  by kind: ${each.join("; ")}`;
}
