/**
 * The episode list beside a trace: one light row per episode (10,000 rows must stay cheap to post
 * and to filter), the filters the list offers, and next/previous within the filtered list. Pure
 * data, used by the extension (to build rows) and by the webview (to filter them).
 */
import type { GoldInResults } from "./gold-in-results";
import { outcomeOf, type Outcome } from "../../base/runs/outcome";

export { outcomeOf, type Outcome };

export interface EpisodeRow {
  id: string;
  question: string;
  /** The run's environment's primary metric (what the list colours and filters by). */
  primary: number;
  /** Its binary metric (what the outcome reads). */
  binary: number;
  end: string;
  searches: number;
  outcome: Outcome;
  /** Filled in once the run's result text has been decoded; "unknown" until then. */
  gold: GoldInResults | "unknown";
}

export interface EpisodeFilter {
  outcomes?: Outcome[];
  /** Exact number of searches, or "3+" style lower bounds. */
  searches?: { min?: number; max?: number };
  /** Bounds on the primary metric. */
  primary?: { min?: number; max?: number };
  gold?: (GoldInResults | "unknown")[];
  /** Ids allowed by the full-text search (undefined: no text query). */
  ids?: ReadonlySet<string>;
}

export function matchesFilter(row: EpisodeRow, f: EpisodeFilter): boolean {
  if (f.outcomes && f.outcomes.length && !f.outcomes.includes(row.outcome)) return false;
  if (f.searches?.min !== undefined && row.searches < f.searches.min) return false;
  if (f.searches?.max !== undefined && row.searches > f.searches.max) return false;
  if (f.primary?.min !== undefined && row.primary < f.primary.min) return false;
  if (f.primary?.max !== undefined && row.primary > f.primary.max) return false;
  if (f.gold && f.gold.length && !f.gold.includes(row.gold)) return false;
  if (f.ids && !f.ids.has(row.id)) return false;
  return true;
}

/** Indices (into rows) of the rows the filter keeps, in order. */
export function filterRows(rows: readonly EpisodeRow[], f: EpisodeFilter): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++) if (matchesFilter(rows[i], f)) out.push(i);
  return out;
}

/** The id after (step 1) or before (step -1) `current` in the filtered list; wraps around. */
export function stepEpisode(visible: readonly string[], current: string | undefined, step: 1 | -1): string | undefined {
  if (visible.length === 0) return undefined;
  const at = current === undefined ? -1 : visible.indexOf(current);
  if (at < 0) return step === 1 ? visible[0] : visible[visible.length - 1];
  return visible[(at + step + visible.length) % visible.length];
}

/** The rows of a virtualised list to draw: those in view plus a margin. */
export function visibleWindow(
  total: number,
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  overscan = 10,
): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(total, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { first, last };
}

/**
 * Rows as columns, for the list's long messages: no field names repeated per row (a third fewer
 * bytes at 10,000 episodes) and a few arrays instead of one object per row, which is what VS Code
 * copies several times between the extension host and a webview.
 */
export interface EpisodeColumns {
  id: string[];
  question: string[];
  primary: number[];
  binary: number[];
  end: string[];
  searches: number[];
  outcome: Outcome[];
  gold: EpisodeRow["gold"][];
}

export function toColumns(rows: readonly EpisodeRow[]): EpisodeColumns {
  const c: EpisodeColumns = {
    id: [],
    question: [],
    primary: [],
    binary: [],
    end: [],
    searches: [],
    outcome: [],
    gold: [],
  };
  for (const r of rows) {
    c.id.push(r.id);
    c.question.push(r.question);
    c.primary.push(r.primary);
    c.binary.push(r.binary);
    c.end.push(r.end);
    c.searches.push(r.searches);
    c.outcome.push(r.outcome);
    c.gold.push(r.gold);
  }
  return c;
}

/** The rows back; columns of unequal length are refused (a message cut or built wrong). */
export function fromColumns(c: EpisodeColumns): EpisodeRow[] {
  const n = c.id.length;
  for (const [name, col] of Object.entries(c) as [string, unknown[]][]) {
    if (col.length !== n) throw new Error(`the episode list's "${name}" column has ${col.length} rows, "id" has ${n}`);
  }
  const rows: EpisodeRow[] = new Array(n);
  for (let i = 0; i < n; i++)
    rows[i] = {
      id: c.id[i],
      question: c.question[i],
      primary: c.primary[i],
      binary: c.binary[i],
      end: c.end[i],
      searches: c.searches[i],
      outcome: c.outcome[i],
      gold: c.gold[i],
    };
  return rows;
}
