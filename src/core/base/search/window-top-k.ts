/**
 * Top-k BM25 over the index's typed arrays, window at a time (block-max MaxScore, document at a
 * time). Documents are cut into windows of 2^WINDOW_SHIFT consecutive numbers (the windows
 * window-max.u8 bounds). Per query:
 *
 *  1. bound[w] := what the query terms can add to any document of window w at most (the stored
 *     byte maxima for long lists, the exact per-window maxima of one pass over each short list);
 *  2. the few windows with the highest bounds are scored first, so the k-th best score (`kth`)
 *     is high from the start (the same pass notes each block of BLOCK windows' highest bound);
 *  3. one sweep in document order, a block at a time, skips every block and window whose bound
 *     cannot reach kth. In the others, terms are split MaxScore-style (ascending upper bounds):
 *     the longest prefix whose upper bounds together stay below kth is non-essential, so only
 *     documents with a posting of an essential term can win. Each essential list adds its
 *     postings in the block's open windows into per-document partial sums (long lists jump to a
 *     window's first posting, read from window-start.u32, so their postings in skipped windows
 *     are never read); a document whose partial sum plus the non-essential terms' bounds in its
 *     window cannot reach kth is dropped, and the non-essential lists are only probed for the
 *     rest (a short list cursor forward; a long list by one bit of window-bits.u32, whose set bits
 *     below it give the posting: no search of its doc numbers, which cost a cache miss or a page
 *     read each, and the exact scores likewise).
 *
 * A document that survives gets its exact float32 sum in query-word order (repeats added again),
 * the way bm25s and searchExhaustive add them. No dense per-document accumulator to clear or
 * scan: 1,024-slot arrays per block. The result (ids, scores, ties by document number) equals
 * exhaustive scoring.
 *
 * The search reads a query's terms through a PostingSource: per-query slices of the lists and
 * window rows (disk-postings.ts reads them from the index files: short lists whole, long lists a
 * run of windows at a time, as the sweep reaches them, so their postings in skipped windows are
 * never read from disk either). `ensure(from, to)` is called before any posting of a long list is
 * read (`ensureScores` where only its score is), `ensureWindows` before any window start,
 * `ensureBits` before a long list's bits; a long list is only ever read inside the windows
 * window-start.u32 gives.
 */
import { WINDOW_SHIFT } from "./bm25-format";
import { FIRST_FREE_SLOT, queryTerms, Scratch } from "./query-terms";

/** A module-local copy: an imported binding is a property read per use under tsx/CommonJS, which shows in the hot loops. */
const SHIFT = WINDOW_SHIFT;
const SIZE = 1 << SHIFT;

/** Index arrays held in memory (tests write them by hand; fromArrays makes them a PostingSource). */
export interface PostingArrays {
  postingOffsets: Uint32Array;
  docs: Uint32Array;
  scores: Float32Array;
  termMax: Float32Array;
  /** One row of `windows` bytes per windowed term (see bm25-format.ts). */
  windowMax: Uint8Array;
  /** Ascending vocabulary rows that have a window row (the i-th has row i of windowMax). */
  windowedRows: Uint32Array;
  windows: number;
  /**
   * For the i-th windowed row, windows + 1 posting positions: row i · (windows + 1) + w is the
   * first posting of that term in window w or later. A search jumps straight to a window's
   * postings instead of searching the list for them (each probe of a search is a cache miss).
   */
  windowStart: Uint32Array;
  /** For the i-th windowed row, a bitmap of its documents: 2 · windows u32 from row i · 2 · windows (bm25-format.ts). */
  windowBits: Uint32Array;
}

/**
 * A query's distinct terms as the search reads them: docs[start[i], end[i]) and scores at the same
 * positions are term i's list, base[i] its row in windowMax (or -1: a short list, no stored row),
 * at[i] its row in windowStart (positions in docs, windows + 1 of them), bitAt[i] its row in bits
 * (the list's documents as bits, 2 · windows words: a probe tests one, and the posting of a set bit
 * is its window's start plus the bits set below it there). The arrays may be shared scratch: valid
 * until the next load().
 */
