/**
 * WindowTopK on posting lists written by hand, for the cases a real corpus rarely lines up: a tie
 * at the k-th score, decided by document number, in a window the sweep reaches only after the
 * seeded windows have set the k-th score.
 */
import { strict as assert } from "node:assert";
import { WINDOW_SHIFT } from "../../../../../src/core/base/search/bm25-format";
import {
  WindowTopK,
  fromArrays,
  gallop,
  middleWindow,
  mergeTop,
  windowSlot,
  type PostingArrays,
  type PostingSource,
} from "../../../../../src/core/base/search/window-top-k";
import { arrays, exhaustive, randomLists, randomQuery, withWindows, type List } from "./posting-lists";
import { mulberry32 } from "../../../../../src/core/base/util/mulberry32";

const SIZE = 1 << WINDOW_SHIFT;

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
    // The same with the seeded windows in the next sweep block (windows 16–24): window 0 is then
    // alone in block 0, whose highest bound, 1, equals the k-th score, so the block is not skipped.
    const later = Array.from({ length: 9 }, (_, i) => (i + 16) * SIZE);
    const lone = new WindowTopK(
      fromArrays(
        arrays(
          [[[0, 1], ...later.map((d): [number, number] => [d, 1])], later.map((d): [number, number] => [d + 1, 1])],
          26,
        ),
      ),
    );
    assert.deepEqual(lone.top([0, 1], 1), [{ doc: 0, score: 1 }]);
  });

  it("a short list's posting at the first document of the next sweep block is not passed over", () => {
    // Windows 0–9 each hold one document of each term (bound 6, best score 3): windows 0–8 are the
    // seeds (k + 8), window 9 is left to the sweep, so block 0 (windows 0–15) is swept and the
    // first term's list is walked in it. That list's next posting, document 16 · 64 = 1,024, is the
    // first of block 1, and the best document (5): the walk must stop there, not step past it.
    const limit = 16 * SIZE;
    const decoys = Array.from({ length: 10 }, (_, w) => w * SIZE);
    const a: List = [...decoys.map((d): [number, number] => [d, 3]), [limit, 5]];
    // Document 9 · 64 + 2 (score 1) shares window 9 but cannot reach the k-th best (3): not scored.
    const b: List = [...decoys.map((d): [number, number] => [d + 1, 3]), [9 * SIZE + 2, 1]];
    const search = new WindowTopK(fromArrays(arrays([a, b], 20)));
    assert.deepEqual(search.top([0, 1], 1), [{ doc: limit, score: 5 }]);
    assert.equal(search.scored, 2 * 9 + 2 + 1, "the seeds' documents, window 9's two of score 3, and document 1,024");
    assert.deepEqual(search.top([1, 0], 2), exhaustive([a, b], [1, 0]).slice(0, 2));
  });

  it("reads no posting past a short list's end: the next row's first posting counts for neither sums nor exact scores", () => {
    // Rows 0 and 2 are the query; row 1, between them in the arrays, is not. Windows 0–8 hold the
    // seeds (bound 6, best 3); window 9 holds document 586 of row 2 alone (5), scored by the sweep.
    // Row 1's one posting lies right after row 0's last: at document 586 itself (its exact score
    // must not take row 1's 7), or at document 585 of window 9 (no partial sum may give it a score).
    const decoys = Array.from({ length: 9 }, (_, w) => w * SIZE);
    const a: List = decoys.map((d): [number, number] => [d, 3]);
    const b: List = [...decoys.map((d): [number, number] => [d + 1, 3]), [9 * SIZE + 10, 5]];
    for (const next of [9 * SIZE + 10, 9 * SIZE + 9]) {
      const search = new WindowTopK(fromArrays(arrays([a, [[next, 7]], b], 20)));
      assert.deepEqual(search.top([0, 2], 1), [{ doc: 9 * SIZE + 10, score: 5 }], `row 1 at ${next}`);
      assert.equal(search.scored, 2 * 9 + 1, `row 1 at ${next}: the seeds' documents and document 586`);
    }
  });

  it("reads a long list's postings and window starts only in the windows the seeds and the sweep can still need", () => {
    // Two long lists over 40 windows (one posting in each), read through a source that records
    // what ensure() and ensureWindows() made readable. Row 0 adds 1 to document w·64 + 5 of every
    // window; row 1 adds 10 to the same document in windows 0–8 and 30, 9.99 to document w·64 + 6
    // in windows 20–29, 0.01 elsewhere. Windows 0–8 are the seeds: the k-th best is 11. The sweep
    // opens windows 20–30 only (bound 11; the others 1.04): row 0 (upper bound 1) cannot reach 11
    // alone, so it is not walked; its postings are only looked up for window 30's document, whose
    // partial sum 10 can reach 11 with it, not for windows 20–29's (9.99 + 1 < 11).
    const windows = 40;
    const small: List = Array.from({ length: windows }, (_, w) => [w * SIZE + 5, 1]);
    const big: List = Array.from({ length: windows }, (_, w): [number, number] =>
      w <= 8 || w === 30
        ? [w * SIZE + 5, 10]
        : w >= 20 && w < 30
          ? [w * SIZE + 6, Math.fround(9.99)]
          : [w * SIZE + 7, 0.01],
    );
    const index = withWindows([small, big], windows * SIZE);
    assert.deepEqual(Array.from(index.windowedRows), [0, 1]);
    const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
    // Query order puts the larger term first: the search orders terms by their bounds itself.
    for (const rows of [
      [1, 0],
      [0, 1],
    ]) {
      const source = recording(index);
      const search = new WindowTopK(source);
      assert.deepEqual(search.top(rows, 1), [{ doc: 5, score: 11 }]);
      assert.equal(search.scored, 9 + 1, "the seeds' documents and window 30's");
      assert.deepEqual(source.postingWindows(0), [...range(0, 9), 30], `rows ${rows}: row 0's postings read`);
      assert.deepEqual(
        source.postingWindows(1),
        [...range(0, 9), ...range(20, 31)],
        `rows ${rows}: row 1's postings read`,
      );
      assert.deepEqual(source.startEntries(), [...range(0, 10), ...range(16, 33)], `rows ${rows}: window starts read`);
    }
    // Fewer matches than k (the k-th best stays 0): the seeds cover every window with a posting,
    // and the sweep opens none of the empty ones.
    const few = recording(arrays([[[70, 2]], [[1, 1]]], 40));
    assert.deepEqual(new WindowTopK(few).top([0, 1], 5), [
      { doc: 70, score: 2 },
      { doc: 1, score: 1 },
    ]);
    assert.deepEqual(few.startEntries(), [0, 1, 2], "the seeds' window starts only");
  });

  it("pruned top-k equals exhaustive scoring on random lists, long and short, with ties, repeats and every k", () => {
    // Long lists (at least one posting per window) take the stored byte bounds and the window jumps;
    // short ones the exact per-window maxima. Scores from a few values make many ties at the k-th
    // score; 40 windows make three sweep blocks.
    const random = mulberry32(7);
    for (let round = 0; round < 12; round++) {
      const documents = 64 * (1 + Math.floor(random() * 40)) - Math.floor(random() * 64);
      const lists = randomLists(random, documents, 2 + Math.floor(random() * 6));
      const search = new WindowTopK(fromArrays(withWindows(lists, documents)));
      for (let q = 0; q < 4; q++) {
        const rows = randomQuery(random, lists.length);
        const all = exhaustive(lists, rows);
        for (const k of [1, 3, 10, 10_000])
          assert.deepEqual(search.top(rows, k), all.slice(0, k), `round ${round}, rows ${rows.join(" ")}, k = ${k}`);
      }
    }
  });

  it("the top k of two window ranges that meet, merged, is the top k of all: each range is exact for its documents", () => {
    // How a heavy query is split between two threads (search-helper.ts): at the middle block, and at
    // every other block boundary, on lists long and short, ties and repeats included.
    const random = mulberry32(23);
    for (let round = 0; round < 8; round++) {
      const documents = 64 * (33 + Math.floor(random() * 40)) - Math.floor(random() * 64);
      const lists = randomLists(random, documents, 2 + Math.floor(random() * 6));
      const index = withWindows(lists, documents);
      const search = new WindowTopK(fromArrays(index));
      const W = index.windows;
      const cuts = [middleWindow(W), ...Array.from({ length: Math.ceil(W / 16) + 1 }, (_, b) => 16 * b)];
      for (let q = 0; q < 3; q++) {
        const rows = randomQuery(random, lists.length);
        const all = exhaustive(lists, rows);
        for (const k of [1, 3, 10_000])
          for (const mid of cuts) {
            const lower = search.top(rows, k, 0, mid);
            const upper = search.top(rows, k, mid, W);
            assert.ok(lower.every((h) => h.doc < mid * SIZE) && upper.every((h) => h.doc >= mid * SIZE));
            assert.deepEqual(
              mergeTop(lower, upper, k),
              all.slice(0, k),
              `round ${round}, rows ${rows.join(" ")}, k ${k}, at ${mid}`,
            );
          }
      }
    }
  });

  it("reads a long list only where ensure(), ensureScores(), ensureWindows() and ensureBits() made it readable", () => {
    // A source like the on-disk one: long lists' postings, window starts and bits are zeros (what a
    // page not yet read would give) until the search asks for them (a score alone with
    // ensureScores()), so a read outside what it asked for gives a wrong result.
    const random = mulberry32(11);
    for (let round = 0; round < 6; round++) {
      const documents = 64 * (20 + Math.floor(random() * 30));
      const lists = randomLists(random, documents, 3 + Math.floor(random() * 4));
      const index = withWindows(lists, documents);
      for (let q = 0; q < 4; q++) {
        const rows = randomQuery(random, lists.length);
        const all = exhaustive(lists, rows);
        for (const k of [1, 10]) {
          const search = new WindowTopK(onDemand(index));
          assert.deepEqual(search.top(rows, k), all.slice(0, k), `round ${round}, rows ${rows.join(" ")}, k = ${k}`);
        }
      }
    }
  });

  it("adds a term repeated in the query once per occurrence, in query order, as float32", () => {
    // 0.1 + 0.2 + 0.1 in float32 differs from 0.1·2 + 0.2: the exact sum follows the query's order.
    const lists: Array<Array<[number, number]>> = [
      [
        [3, 0.1],
        [5, 0.3],
      ],
      [
        [3, 0.2],
        [4, 0.35],
      ],
    ];
    const search = new WindowTopK(fromArrays(arrays(lists, 1)));
    const f = Math.fround;
    const sum = f(f(f(0.1) + f(0.2)) + f(0.1));
    assert.deepEqual(search.top([0, 1, 0], 3), [
      { doc: 5, score: f(f(f(0.3) + 0) + f(0.3)) },
      { doc: 3, score: sum },
      { doc: 4, score: f(0.35) },
    ]);
    assert.deepEqual(search.top([1, 0, 0], 1), [{ doc: 5, score: f(f(0 + f(0.3)) + f(0.3)) }]);
  });

  it("returns every matching document when k exceeds them, and nothing for a query without postings", () => {
    const search = new WindowTopK(fromArrays(arrays([[[70, 2]], [[1, 1]], []], 2)));
    assert.deepEqual(search.top([0, 1], 5), [
      { doc: 70, score: 2 },
      { doc: 1, score: 1 },
    ]);
    assert.deepEqual(search.top([2], 3), []);
    assert.deepEqual(search.top([], 3), []);
  });

  it("gives no exact score to a document that cannot reach the k-th best, even in a window whose bound can", () => {
    // Window 0 holds the best document (4 + 4). Windows 1–20 each hold two documents of 4, one per
    // term: their window bound, 8, reaches the best score, but no document of theirs does. The
    // windows with the highest bounds (k + 8 of them: 0–8) are scored first; in windows 9–20 the
    // first term cannot reach 8 alone, so only documents of the second are looked at, and each is
    // dropped once the first term's list shows no posting of it.
    const windows = 21;
    const a: List = [[0, 4]];
    const b: List = [[0, 4]];
    for (let w = 1; w < windows; w++) {
      a.push([w * SIZE + 1, 4]);
      b.push([w * SIZE + 2, 4]);
    }
    const index = withWindows([a, b], windows * SIZE);
    assert.equal(index.windowedRows.length, 2, "both lists have window rows");
    const search = new WindowTopK(fromArrays(index));
    assert.deepEqual(search.top([0, 1], 1), [{ doc: 0, score: 8 }]);
    assert.equal(search.scored, 1 + 2 * 8, "the seeded windows' documents only");
    // Short lists (exact window bounds) prune the same way.
    const short = new WindowTopK(fromArrays(arrays([a, b], windows + 1)));
    assert.deepEqual(short.top([0, 1], 1), [{ doc: 0, score: 8 }]);
    assert.equal(short.scored, 1 + 2 * 8);
  });

  it("bounds a window by the sum of every long term's stored maximum, for 1 to 6 long terms", () => {
    // Every term: document 0 scores 4, one document of each other window scores 1. Window 0's bound
    // is 4 per term, every other window's 1 per term: once window 0 is scored, no other window can
    // reach it, so only the seeded windows (k + 8 of them) are scored.
    const windows = 40;
    const list: List = [[0, 4]];
    for (let w = 1; w < windows; w++) list.push([w * SIZE + 5, 1]);
    const lists = Array.from({ length: 6 }, () => list);
    const search = new WindowTopK(fromArrays(withWindows(lists, windows * SIZE)));
    for (let terms = 1; terms <= 6; terms++) {
      const rows = Array.from({ length: terms }, (_, i) => i);
      assert.deepEqual(search.top(rows, 1), [{ doc: 0, score: 4 * terms }], `${terms} terms`);
      assert.equal(search.scored, 9, `${terms} terms`);
    }
  });

  it("pruned top-k equals exhaustive scoring on queries of many long terms", () => {
    const random = mulberry32(23);
    for (let round = 0; round < 4; round++) {
      const documents = 64 * (17 + Math.floor(random() * 20));
      const lists = Array.from({ length: 7 }, (): List => {
        const list: List = [];
        const density = 0.05 + random() * 0.3;
        for (let d = 0; d < documents; d++) if (random() < density) list.push([d, Math.fround(0.01 + random() * 4)]);
        return list;
      });
      const search = new WindowTopK(fromArrays(withWindows(lists, documents)));
      for (let q = 0; q < 4; q++) {
        const rows = Array.from({ length: 4 + Math.floor(random() * 4) }, () => Math.floor(random() * lists.length));
        const all = exhaustive(lists, rows);
        for (const k of [1, 10])
          assert.deepEqual(search.top(rows, k), all.slice(0, k), `round ${round}, rows ${rows.join(" ")}, k = ${k}`);
      }
    }
  });

  it("pruned top-k equals exhaustive scoring at any scale of the scores, a term's largest above 255 included", () => {
    // A stored byte is a fraction of the term's largest contribution: its bound must scale with it,
    // whether that is far below 1 or far above 255.
    const random = mulberry32(41);
    for (const scale of [1 / 64, 1000]) {
      for (let round = 0; round < 3; round++) {
        const documents = 64 * (17 + Math.floor(random() * 20));
        const lists = Array.from({ length: 7 }, (): List => {
          const list: List = [];
          const density = 0.05 + random() * 0.3;
          for (let d = 0; d < documents; d++)
            if (random() < density) list.push([d, Math.fround((0.01 + random() * 4) * scale)]);
          return list;
        });
        const search = new WindowTopK(fromArrays(withWindows(lists, documents)));
        for (let terms = 1; terms <= 7; terms++) {
          const rows = Array.from({ length: terms }, () => Math.floor(random() * lists.length));
          const all = exhaustive(lists, rows);
          for (const k of [1, 10])
            assert.deepEqual(search.top(rows, k), all.slice(0, k), `scale ${scale}, rows ${rows.join(" ")}, k = ${k}`);
        }
      }
    }
  });

  it("pruned top-k equals exhaustive scoring where short lists span more windows than the seeds cover", () => {
    // 120 windows (8 sweep blocks); each list has fewer postings than windows (no window rows), so
    // most of their windows are reached by the sweep, not the seeds.
    const random = mulberry32(31);
    for (let round = 0; round < 6; round++) {
      const documents = 64 * 120;
      const lists = Array.from({ length: 5 }, (): List => {
        const list: List = [];
        const density = 0.004 + random() * 0.01;
        for (let d = 0; d < documents; d++)
          if (random() < density)
            list.push([d, Math.fround(random() < 0.5 ? 1 + Math.floor(random() * 3) : random() * 4)]);
        return list;
      });
      const index = withWindows(lists, documents);
      assert.equal(index.windowedRows.length, 0);
      const search = new WindowTopK(fromArrays(index));
      for (let q = 0; q < 4; q++) {
        const rows = randomQuery(random, lists.length);
        const all = exhaustive(lists, rows);
        for (const k of [1, 5])
          assert.deepEqual(search.top(rows, k), all.slice(0, k), `round ${round}, rows ${rows.join(" ")}, k = ${k}`);
      }
    }
  });

  it("gallop finds the first position at or past a target; windowSlot finds a windowed row or -1", () => {
    const docs = Uint32Array.from([1, 3, 3, 8, 9, 20, 21, 22, 40]);
    for (let from = 0; from <= docs.length; from++)
      for (let end = from; end <= docs.length; end++)
        for (let target = 0; target <= 42; target++) {
          let want = from;
          while (want < end && docs[want] < target) want++;
          assert.equal(gallop(docs, from, end, target), want, `from ${from}, end ${end}, target ${target}`);
        }
    const rows = Uint32Array.from([2, 5, 9, 14, 30]);
    for (let row = 0; row < 32; row++) assert.equal(windowSlot(rows, row), rows.indexOf(row), `row ${row}`);
    assert.equal(windowSlot(new Uint32Array(0), 0), -1);
  });
});

