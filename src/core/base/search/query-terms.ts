/**
 * A query's distinct terms in the order the search takes them (window-top-k.ts), and the search's
 * per-query arrays, all in buffers reused query after query. A query used to allocate ~12 KB of
 * Maps, objects and small typed arrays: at 507k paragraphs that was a young-generation collection
 * every ~90 queries, up to ~4 ms each, about as many as a short query's p99 (bench/search/README.md).
 */
import type { PostingSource, TermSlices } from "./window-top-k";

/** Typed arrays reused query after query: zeroed views of the first n entries of buffers grown as needed. */
export class Scratch {
  private readonly floats: Float64Array[] = [];
  private readonly ints: Int32Array[] = [];

  f64(slot: number, n: number): Float64Array {
    return zeroedView(this.floats, slot, n, Float64Array);
  }

  i32(slot: number, n: number): Int32Array {
    return zeroedView(this.ints, slot, n, Int32Array);
  }
}

/** The first n entries of buffers[slot], zeroed; the buffer replaced by one at least twice as long when short. */
function zeroedView<A extends Float64Array | Int32Array>(
  buffers: A[],
  slot: number,
  n: number,
  make: new (length: number) => A,
): A {
  let buffer = buffers[slot];
  if (buffer === undefined || buffer.length < n)
    buffer = buffers[slot] = new make(Math.max(n, 2 * (buffer?.length ?? 8)));
  const view = buffer.subarray(0, n) as A;
  view.fill(0);
  return view;
}

/** A query's distinct terms in ascending order of their upper bounds (the MaxScore order), as parallel arrays. */
export interface QueryTerms {
  T: number;
  /** For each query word (repeats kept), the index of its term. */
  rowTerm: Int32Array;
  /** How often the term occurs in the query. */
  weight: Float64Array;
  /** weight · the term's largest contribution. */
  upper: Float64Array;
  /** upper / 255: what one step of a stored byte is worth. */
  unit: Float64Array;
  slices: TermSlices;
}

/** Scratch slots of queryTerms (the search's own start at FIRST_FREE_SLOT). */
const enum Slot {
  WordTerm,
  Rows,
  Count,
  Upper,
  Order,
  Rank,
  RowTerm,
  Weight,
  SortedUpper,
  Unit,
}
export const FIRST_FREE_SLOT = Slot.Unit + 1;

/** Up to this many distinct words a query's words are matched and ordered by scanning (no Map, no comparator). */
const FEW = 64;

/**
 * The distinct vocabulary rows of a query (in query order, repeats kept) in ascending order of
 * weight · termMax, ties in the order they first occur in the query.
 */
export function queryTerms(source: PostingSource, rows: readonly number[], scratch: Scratch): QueryTerms {
  const n = rows.length;
  // Distinct rows in first-occurrence order, how often each occurs, and each word's distinct row.
  const wordTerm = scratch.i32(Slot.WordTerm, n);
  const distinct = scratch.f64(Slot.Rows, n);
  const count = scratch.f64(Slot.Count, n);
  const seen = n > FEW ? new Map<number, number>() : undefined;
  let T = 0;
  for (let q = 0; q < n; q++) {
    const row = rows[q];
    let j = seen === undefined ? indexIn(distinct, T, row) : (seen.get(row) ?? -1);
    if (j < 0) {
      j = T++;
      distinct[j] = row;
      seen?.set(row, j);
    }
    count[j]++;
    wordTerm[q] = j;
  }
  const upperOf = scratch.f64(Slot.Upper, T);
  for (let j = 0; j < T; j++) upperOf[j] = count[j] * source.termMax(distinct[j]);
  const order = ascendingOrder(upperOf, scratch.i32(Slot.Order, T));

  const rank = scratch.i32(Slot.Rank, T);
  const weight = scratch.f64(Slot.Weight, T);
  const upper = scratch.f64(Slot.SortedUpper, T);
  const unit = scratch.f64(Slot.Unit, T);
  const termRows: number[] = new Array<number>(T);
  for (let t = 0; t < T; t++) {
    const j = order[t];
    rank[j] = t;
    weight[t] = count[j];
    upper[t] = upperOf[j];
    unit[t] = upperOf[j] / 255;
    termRows[t] = distinct[j];
  }
  const rowTerm = scratch.i32(Slot.RowTerm, n);
  for (let q = 0; q < n; q++) rowTerm[q] = rank[wordTerm[q]];
  return { T, rowTerm, weight, upper, unit, slices: source.load(termRows) };
}

function indexIn(values: Float64Array, n: number, value: number): number {
  for (let j = 0; j < n; j++) if (values[j] === value) return j;
  return -1;
}

/** Indices 0..n-1 of `keys` in ascending order of key, equal keys in index order, into `order`. */
function ascendingOrder(keys: Float64Array, order: Int32Array): Int32Array {
  const n = keys.length;
  if (n > FEW) {
    const sorted = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a] - keys[b] || a - b);
    order.set(sorted);
    return order;
  }
  for (let i = 0; i < n; i++) {
    let at = i;
    while (at > 0 && keys[order[at - 1]] > keys[i]) {
      order[at] = order[at - 1];
      at--;
    }
    order[at] = i;
  }
  return order;
}
