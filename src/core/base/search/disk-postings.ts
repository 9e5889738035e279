/**
 * The search's PostingSource over the index files (window-top-k.ts). Per query, short lists (fewer
 * postings than windows) are copied whole into reused scratch arrays (their window bounds take a
 * pass over all of them anyway) and the long lists' window maxima are copied whole (the bounds pass
 * reads every one); their window starts are copied a piece at a time, as the search reaches them.
 * The long lists' postings are read where they lie, in the page cache's pages, by the search's
 * four long-list operations (addRun, addWindow, seek, scoreOf), so the postings of the windows
 * pruning skips are never read from disk, and what is read is never copied into memory the
 * process has not touched before: on the machine measured, each fresh 4 KiB page of memory cost a
 * ~12 µs fault the first time it was written, and a query that copied its long lists' chunks into
 * a scratch laid out over the lists' whole lengths touched a fresh page for most probes.
 */
import type { PagedFile } from "./paged-file";
import { addPostings, addToWindow, gallop, windowSlot, type PostingSource, type TermSlices } from "./window-top-k";

/** Window starts per piece of a long list's row read on demand (4 KiB, on the file's 4 KiB boundaries). */
const STARTS_SHIFT = 10;
const STARTS = 1 << STARTS_SHIFT;

export interface PostingFiles {
  postingOffsets: PagedFile;
  postingDocs: PagedFile;
  postingScores: PagedFile;
  termMax: PagedFile;
  windowMax: PagedFile;
  windowStart: PagedFile;
}

export class DiskPostings implements PostingSource {
  private readonly slices: DiskSlices;
  /** Once the list files are resident (PagedFile.fill): slices that are the files themselves. */
  private inMemory: MemorySlices | undefined;

  constructor(
    private readonly files: PostingFiles,
    /** window-rows.u32, read whole at open. */
    private readonly windowRows: Uint32Array,
    readonly windows: number,
  ) {
    this.slices = new DiskSlices(files);
  }

  termMax(row: number): number {
    return this.files.termMax.f32(row);
  }

  /** The postings of vocabulary row `row` (first, end), in the files' positions. */
  range(row: number): { from: number; to: number } {
    return { from: this.files.postingOffsets.u32(row), to: this.files.postingOffsets.u32(row + 1) };
  }

  load(rows: readonly number[]): TermSlices {
    let memory = this.inMemory;
    // Looked for until the files are resident, and given up once they are not (a closed searcher).
    if (memory === undefined || this.files.postingDocs.resident === undefined)
      memory = this.inMemory = MemorySlices.of(this.files);
    return memory !== undefined ? memory.load(rows, this) : this.slices.load(rows, this);
  }

  /** Row of window-max.u8 for a vocabulary row, or -1. */
  slotOf(row: number): number {
    return windowSlot(this.windowRows, row);
  }
}

/**
 * A query's slices when the four list files are resident: the lists are searched where they lie
 * (positions are file positions, as window-start.u32 holds them), nothing is copied and
 * ensureWindows has nothing to do — the in-memory search of index format 4.
 */
class MemorySlices implements TermSlices {
  start = new Int32Array(0);
  end = new Int32Array(0);
  base = new Int32Array(0);
  at = new Int32Array(0);

  private constructor(
    readonly docs: Uint32Array,
    readonly scores: Float32Array,
    readonly windowMax: Uint8Array,
    readonly windowStart: Uint32Array,
  ) {}

  /** The slices over the resident files, or undefined while one of them is not (yet) resident. */
  static of(files: PostingFiles): MemorySlices | undefined {
    const docs = files.postingDocs.resident;
    const scores = files.postingScores.resident;
    const windowMax = files.windowMax.resident;
    const windowStart = files.windowStart.resident;
    // Positions must fit the Int32Array slices (a resident file is within the cache's budget: always here).
    if (!docs || !scores || !windowMax || !windowStart || docs.length >= 2 ** 33) return undefined;
    return new MemorySlices(
      new Uint32Array(docs.buffer, docs.byteOffset, docs.length / 4),
      new Float32Array(scores.buffer, scores.byteOffset, scores.length / 4),
      windowMax,
      new Uint32Array(windowStart.buffer, windowStart.byteOffset, windowStart.length / 4),
    );
  }