/**
 * fromArrays, except that long lists' postings read as zeros until ensure() asked for them (their
 * scores alone: ensureScores()), every window-start row until ensureWindows() did (it gives each
 * long list's entries [from, to)), and a long list's bits until ensureBits() asked for their window.
 */
function onDemand(a: PostingArrays): PostingSource {
  const inner = fromArrays(a);
  return {
    windows: inner.windows,
    termMax: (row) => inner.termMax(row),
    load(rows) {
      const s = inner.load(rows);
      const docs = a.docs.slice();
      const scores = a.scores.slice();
      for (let i = 0; i < rows.length; i++) {
        if (s.at[i] < 0) continue;
        docs.fill(0, s.start[i], s.end[i]);
        scores.fill(0, s.start[i], s.end[i]);
      }
      const windowStart = new Uint32Array(a.windowStart.length);
      const bits = new Uint32Array(s.bits.length);
      return {
        ...s,
        docs,
        scores,
        windowStart,
        bits,
        ensure(from, to) {
          docs.set(a.docs.subarray(from, to), from);
          scores.set(a.scores.subarray(from, to), from);
        },
        ensureScores(from, to) {
          scores.set(a.scores.subarray(from, to), from);
        },
        ensureBits(i, w) {
          const b = s.bitAt[i] + 2 * w;
          bits.set(s.bits.subarray(b, b + 2), b);
        },
        ensureWindows(from, to) {
          for (let i = 0; i < rows.length; i++) {
            if (s.at[i] < 0) continue;
            const lo = s.at[i] + Math.max(from, 0);
            const hi = s.at[i] + Math.min(to, a.windows + 1);
            windowStart.set(a.windowStart.subarray(lo, hi), lo);
          }
        },
      };
    },
  };
}

