/**
 * WindowTopK on posting lists written by hand, for the cases a real corpus rarely lines up: a tie
 * at the k-th score, decided by document number, in a window the sweep reaches only after the
 * seeded windows have set the k-th score.
 */
import { strict as assert } from "node:assert";
import { WINDOW_SHIFT } from "../../../../../src/core/base/search/bm25-format";
import { WindowTopK, fromArrays, type PostingArrays } from "../../../../../src/core/base/search/window-top-k";

const SIZE = 1 << WINDOW_SHIFT;

/** Short posting lists only (no stored window rows): each list's window bounds are exact maxima. */
function arrays(lists: Array<Array<[doc: number, score: number]>>, windows: number): PostingArrays {
  const postingOffsets = new Uint32Array(lists.length + 1);
  lists.forEach((l, i) => (postingOffsets[i + 1] = postingOffsets[i] + l.length));
  return {
    postingOffsets,
    docs: Uint32Array.from(lists.flat().map(([d]) => d)),
    scores: Float32Array.from(lists.flat().map(([, s]) => s)),
    termMax: Float32Array.from(lists, (l) => Math.max(...l.map(([, s]) => s))),
    windowMax: new Uint8Array(0),
    windowedRows: new Uint32Array(0),
    windows,
    windowStart: new Uint32Array(0),
  };
}

describe("search: window top-k", () => {
  it("a document whose window bound equals the k-th score exactly still wins on document number", () => {
    // Windows 1–9 each hold one document of each term (bound 2, best score 1): they have the highest
    // bounds, so they are scored first and set the k-th score to 1 (document 64). Window 0 holds
    // document 0 with score 1 from one term: its bound, 1, equals the k-th score, and document 0
    // comes before document 64, so the sweep must not skip window 0.
    const seeded = Array.from({ length: 9 }, (_, i) => (i + 1) * SIZE);
    const a: Array<[number, number]> = [[0, 1], ...seeded.map((d): [number, number] => [d, 1])];
    const b = seeded.map((d): [number, number] => [d + 1, 1]);
    const search = new WindowTopK(fromArrays(arrays([a, b], 20)));
    assert.deepEqual(search.top([0, 1], 1), [{ doc: 0, score: 1 }]);
    assert.deepEqual(search.top([0, 1], 2), [
      { doc: 0, score: 1 },
      { doc: SIZE, score: 1 },
    ]);
    // Ties among the seeded documents go by document number too.
    assert.deepEqual(
      search.top([1], 3).map((r) => r.doc),
      [SIZE + 1, 2 * SIZE + 1, 3 * SIZE + 1],
    );
  });
});