export interface TermSlices {
  docs: Uint32Array;
  scores: Float32Array;
  windowMax: Uint8Array;
  windowStart: Uint32Array;
  bits: Uint32Array;
  start: Int32Array;
  end: Int32Array;
  base: Int32Array;
  at: Int32Array;
  bitAt: Int32Array;
  /** Makes docs and scores [from, to) readable (long lists are read from disk on demand). */
  ensure(from: number, to: number): void;
  /** Makes scores [from, to) readable: a probe reads a posting's score only where d's bit is set. */
  ensureScores(from: number, to: number): void;
  /** Makes entries [from, to) of every long list's windowStart row readable (read on demand too). */
  ensureWindows(from: number, to: number): void;
  /** Makes window w of term i's bits readable (i a long list). */
  ensureBits(i: number, w: number): void;
}

/** Where the search gets its terms from: the index files, or arrays in memory. */
export interface PostingSource {
  readonly windows: number;
  /** The largest contribution of a vocabulary row's postings. */
  termMax(row: number): number;
  /** The slices of these vocabulary rows, in this order. */
  load(rows: readonly number[]): TermSlices;
}

/** A PostingSource over arrays in memory: nothing to read, ensure() does nothing. */
export function fromArrays(a: PostingArrays): PostingSource {
  const W = a.windows;
  const ensure = (): void => undefined;
  return {
    windows: W,
    termMax: (row) => a.termMax[row],
    load(rows) {
      const slots = rows.map((row) => windowSlot(a.windowedRows, row));
      return {
        docs: a.docs,
        scores: a.scores,
        windowMax: a.windowMax,
        windowStart: a.windowStart,
        bits: a.windowBits,
        start: Int32Array.from(rows, (row) => a.postingOffsets[row]),
        end: Int32Array.from(rows, (row) => a.postingOffsets[row + 1]),
        base: Int32Array.from(slots, (slot) => (slot < 0 ? -1 : slot * W)),
        at: Int32Array.from(slots, (slot) => (slot < 0 ? -1 : slot * (W + 1))),
        bitAt: Int32Array.from(slots, (slot) => (slot < 0 ? -1 : slot * 2 * W)),
        ensure,
        ensureScores: ensure,
        ensureWindows: ensure,
        ensureBits: ensure,
      };
    },
  };
}

export interface ScoredDoc {
  doc: number;
  score: number;
}

/** Windows per block of the sweep (at most 32: a block's open windows are one 32-bit mask). */
const BLOCK = 16;

/** Where a search of W windows splits in two (search-helper.ts): the block boundary nearest the middle. */
export function middleWindow(W: number): number {
  return Math.round(W / 2 / BLOCK) * BLOCK;
}

/** Windows scored before the sweep (the highest bounds), beyond k itself. */
const SEED_EXTRA = 8;

/** The search's slots in its Scratch (query-terms.ts takes the ones below FIRST_FREE_SLOT). */
const BELOW = FIRST_FREE_SLOT;
const CURSOR = BELOW + 1;
const STORED = BELOW + 2;
const LO = BELOW + 3;
const HI = BELOW + 4;
const CONTRIB = BELOW + 5;

export class WindowTopK {
  /** Per-window upper bound of the query's score (reused across queries: no per-query allocation of W floats). */
  private readonly bound: Float64Array;
  /** Exact float32 sums of the window being scored, indexed by document number mod window size. */
  private readonly local = new Float32Array(SIZE);
  /** Partial float64 sums of the essential terms in the block being swept, per document of the block. */
  private readonly blockSum = new Float64Array(BLOCK * SIZE);
  /** The highest window bound of each block (seeded windows included: still an upper bound). */
  private readonly blockMax: Float64Array;
  /** Which documents of the block have a partial sum: one bit each. */
  private readonly blockHas = new Int32Array((BLOCK * SIZE) / 32);

