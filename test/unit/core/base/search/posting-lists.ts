/**
 * Posting lists for the search's tests: random lists of every density (long ones with the window rows
 * the builder writes), and the exhaustive scoring a pruned search must equal.
 */
import { WINDOW_SHIFT, setDocBits, windowCount, windowedRows } from "../../../../../src/core/base/search/bm25-format";
import type { PostingArrays, ScoredDoc } from "../../../../../src/core/base/search/window-top-k";

export type List = Array<[doc: number, score: number]>;

/** Lists of every density: some with a posting in most windows (long), some of a few postings. */
export function randomLists(random: () => number, documents: number, terms: number): List[] {
  const tied = [0.5, 1, 1.5, 2, 3];
  return Array.from({ length: terms }, () => {
    const density = [0.002, 0.01, 0.05, 0.2, 0.5][Math.floor(random() * 5)];
    const ties = random() < 0.5;
    const list: List = [];
    for (let d = 0; d < documents; d++)
      if (random() < density)
        list.push([d, Math.fround(ties ? tied[Math.floor(random() * tied.length)] : 0.01 + random() * 4)]);
    return list;
  });
}

/** 1–6 query words over the rows, repeats allowed. */
export function randomQuery(random: () => number, terms: number): number[] {
  return Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * terms));
}

/** The index arrays the builder writes for these lists: window rows for lists with one posting per window or more. */
export function withWindows(lists: List[], documents: number): PostingArrays {
  const base = arrays(lists, windowCount(documents));
  const W = base.windows;
  const rows = windowedRows(base.postingOffsets, documents);
  const windowMax = new Uint8Array(rows.length * W);
  const windowStart = new Uint32Array(rows.length * (W + 1));
  const windowBits = new Uint32Array(rows.length * 2 * W);
  rows.forEach((row, i) => {
    const from = base.postingOffsets[row];
    const to = base.postingOffsets[row + 1];
    setDocBits(windowBits, i * 2 * W, base.docs, from, to);
    const top = base.termMax[row];
    let p = from;
    for (let w = 0; w <= W; w++) {
      while (p < to && base.docs[p] >>> WINDOW_SHIFT < w) p++;
      windowStart[i * (W + 1) + w] = p;
    }
    for (let p = from; p < to; p++) {
      const w = base.docs[p] >>> WINDOW_SHIFT;
      const byte = Math.max(1, Math.min(255, Math.ceil((base.scores[p] / top) * 255)));
      windowMax[i * W + w] = Math.max(windowMax[i * W + w], byte);
    }
  });
  return { ...base, windowMax, windowedRows: rows, windowStart, windowBits };
}

/**
 * Every matching document scored: its float32 sum in query-word order (adding 0 for a missing
 * posting changes no float32 sum, so each list adds only its own), ranked by (score desc, doc asc).
 */
export function exhaustive(lists: List[], rows: number[]): ScoredDoc[] {
  const documents =
    1 + Math.max(-1, ...rows.flatMap((r) => (lists[r].length ? [lists[r][lists[r].length - 1][0]] : [])));
  const sum = new Float64Array(documents);
  const matched = new Uint8Array(documents);
  for (const r of rows)
    for (const [doc, score] of lists[r]) {
      sum[doc] = Math.fround(sum[doc] + score);
      matched[doc] = 1;
    }
  const scored: ScoredDoc[] = [];
  for (let doc = 0; doc < documents; doc++) if (matched[doc]) scored.push({ doc, score: sum[doc] });
  return scored.sort((x, y) => y.score - x.score || x.doc - y.doc);
}

/** Short posting lists only (no stored window rows): each list's window bounds are exact maxima. */
export function arrays(lists: List[], windows: number): PostingArrays {
  const postingOffsets = new Uint32Array(lists.length + 1);
  lists.forEach((l, i) => (postingOffsets[i + 1] = postingOffsets[i] + l.length));
  return {
    postingOffsets,
    docs: Uint32Array.from(lists.flat().map(([d]) => d)),
    scores: Float32Array.from(lists.flat().map(([, s]) => s)),
    termMax: Float32Array.from(lists, (l) => Math.max(0, ...l.map(([, s]) => s))),
    windowMax: new Uint8Array(0),
    windowedRows: new Uint32Array(0),
    windows,
    windowStart: new Uint32Array(0),
    windowBits: new Uint32Array(0),
  };
}