  load(rows: readonly number[], postings: DiskPostings): TermSlices {
    const T = rows.length;
    const W = postings.windows;
    if (this.start.length !== T) {
      this.start = new Int32Array(T);
      this.end = new Int32Array(T);
      this.base = new Int32Array(T);
      this.at = new Int32Array(T);
    }
    for (let i = 0; i < T; i++) {
      const { from, to } = postings.range(rows[i]);
      const slot = postings.slotOf(rows[i]);
      this.start[i] = from;
      this.end[i] = to;
      this.base[i] = slot < 0 ? -1 : slot * W;
      this.at[i] = slot < 0 ? -1 : slot * (W + 1);
    }
    return this;
  }

  addRun(from: number, to: number, first: number, x: number, blockSum: Float64Array, blockHas: Int32Array): void {
    addPostings(this.docs, this.scores, from, to, first, x, blockSum, blockHas);
  }

  addWindow(from: number, to: number, local: Float32Array): void {
    addToWindow(this.docs, this.scores, from, to, local);
  }

  seek(from: number, to: number, d: number): number {
    return gallop(this.docs, from, to, d);
  }

  scoreOf(p: number, to: number, d: number): number {
    return p < to && this.docs[p] === d ? this.scores[p] : 0;
  }

  ensureWindows(): void {
    // Every window start is in memory already.
  }
}

/**
 * One query's slices; reused (and its arrays grown) query after query. Short lists lie one after
 * another in the scratch; a long list's positions are its file positions (window-start.u32's
 * values), read through the pages.
 */
class DiskSlices implements TermSlices {
  docs = new Uint32Array(1024);
  scores = new Float32Array(1024);
  windowMax = new Uint8Array(0);
  windowStart = new Uint32Array(0);
  start = new Int32Array(0);
  end = new Int32Array(0);
  base = new Int32Array(0);
  at = new Int32Array(0);
  /** A page's worth of scores, copied before the page of doc numbers is read (a tiny cache may evict one for the other). */
  private pageScores = new Float32Array(0);
  private windows = 0;
  /** The long lists of the query: their window-start.u32 row and scratch row. */
  private readonly longRows: { slot: number; at: number }[] = [];
  /** Flags per long list (long list · startChunks + the row's chunk): 1 once those window starts are read. */
  private startChunks = 0;
  private startLoaded = new Uint8Array(0);

  constructor(private readonly files: PostingFiles) {}

  load(rows: readonly number[], postings: DiskPostings): TermSlices {
    const T = rows.length;
    const W = postings.windows;
    this.windows = W;
    // A row of W + 1 starts lies on at most this many pages of window-start.u32.
    this.startChunks = Math.ceil((W + 1) / STARTS) + 1;
    this.longRows.length = 0;
    const ranges = rows.map((row) => postings.range(row));
    const slots = rows.map((row) => postings.slotOf(row));
    this.start = new Int32Array(T);
    this.end = new Int32Array(T);
    this.base = new Int32Array(T);
    this.at = new Int32Array(T);
    let short = 0;
    let long = 0;
    for (let i = 0; i < T; i++) {
      const { from, to } = ranges[i];
      if (slots[i] >= 0) {
        this.start[i] = from;
        this.end[i] = to;
        this.base[i] = long * W;
        this.at[i] = long * (W + 1);
        long++;
      } else {
        this.start[i] = short;
        this.end[i] = short + (to - from);
        this.base[i] = this.at[i] = -1;
        short += to - from;
      }
    }
    this.reserve(short, long, W);
    for (let i = 0; i < T; i++) {
      if (slots[i] < 0) {
        const { from, to } = ranges[i];
        const at = this.start[i];
        this.files.postingDocs.copy(4 * from, 4 * to, new Uint8Array(this.docs.buffer, 4 * at, 4 * (to - from)), 0);
        this.files.postingScores.copy(4 * from, 4 * to, new Uint8Array(this.scores.buffer, 4 * at, 4 * (to - from)), 0);
        continue;
      }
      this.files.windowMax.copy(slots[i] * W, (slots[i] + 1) * W, this.windowMax, this.base[i]);
      this.longRows.push({ slot: slots[i], at: this.at[i] });
    }
    this.startLoaded.fill(0, 0, this.longRows.length * this.startChunks);
    return this;
  }