  private readonly best = new TopK();
  /** The query's own arrays (query-terms.ts): reused, so a query allocates next to nothing. */
  private readonly scratch = new Scratch();
  /** Documents the last query gave an exact score: what pruning left of the matching ones (tests read it). */
  scored = 0;

  constructor(private readonly source: PostingSource) {
    this.bound = new Float64Array(source.windows);
    this.blockMax = new Float64Array(Math.ceil(source.windows / BLOCK));
  }

  /**
   * The best k documents for these vocabulary rows (query order, repeats kept) by (score desc, doc
   * asc), of the documents in windows [from, to) (from on a block boundary; by default all): the
   * top k of two ranges that meet, merged, is the top k of both (search-helper.ts).
   */
  top(rows: readonly number[], k: number, from = 0, to = this.source.windows): ScoredDoc[] {
    const W = Math.min(to, this.source.windows); // the sweep's end: windows [from, W)
    const bound = this.bound;
    const scratch = this.scratch;
    // In a function of its own: its closures would otherwise keep top()'s variables in a heap
    // context, which slowed the loops here that read them (measured: the sweep's window test 2×).
    const { T, rowTerm, weight, upper, unit, slices } = queryTerms(this.source, rows, scratch);
    const { docs, scores, windowMax, windowStart, bits, start, end, base, at, bitAt } = slices;
    /** below[i]: the sum of the upper bounds of terms[0, i). */
    const below = scratch.f64(BELOW, T + 1);
    for (let i = 0; i < T; i++) below[i + 1] = below[i] + upper[i];
    const cursor = scratch.i32(CURSOR, T);
    cursor.set(start);

    // 1. Window bounds.
    bound.fill(0, from, W);
    const stored = scratch.i32(STORED, T);
    let storedCount = 0;
    for (let i = 0; i < T; i++) {
      if (base[i] >= 0) stored[storedCount++] = i;
      else {
        // A short list's postings in the range (all of them unless the search is split).
        const first = from === 0 ? start[i] : gallop(docs, start[i], end[i], from << SHIFT);
        const last = W === this.source.windows ? end[i] : gallop(docs, first, end[i], W << SHIFT);
        addListBounds(bound, docs, scores, first, last, weight[i]);
      }
    }
    addStoredBounds(bound, windowMax, from, W, stored, storedCount, base, unit);

    // A bound is compared with the k-th best score after growing it by the most that float32
    // rounding of the sum can add (one half-ulp per addition) plus a margin for the bound's own
    // float64 arithmetic. Equal may still win on document number, so equal is not pruned.
    const grow = 1 + (rows.length + 4) * 2 ** -23;
    const best = this.best;
    best.reset(k);
    const local = this.local;

    let kth = 0;
    let scored = 0;

    // 2. Seed: the windows with the highest bounds, every document scored exactly, then marked
    // -1: done.
    const lo = scratch.i32(LO, T);
    const hi = scratch.i32(HI, T); // in ascending window order each list's search starts where the last ended
    hi.set(start);
    const blockMax = this.blockMax;
    for (const w of highestWindows(bound, k + SEED_EXTRA, blockMax, from, W)) {
      const first = w << SHIFT;
      slices.ensureWindows(w, w + 2);
      for (let i = 0; i < T; i++) {
        if (at[i] >= 0) {
          lo[i] = windowStart[at[i] + w];
          hi[i] = windowStart[at[i] + w + 1];
          slices.ensure(lo[i], hi[i]);
        } else {
          let p = (lo[i] = gallop(docs, hi[i], end[i], first));
          while (p < end[i] && docs[p] < first + SIZE) p++;
          hi[i] = p;
        }
      }
      for (let r = 0; r < rowTerm.length; r++) {
        const i = rowTerm[r];
        for (let p = lo[i], e = hi[i]; p < e; p++) local[docs[p] & (SIZE - 1)] += scores[p];
      }
      for (let j = 0; j < SIZE; j++) {
        const s = local[j];
        if (s !== 0) {
          local[j] = 0;
          scored++;
          kth = best.offer(first + j, s);
        }
      }
      bound[w] = -1;
    }

    // 3. Sweep in document order, a block of BLOCK windows at a time. terms[0, e) are
    // non-essential: together they cannot reach the k-th best, so a document needs a posting of an
    // essential term. In each block, every essential list adds its postings in the windows whose
    // bounds can still reach kth into one partial sum per document (list by list: a list's
    // postings in a block lie together, so the reads stream instead of switching between lists at
    // every window); their cursors jump over the rest. Then, window by window, a document whose
    // partial sum plus the non-essential terms' window bounds cannot reach kth is dropped, and the
    // non-essential lists are only looked up, cursor forward, for the others. e and the windows
    // taken are fixed at the block's start: kth only grows, so that is never too few.
    const contrib = scratch.f64(CONTRIB, T);
    const blockSum = this.blockSum;
    const blockHas = this.blockHas;
    let e = 0;
    for (let w0 = from, block = (from / BLOCK) | 0; w0 < W; w0 += BLOCK, block++) {
      if (blockMax[block] * grow < kth) continue;
      const wEnd = Math.min(w0 + BLOCK, W);
      let open = 0; // bit j: window w0 + j can still hold a winner
      const need = kth; // kth as the block starts (a const the loop can keep in a register)
      for (let w = w0; w < wEnd; w++) {
        const b = bound[w];
        open |= ((b > 0 ? 1 : 0) & (b * grow >= need ? 1 : 0)) << (w - w0); // selects, not branches (see highestWindows)
      }
      if (open === 0) continue;
      // Every window start of the block (and the one after it) the sweep, the probes and the exact
      // scores below may read.
      slices.ensureWindows(w0, wEnd + 1);
      while (e < T && below[e + 1] * grow < kth) e++;
      const first = w0 << SHIFT;
      const limit = wEnd << SHIFT;
      for (let i = e; i < T; i++) {
        const x = weight[i];
        if (at[i] >= 0) {
          // A long list: straight to the postings of each run of consecutive open windows.
          for (let m = open; m !== 0;) {
            const j = 31 - Math.clz32(m & -m);
            const from = m >>> j;
            const run = 31 - Math.clz32(~from & (from + 1)); // consecutive open windows from j
            m &= ~(((1 << run) - 1) << j);
            const ps = windowStart[at[i] + w0 + j];
            const pe = windowStart[at[i] + w0 + j + run];
            slices.ensure(ps, pe);
            for (let p = ps; p < pe; p++) {
              const o = docs[p] - first;
              blockHas[o >>> 5] |= 1 << (o & 31);
              blockSum[o] += x * scores[p];
            }
          }
          continue;
        }
        let p = cursor[i];
        const pe = end[i];
        if (p < pe && docs[p] < first) p = gallop(docs, p, pe, first);
        for (; p < pe; p++) {
          const d = docs[p];
          if (d >= limit) break;
          const o = d - first;
          if (((open >>> (o >>> SHIFT)) & 1) === 0) continue;
          blockHas[o >>> 5] |= 1 << (o & 31);
          blockSum[o] += x * scores[p];
        }
        cursor[i] = p;
      }
      for (let m = open; m !== 0; m &= m - 1) {
        const j = 31 - Math.clz32(m & -m);
        const w = w0 + j;
        if ((blockHas[2 * j] | blockHas[2 * j + 1]) === 0) continue;
        let rest = 0; // what the non-essential terms can add in this window
        for (let i = 0; i < e; i++) rest += base[i] >= 0 ? windowMax[base[i] + w] * unit[i] : upper[i];
        for (let half = 0; half < 2; half++) {
          const word = 2 * j + half;
          let has = blockHas[word];
          blockHas[word] = 0;
          for (; has !== 0; has &= has - 1) {
            const o = 32 * word + 31 - Math.clz32(has & -has);
            let v = blockSum[o];
            blockSum[o] = 0;
            if ((v + rest) * grow < kth) continue;
            const d = first + o;
            let left = rest;
            let alive = true;
            for (let i = e - 1; i >= 0; i--) {
              // d's posting in list i, or -1 (one test of it for both kinds of list: a hit in a
              // short list is rare, and a site of its own had no type feedback when the first came,
              // which threw the optimised search away).
              let p: number;
              if (at[i] >= 0) {
                // A long list: d's bit in its window, read where d's window lies.
                left -= windowMax[base[i] + w] * unit[i];
                slices.ensureBits(i, w);
                p = postingOf(bits, bitAt[i], windowStart[at[i] + w], d);
              } else {
                left -= upper[i];
                p = cursor[i] = gallop(docs, cursor[i], end[i], d);
                if (p === end[i] || docs[p] !== d) p = -1;
              }
              if (p >= 0) {
                slices.ensureScores(p, p + 1);
                v += weight[i] * scores[p];
              }
              if ((v + Math.max(left, 0)) * grow < kth) {
                alive = false;
                break;
              }
            }
            if (alive) {
              scored++;
              kth = best.offer(d, exactScore(slices, rowTerm, contrib, d));
            }
          }
        }
      }
    }
    this.scored = scored;
    return best.sorted();
  }
}

