/** What the search benchmark's scripts share: logging, child processes, percentiles, agreement and tables. */
import { execFileSync } from "node:child_process";
import type { QueryRun } from "./query-child";

export function log(msg: string): void {
  console.error(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

export function sh(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 28 });
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

/**
 * The nearest-rank quantile (the ⌈p·n⌉-th smallest): file-map-ab.ts's and warm-passes-child.ts's
 * tables, one rank below percentile() at p 0.99 of 500 queries; its median of an even count is the
 * lower of the middle two.
 */
export function nearestRank(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/**
 * Fraction of queries whose top-3 id sets match; ties-aware also accepts the same three scores.
 * bm25s pads its top 3 with score-0 documents when fewer match; those are left out (we return only matches).
 */
export function agreement(
  ours: QueryRun,
  theirs: QueryRun,
  from: number,
  to: number,
): { exact: number; tiesAware: number } {
  let exact = 0;
  let ties = 0;
  for (let i = from; i < to; i++) {
    const keep = theirs.scores[i].map((s) => s > 0);
    const theirIds = theirs.ids[i].filter((_, j) => keep[j]);
    const theirScores = theirs.scores[i].filter((_, j) => keep[j]);
    const a = [...ours.ids[i]].sort().join();
    const b = [...theirIds].sort().join();
    const sameScores =
      ours.scores[i].length === theirScores.length &&
      ours.scores[i].every((s, j) => Math.abs(s - theirScores[j]) <= 1e-5 * Math.max(1, Math.abs(s)));
    if (a === b) exact++;
    if (a === b || sameScores) ties++;
  }
  return { exact: exact / (to - from), tiesAware: ties / (to - from) };
}

export const ms = (s: number) => `${(s * 1000).toFixed(2)} ms`;
export const gb = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;
export const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

export function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map(
      (r, i) =>
        "| " +
        r.map((cell, c) => cell.padEnd(widths[c])).join(" | ") +
        " |" +
        (i === 0 ? "\n|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|" : ""),
    )
    .join("\n");
}

export function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}