  /**
   * Window starts [from, to) of every long list, read the first time the search reaches them, a page
   * of window-start.u32 at a time (consecutive unread pages of a row together).
   */
  ensureWindows(from: number, to: number): void {
    const W1 = this.windows + 1;
    for (let l = 0; l < this.longRows.length; l++) {
      const { slot, at } = this.longRows[l];
      const row = slot * W1; // the row's first entry in the file
      const page0 = Math.floor(row / STARTS);
      const flags = l * this.startChunks - page0;
      for (let k = Math.floor((row + from) / STARTS), last = Math.floor((row + to - 1) / STARTS); k <= last; k++) {
        if (this.startLoaded[flags + k] === 1) continue;
        let next = k + 1;
        while (next <= last && this.startLoaded[flags + next] === 0) next++;
        const a = Math.max(k * STARTS, row) - row; // entries [a, b) of the row
        const b = Math.min(next * STARTS, row + W1) - row;
        const bytes = new Uint8Array(this.windowStart.buffer, 4 * (at + a), 4 * (b - a));
        this.files.windowStart.copy(4 * (row + a), 4 * (row + b), bytes, 0);
        this.startLoaded.fill(1, flags + k, flags + next);
        k = next - 1;
      }
    }
  }

  addRun(from: number, to: number, first: number, x: number, blockSum: Float64Array, blockHas: Int32Array): void {
    for (let p = from; p < to;) {
      const scores = this.scoresAt(p, to);
      const docs = this.files.postingDocs.entries(p, to);
      addPostings(docs.page.words!, scores, docs.at, docs.at + docs.count, first, x, blockSum, blockHas);
      p += docs.count;
    }
  }

  addWindow(from: number, to: number, local: Float32Array): void {
    for (let p = from; p < to;) {
      const scores = this.scoresAt(p, to);
      const docs = this.files.postingDocs.entries(p, to);
      addToWindow(docs.page.words!, scores, docs.at, docs.at + docs.count, local);
      p += docs.count;
    }
  }

  seek(from: number, to: number, d: number): number {
    for (let p = from; p < to;) {
      const { page, at, count } = this.files.postingDocs.entries(p, to);
      const words = page.words!;
      if (words[at + count - 1] >= d) return p + gallop(words, at, at + count, d) - at;
      p += count;
    }
    return to;
  }

  scoreOf(p: number, to: number, d: number): number {
    return p < to && this.files.postingDocs.u32(p) === d ? this.files.postingScores.f32(p) : 0;
  }

  /**
   * The scores of positions [p, to) that lie in one page, copied out of it to the same indexes as
   * in the page (the doc numbers' page has the same layout).
   */
  private scoresAt(p: number, to: number): Float32Array {
    const { page, at, count } = this.files.postingScores.entries(p, to);
    const floats = page.floats!;
    if (this.pageScores.length < floats.length) this.pageScores = new Float32Array(floats.length);
    this.pageScores.set(floats.subarray(at, at + count), at);
    return this.pageScores;
  }

  private reserve(postings: number, long: number, W: number): void {
    if (this.docs.length < postings) {
      const n = Math.max(postings, 2 * this.docs.length);
      this.docs = new Uint32Array(n);
      this.scores = new Float32Array(n);
    }
    if (this.windowMax.length < long * W) this.windowMax = new Uint8Array(long * W);
    if (this.windowStart.length < long * (W + 1)) this.windowStart = new Uint32Array(long * (W + 1));
    const flags = long * this.startChunks;
    if (this.startLoaded.length < flags) this.startLoaded = new Uint8Array(flags);
  }
}