/**
 * The best k (score desc, doc asc) seen so far; `kth` is the k-th best score once k are held, else 0.
 * One per searcher, reset per query. Every comparison runs on every offer, ties or not: a
 * comparison that first ran on a tie (rare) after V8 had optimised the search had no type
 * feedback, and V8 threw the whole optimised `top()` away for it, so the next hundred or so
 * queries ran unoptimised (measured: `top()` deoptimised twice in the bench's 1,000 queries).
 */
class TopK {
  kth = 0;
  private k = 0;
  private n = 0;
  private docs = new Int32Array(8);
  private scores = new Float64Array(8);

  reset(k: number): void {
    if (k > this.docs.length) {
      this.docs = new Int32Array(k);
      this.scores = new Float64Array(k);
    }
    this.k = k;
    this.n = 0;
    this.kth = 0;
  }

  /** Returns the k-th best score afterwards (0 while fewer than k). */
  offer(doc: number, score: number): number {
    const { docs, scores, k } = this;
    const n = this.n;
    if (n === k && !before(score, doc, scores[n - 1], docs[n - 1])) return this.kth;
    let at = n === k ? n - 1 : n;
    while (at > 0 && before(score, doc, scores[at - 1], docs[at - 1])) {
      docs[at] = docs[at - 1];
      scores[at] = scores[at - 1];
      at--;
    }
    docs[at] = doc;
    scores[at] = score;
    if (n < k) this.n = n + 1;
    if (this.n === k) this.kth = scores[k - 1];
    return this.kth;
  }