/**
 * fromArrays, recording the windows of each vocabulary row whose postings ensure() was asked for,
 * and the window-start entries ensureWindows() was asked for (short lists are read whole: not
 * recorded).
 */
function recording(a: PostingArrays): PostingSource & {
  postingWindows(row: number): number[];
  startEntries(): number[];
} {
  const inner = fromArrays(a);
  const windowsOf = new Map<number, Set<number>>();
  const starts = new Set<number>();
  const sorted = (set: Iterable<number>) => [...set].sort((x, y) => x - y);
  return {
    windows: inner.windows,
    termMax: (row) => inner.termMax(row),
    load(rows) {
      const s = inner.load(rows);
      const record = (from: number, to: number) => {
        for (let p = from; p < to; p++) {
          const row = rows.find((_, i) => s.start[i] <= p && p < s.end[i]);
          if (row === undefined) throw new Error(`posting ${p} of no query term ensured`);
          const seen = windowsOf.get(row) ?? new Set<number>();
          seen.add(a.docs[p] >>> WINDOW_SHIFT);
          windowsOf.set(row, seen);
        }
      };
      return {
        ...s,
        ensure: record,
        ensureScores: record,
        ensureWindows(from, to) {
          for (let w = from; w < to; w++) starts.add(w);
        },
      };
    },
    postingWindows: (row) => sorted(windowsOf.get(row) ?? []),
    startEntries: () => sorted(starts),
  };
}
