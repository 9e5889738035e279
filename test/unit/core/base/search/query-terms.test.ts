/**
 * queryTerms: a query's distinct rows in the search's order (ascending weight · termMax, ties in
 * first-occurrence order), in arrays reused query after query, against the plain definition
 * (a Map of counts, a stable sort) on random queries short and long.
 */
import { strict as assert } from "node:assert";
import { queryTerms, Scratch } from "../../../../../src/core/base/search/query-terms";
import type { PostingSource, TermSlices } from "../../../../../src/core/base/search/window-top-k";
import { mulberry32 } from "../../../../../src/core/base/util/mulberry32";

/** A source whose termMax is the given table and whose load() records the rows it was given. */
function source(termMax: number[]): PostingSource & { loaded: number[] } {
  const s = {
    windows: 1,
    loaded: [] as number[],
    termMax: (row: number) => termMax[row],
    load(rows: readonly number[]): TermSlices {
      s.loaded = [...rows];
      return {} as TermSlices;
    },
  };
  return s;
}

/** The definition queryTerms must equal. */
function expected(termMax: number[], rows: number[]) {
  const count = new Map<number, number>();
  for (const r of rows) count.set(r, (count.get(r) ?? 0) + 1);
  const terms = [...count].map(([row, weight]) => ({ row, weight, upper: weight * termMax[row] }));
  terms.sort((x, y) => x.upper - y.upper);
  return {
    rows: terms.map((t) => t.row),
    weight: terms.map((t) => t.weight),
    upper: terms.map((t) => t.upper),
    unit: terms.map((t) => t.upper / 255),
    rowTerm: rows.map((r) => terms.findIndex((t) => t.row === r)),
  };
}

function check(termMax: number[], rows: number[], scratch: Scratch): void {
  const src = source(termMax);
  const got = queryTerms(src, rows, scratch);
  const want = expected(termMax, rows);
  assert.equal(got.T, want.rows.length);
  assert.deepEqual(src.loaded, want.rows);
  assert.deepEqual([...got.weight], want.weight);
  assert.deepEqual([...got.upper], want.upper);
  assert.deepEqual([...got.unit], want.unit);
  assert.deepEqual([...got.rowTerm], want.rowTerm);
}

describe("search: a query's terms", () => {
  it("orders distinct rows by weight · termMax, ties in the order they first occur", () => {
    // Row 7 and row 2 tie (1 · 2 and 2 · 1); 7 occurs first. Row 5 occurs three times.
    const termMax = [0, 0, 1, 0, 0, 0.5, 0, 2];
    const src = source(termMax);
    const got = queryTerms(src, [7, 5, 2, 5, 2, 5], new Scratch());
    assert.deepEqual(src.loaded, [5, 7, 2]);
    assert.deepEqual([...got.weight], [3, 1, 2]);
    assert.deepEqual([...got.upper], [1.5, 2, 2]);
    assert.deepEqual([...got.rowTerm], [1, 0, 2, 0, 2, 0]);
  });

  it("equals the definition on random queries, short and past 64 words, with one scratch reused", () => {
    const random = mulberry32(28);
    const termMax = Array.from({ length: 500 }, () => Math.floor(random() * 8) / 2); // many ties
    const scratch = new Scratch();
    for (let q = 0; q < 300; q++) {
      // Lengths 1–12 mostly, and some of 65–400 words (the Map and comparator path), in no order,
      // so a query often follows a longer one in the same buffers.
      const n = q % 10 === 9 ? 65 + Math.floor(random() * 336) : 1 + Math.floor(random() * 12);
      const vocabulary = 1 + Math.floor(random() * (n > 64 ? 500 : 20));
      const rows = Array.from({ length: n }, () => Math.floor(random() * vocabulary));
      check(termMax, rows, scratch);
    }
  });
});