  sorted(): ScoredDoc[] {
    const out: ScoredDoc[] = [];
    for (let i = 0; i < this.n; i++) out.push({ doc: this.docs[i], score: this.scores[i] });
    return out;
  }
}

/** The best k of two top-k lists of different documents (two window ranges' searches), in the same order as TopK. */
export function mergeTop(a: ScoredDoc[], b: ScoredDoc[], k: number): ScoredDoc[] {
  const out: ScoredDoc[] = [];
  let i = 0;
  let j = 0;
  while (out.length < k && (i < a.length || j < b.length)) {
    const takeA = j === b.length || (i < a.length && before(a[i].score, a[i].doc, b[j].score, b[j].doc));
    out.push(takeA ? a[i++] : b[j++]);
  }
  return out;
}

/** Whether (score, doc) ranks before (s, d): a higher score, or the same score and a lower document number. Both comparisons always run (see TopK). */
function before(score: number, doc: number, s: number, d: number): boolean {
  return ((score > s ? 1 : 0) | ((score === s ? 1 : 0) & (doc < d ? 1 : 0))) === 1;
}

/** Exact float32 sum in query-word order (repeats added again) for document d. */
function exactScore(slices: TermSlices, rowTerm: Int32Array, contrib: Float64Array, d: number): number {
  const { docs, scores, windowStart, bits, start, end, at, bitAt } = slices;
  const w = d >>> SHIFT;
  for (let i = 0; i < start.length; i++) {
    let p: number;
    if (at[i] >= 0) {
      slices.ensureBits(i, w);
      p = postingOf(bits, bitAt[i], windowStart[at[i] + w], d);
      if (p >= 0) slices.ensureScores(p, p + 1);
    } else {
      p = gallop(docs, start[i], end[i], d);
      if (p === end[i] || docs[p] !== d) p = -1;
    }
    contrib[i] = p >= 0 ? scores[p] : 0;
  }
  let s = 0;
  for (let q = 0; q < rowTerm.length; q++) s = Math.fround(s + contrib[rowTerm[q]]);
  return s;
}

/** The position of document d's posting in a long list (bits row at `row`, d's window starting at `start`), or -1. */
function postingOf(bits: Uint32Array, row: number, start: number, d: number): number {
  const word = bits[row + (d >>> 5)];
  if (((word >>> (d & 31)) & 1) === 0) return -1;
  // Bits below d's: in its word, and the window's first word when d is in the second.
  return start + popcount(word & ((1 << (d & 31)) - 1)) + ((d & 32) !== 0 ? popcount(bits[row + (d >>> 5) - 1]) : 0);
}

/** Set bits of a 32-bit word. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * bound[w] += byte · unit for the stored rows of terms stored[0, count), four per pass where there are four
 * (a pass costs about the same for one row as for four). A function of its own: the first query
 * with four stored rows, after V8 had optimised the search, ran code with no type feedback yet,
 * and V8 threw away the whole optimised `top()` for it.
 */
function addStoredBounds(
  bound: Float64Array,
  windowMax: Uint8Array,
  from: number,
  W: number,
  stored: Int32Array,
  count: number,
  base: Int32Array,
  unit: Float64Array,
): void {
  let next = 0;
  for (; next + 4 <= count; next += 4) {
    const i0 = stored[next];
    const i1 = stored[next + 1];
    const i2 = stored[next + 2];
    const i3 = stored[next + 3];
    addStoredRows4(
      bound,
      windowMax,
      from,
      W,
      base[i0],
      unit[i0],
      base[i1],
      unit[i1],
      base[i2],
      unit[i2],
      base[i3],
      unit[i3],
    );
  }
  if (next + 2 <= count) {
    const i0 = stored[next];
    const i1 = stored[next + 1];
    addStoredRows2(bound, windowMax, from, W, base[i0], unit[i0], base[i1], unit[i1]);
    next += 2;
  }
  if (next < count) addStoredRow(bound, windowMax, from, W, base[stored[next]], unit[stored[next]]);
}

/**
 * bound[w] += byte · unit for four terms' stored window maxima at once: on this kind of machine a pass
 * over every window costs about as much for four rows as for one (the loop, not the arithmetic).
 * No branch: most bytes of a long list are non-zero.
 */
function addStoredRows4(
  bound: Float64Array,
  windowMax: Uint8Array,
  from: number,
  W: number,
  b0: number,
  u0: number,
  b1: number,
  u1: number,
  b2: number,
  u2: number,
  b3: number,
  u3: number,
): void {
  for (let w = from; w < W; w++)
    bound[w] += windowMax[b0 + w] * u0 + windowMax[b1 + w] * u1 + windowMax[b2 + w] * u2 + windowMax[b3 + w] * u3;
}

function addStoredRows2(
  bound: Float64Array,
  windowMax: Uint8Array,
  from: number,
  W: number,
  b0: number,
  u0: number,
  b1: number,
  u1: number,
): void {
  for (let w = from; w < W; w++) bound[w] += windowMax[b0 + w] * u0 + windowMax[b1 + w] * u1;
}

function addStoredRow(
  bound: Float64Array,
  windowMax: Uint8Array,
  from: number,
  W: number,
  b0: number,
  u0: number,
): void {
  for (let w = from; w < W; w++) bound[w] += windowMax[b0 + w] * u0;
}

/** bound[w] += weight · the largest score of a short list in window w (exact, one pass over the list). */
function addListBounds(
  bound: Float64Array,
  docs: Uint32Array,
  scores: Float32Array,
  start: number,
  end: number,
  weight: number,
): void {
  let w = -1;
  let max = 0;
  for (let p = start; p < end; p++) {
    const x = docs[p] >>> SHIFT;
    if (x !== w) {
      if (w >= 0) bound[w] += weight * max;
      w = x;
      max = 0;
    }
    const s = scores[p];
    max = s > max ? s : max; // a select, not a branch (see highestWindows)
  }
  if (w >= 0) bound[w] += weight * max;
}

/**
 * Up to m windows with the largest positive bounds (ties: the lower window first), in window
 * order, and each block's highest bound into blockMax: the sweep passes over a block with one
 * comparison where none of its windows can reach kth. The block maxima first (a branch-free
 * pass), then only the blocks whose maximum beats the m-th largest so far are looked into: after
 * the first few, almost none. The maxima as `v > top ? v : top`: V8 makes that a select, where
 * `Math.max` and an `if` branch, and mispredict on bounds in no order (measured alone on 7,930
 * bounds in random order: a pass 6.5 µs against 13 with Math.max).
 */
function highestWindows(bound: Float64Array, m: number, blockMax: Float64Array, from: number, W: number): number[] {
  for (let w0 = from, b = (from / BLOCK) | 0; w0 < W; w0 += BLOCK, b++) {
    let top = 0;
    for (let w = w0, wEnd = Math.min(w0 + BLOCK, W); w < wEnd; w++) {
      const v = bound[w];
      top = v > top ? v : top;
    }
    blockMax[b] = top;
  }
  const ws: number[] = [];
  const vs: number[] = [];
  let low = 0; // the m-th largest once there are m
  for (let b = (from / BLOCK) | 0, bEnd = Math.ceil(W / BLOCK); b < bEnd; b++) {
    if (blockMax[b] <= low) continue;
    for (let w = b * BLOCK, wEnd = Math.min(w + BLOCK, W); w < wEnd; w++) {
      const v = bound[w];
      if (v <= low) continue;
      let at = ws.length === m ? m - 1 : ws.length;
      while (at > 0 && vs[at - 1] < v) {
        ws[at] = ws[at - 1];
        vs[at] = vs[at - 1];
        at--;
      }
      ws[at] = w;
      vs[at] = v;
      if (ws.length === m) low = vs[m - 1];
    }
  }
  // In window order (an insertion sort: a comparator's sort allocates).
  for (let i = 1; i < ws.length; i++) {
    const w = ws[i];
    let at = i;
    for (; at > 0 && ws[at - 1] > w; at--) ws[at] = ws[at - 1];
    ws[at] = w;
  }
  return ws;
}

/** Row of windowMax for a vocabulary row, or -1 (binary search over the few windowed rows). */
export function windowSlot(rows: Uint32Array, row: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid] === row) return mid;
    if (rows[mid] < row) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** First position in docs[from, end) whose value is ≥ target (exponential then binary search). */
export function gallop(docs: Uint32Array, from: number, end: number, target: number): number {
  if (from >= end || docs[from] >= target) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < end && docs[hi] < target) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > end) hi = end;
  // docs[lo] < target; the answer is in (lo, hi]
  let a = lo + 1;
  let b = hi;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (docs[mid] < target) a = mid + 1;
    else b = mid;
  }
  return a;
}
