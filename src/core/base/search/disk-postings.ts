/**
 * The search's PostingSource over the index files (window-top-k.ts): for each query, the terms'
 * lists and window rows are copied out of the page cache into reused scratch arrays, so the
 * search's loops index plain typed arrays. Short lists (fewer postings than windows) are copied
 * whole: their window bounds take a pass over all of them anyway. Long lists are copied a chunk of
 * CHUNK postings at a time when the search first reads into it (ensure), so the postings of the
 * windows pruning skips are never read from disk; their window maxima are copied whole (the
 * bounds pass reads every one), their window starts a chunk at a time, as the sweep reaches them,
 * and their bits (window-bits.u32) a chunk at a time where a probe needs one.
 */
import type { PagedFile } from "./paged-file";
import { windowSlot, type PostingSource, type TermSlices } from "./window-top-k";

/**
 * Postings per chunk of a list read on demand (4 KiB of doc numbers: one CRC block). Chunks lie on
 * the files' block boundaries, so one never spans two pages or two blocks: a probe for a few
 * postings reads one page of each file and checks and copies one block of it.
 */
const CHUNK_SHIFT = 10;
const CHUNK = 1 << CHUNK_SHIFT;
/** Window starts per chunk of a long list's row read on demand (4 KiB, on the file's 4 KiB boundaries). */
const STARTS_SHIFT = 10;
const STARTS = 1 << STARTS_SHIFT;
/** Words of a long list's bits read on demand at a time (4 KiB: 512 windows, on the file's 4 KiB boundaries). */
const BITS_SHIFT = 10;
const BITS = 1 << BITS_SHIFT;

export interface PostingFiles {
  postingOffsets: PagedFile;
  postingDocs: PagedFile;
  postingScores: PagedFile;
  termMax: PagedFile;
  windowMax: PagedFile;
  windowStart: PagedFile;
  windowBits: PagedFile;
}

export class DiskPostings implements PostingSource {
  private readonly slices: DiskSlices;
  /** Once the list files are resident (PagedFile.fill) or mapped (PagedFile.map): slices that are the files themselves. */
  private inMemory: MemorySlices | MappedSlices | undefined;

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
    // Looked for until the files are resident or mapped, and given up once they are not (a closed searcher).
    if (memory === undefined || !inPlace(this.files.postingDocs))
      memory = this.inMemory = MemorySlices.of(this.files) ?? MappedSlices.of(this.files);
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
 * ensure/ensureWindows have nothing to do — the in-memory search of index format 4.
 */
class MemorySlices implements TermSlices {
  start = new Int32Array(0);
  end = new Int32Array(0);
  base = new Int32Array(0);
  at = new Int32Array(0);
  bitAt = new Int32Array(0);

  protected constructor(
    readonly docs: Uint32Array,
    readonly scores: Float32Array,
    readonly windowMax: Uint8Array,
    readonly windowStart: Uint32Array,
    readonly bits: Uint32Array,
  ) {}

  /** The slices over the resident files, or undefined while one of them is not (yet) resident. */
  static of(files: PostingFiles): MemorySlices | undefined {
    const views = listViews(files, (file) => file.resident !== undefined);
    return views && new MemorySlices(...views);
  }

  load(rows: readonly number[], postings: DiskPostings): TermSlices {
    const T = rows.length;
    const W = postings.windows;
    if (this.start.length !== T) {
      this.start = new Int32Array(T);
      this.end = new Int32Array(T);
      this.base = new Int32Array(T);
      this.at = new Int32Array(T);
      this.bitAt = new Int32Array(T);
    }
    for (let i = 0; i < T; i++) {
      const { from, to } = postings.range(rows[i]);
      const slot = postings.slotOf(rows[i]);
      this.start[i] = from;
      this.end[i] = to;
      this.base[i] = slot < 0 ? -1 : slot * W;
      this.at[i] = slot < 0 ? -1 : slot * (W + 1);
      this.bitAt[i] = slot < 0 ? -1 : slot * 2 * W;
    }
    return this;
  }

  ensure(_from: number, _to: number): void {
    // Every posting is in memory already.
  }

  ensureScores(_from: number, _to: number): void {
    // Every posting is in memory already.
  }

  ensureWindows(_from: number, _to: number): void {
    // Every window start is in memory already.
  }

  ensureBits(_i: number, _w: number): void {
    // Every bit is in memory already.
  }
}

/**
 * Typed views of the five list files where they lie (each resident or mapped), or undefined while
 * one is not `usable`, or where positions would not fit the Int32Array slices (a file past 2^33
 * bytes) or V8 would refuse a view (past 2^32 - 1 values).
 */
function listViews(
  files: PostingFiles,
  usable: (file: PagedFile) => boolean,
): [Uint32Array, Float32Array, Uint8Array, Uint32Array, Uint32Array] | undefined {
  const lists = [files.postingDocs, files.postingScores, files.windowMax, files.windowStart, files.windowBits];
  if (!lists.every(usable)) return undefined;
  const buffer = (file: PagedFile): ArrayBuffer => (file.resident?.buffer as ArrayBuffer | undefined) ?? file.mapped!;
  if (files.postingDocs.size >= 2 ** 33 || files.windowMax.size >= 2 ** 32) return undefined;
  return [
    new Uint32Array(buffer(files.postingDocs)),
    new Float32Array(buffer(files.postingScores)),
    new Uint8Array(buffer(files.windowMax)),
    new Uint32Array(buffer(files.windowStart)),
    new Uint32Array(buffer(files.windowBits)),
  ];
}

/** Whether a file's bytes can be searched where they lie: read whole into memory, or mapped. */
function inPlace(file: PagedFile): boolean {
  return file.resident !== undefined || file.mapped !== undefined;
}

/**
 * MemorySlices over list files of which some are mapped (PagedFile.map: an index larger than the
 * page cache's budget): searched in place as well, and the ensure calls, which copy chunks in
 * DiskSlices, check the blocks they cover the first time instead (PagedFile.check; nothing to do
 * for a resident file), so no byte reaches a search unchecked. Short lists and the long lists'
 * window maxima are checked whole when a query loads them, as DiskSlices copies them.
 */
class MappedSlices extends MemorySlices {
  /** The query's long lists (their window starts are checked by ensureWindows). */
  private readonly long: number[] = [];

  private constructor(
    private readonly files: PostingFiles,
    ...views: [Uint32Array, Float32Array, Uint8Array, Uint32Array, Uint32Array]
  ) {
    super(...views);
  }

  /** The slices over the files in place, or undefined while one of them is neither resident nor mapped. */
  static override of(files: PostingFiles): MappedSlices | undefined {
    const views = listViews(files, inPlace);
    return views && new MappedSlices(files, ...views);
  }

  override load(rows: readonly number[], postings: DiskPostings): TermSlices {
    super.load(rows, postings);
    const W = postings.windows;
    this.long.length = 0;
    for (let i = 0; i < rows.length; i++) {
      if (this.base[i] < 0) {
        this.ensure(this.start[i], this.end[i]);
        continue;
      }
      this.files.windowMax.check(this.base[i], this.base[i] + W);
      this.long.push(i);
    }
    return this;
  }

  override ensure(from: number, to: number): void {
    this.files.postingDocs.checkWords(from, to);
    this.files.postingScores.checkWords(from, to);
  }

  override ensureScores(from: number, to: number): void {
    this.files.postingScores.checkWords(from, to);
  }

  override ensureWindows(from: number, to: number): void {
    for (const i of this.long) this.files.windowStart.checkWords(this.at[i] + from, this.at[i] + to);
  }

  override ensureBits(i: number, w: number): void {
    const word = this.bitAt[i] + 2 * w;
    this.files.windowBits.checkWords(word, word + 2);
  }
}

/**
 * One query's slices; reused (and its arrays grown) query after query. Each list sits in the
 * scratch at its file position modulo CHUNK, so scratch chunk c is one page of the files; chunks
 * never span two lists (each list starts a chunk of its own).
 */
class DiskSlices implements TermSlices {
  docs = new Uint32Array(CHUNK);
  scores = new Float32Array(CHUNK);
  windowMax = new Uint8Array(0);
  windowStart = new Uint32Array(0);
  bits = new Uint32Array(0);
  start = new Int32Array(0);
  end = new Int32Array(0);
  base = new Int32Array(0);
  at = new Int32Array(0);
  bitAt = new Int32Array(0);
  /** Per chunk of the scratch: 1 once its doc numbers are copied in, and its scores. */
  private docsLoaded = new Uint8Array(1);
  private scoresLoaded = new Uint8Array(1);
  /** Per chunk: scratch position less file position of its list (the same for every posting of the list). */
  private chunkShift = new Float64Array(1);
  /** Per chunk: the scratch positions where its list starts and ends. */
  private chunkBegin = new Int32Array(1);
  private chunkEnd = new Int32Array(1);
  private windows = 0;
  /** The long lists of the query: their window-start.u32 row, scratch row, and file-to-scratch position shift. */
  private readonly longRows: { slot: number; at: number; shift: number }[] = [];
  /** Flags per long list (long list · startChunks + the row's chunk): 1 once those window starts are read. */
  private startChunks = 0;
  private startLoaded = new Uint8Array(0);
  /** The same for the long lists' bits (long list · bitChunks + the row's chunk). */
  private bitChunks = 0;
  private bitsLoaded = new Uint8Array(0);

  constructor(private readonly files: PostingFiles) {}

  load(rows: readonly number[], postings: DiskPostings): TermSlices {
    const T = rows.length;
    const W = postings.windows;
    this.windows = W;
    // A row of W + 1 starts lies on at most this many pages of window-start.u32.
    this.startChunks = Math.ceil((W + 1) / STARTS) + 1;
    this.bitChunks = Math.ceil((2 * W) / BITS) + 1;
    this.longRows.length = 0;
    const ranges = rows.map((row) => postings.range(row));
    const slots = rows.map((row) => postings.slotOf(row));
    this.start = new Int32Array(T);
    this.end = new Int32Array(T);
    this.base = new Int32Array(T);
    this.at = new Int32Array(T);
    this.bitAt = new Int32Array(T);
    let total = 0;
    let long = 0;
    for (let i = 0; i < T; i++) {
      const { from, to } = ranges[i];
      this.start[i] = total + (from % CHUNK);
      this.end[i] = this.start[i] + (to - from);
      total += Math.ceil(((from % CHUNK) + (to - from)) / CHUNK) * CHUNK;
      this.base[i] = slots[i] < 0 ? -1 : long * W;
      this.at[i] = slots[i] < 0 ? -1 : long * (W + 1);
      this.bitAt[i] = slots[i] < 0 ? -1 : long * 2 * W;
      if (slots[i] >= 0) long++;
    }
    this.reserve(total, long, W);
    const chunks = total / CHUNK;
    this.docsLoaded.fill(0, 0, chunks);
    this.scoresLoaded.fill(0, 0, chunks);
    for (let i = 0; i < T; i++) {
      const shift = this.start[i] - ranges[i].from;
      for (let c = this.start[i] >>> CHUNK_SHIFT; c * CHUNK < this.end[i]; c++) {
        this.chunkShift[c] = shift;
        this.chunkBegin[c] = this.start[i];
        this.chunkEnd[c] = this.end[i];
      }
      if (slots[i] < 0) {
        this.ensure(this.start[i], this.end[i]);
        continue;
      }
      this.files.windowMax.copy(slots[i] * W, (slots[i] + 1) * W, this.windowMax, this.base[i]);
      this.longRows.push({ slot: slots[i], at: this.at[i], shift });
    }
    this.startLoaded.fill(0, 0, this.longRows.length * this.startChunks);
    this.bitsLoaded.fill(0, 0, this.longRows.length * this.bitChunks);
    return this;
  }

  /** The chunk of BITS words of long list i's bits that holds window w, read the first time a probe needs it. */
  ensureBits(i: number, w: number): void {
    const words = 2 * this.windows;
    const bitAt = this.bitAt[i];
    const l = bitAt / words; // the l-th long list: its scratch row starts at l · words
    const { slot } = this.longRows[l];
    const row = slot * words; // the row's first word in the file
    const k = Math.floor((row + 2 * w) / BITS);
    const flag = l * this.bitChunks + k - Math.floor(row / BITS);
    if (this.bitsLoaded[flag] === 1) return;
    const a = Math.max(k * BITS, row) - row; // words [a, b) of the row
    const b = Math.min((k + 1) * BITS, row + words) - row;
    this.files.windowBits.copy(
      4 * (row + a),
      4 * (row + b),
      new Uint8Array(this.bits.buffer, 4 * (bitAt + a), 4 * (b - a)),
      0,
    );
    this.bitsLoaded[flag] = 1;
  }

  /**
   * Window starts [from, to) of every long list, read the first time the search reaches them, a page
   * of window-start.u32 at a time (consecutive unread pages of a row together).
   */
  ensureWindows(from: number, to: number): void {
    const W1 = this.windows + 1;
    for (let l = 0; l < this.longRows.length; l++) {
      const { slot, at, shift } = this.longRows[l];
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
        // File positions to scratch positions (u32 arithmetic wraps the same way both ways).
        for (let j = at + a, e = at + b; j < e; j++) this.windowStart[j] += shift;
        this.startLoaded.fill(1, flags + k, flags + next);
        k = next - 1;
      }
    }
  }

  /** Postings [from, to) of one list (scratch positions), read the first time. */
  ensure(from: number, to: number): void {
    this.copyIn(from, to, this.docsLoaded, this.files.postingDocs, this.docs);
    this.copyIn(from, to, this.scoresLoaded, this.files.postingScores, this.scores);
  }

  ensureScores(from: number, to: number): void {
    this.copyIn(from, to, this.scoresLoaded, this.files.postingScores, this.scores);
  }

  /** Entries [from, to) of one list's file into its scratch, the chunks not copied yet, consecutive ones together. */
  private copyIn(from: number, to: number, loaded: Uint8Array, file: PagedFile, out: Uint32Array | Float32Array): void {
    for (let c = from >>> CHUNK_SHIFT, last = (to - 1) >>> CHUNK_SHIFT; from < to && c <= last; c++) {
      if (loaded[c] === 1) continue;
      let next = c + 1;
      while (next <= last && loaded[next] === 0) next++;
      const a = Math.max(c * CHUNK, this.chunkBegin[c]);
      const b = Math.min(next * CHUNK, this.chunkEnd[c]);
      const p = a - this.chunkShift[c];
      file.copy(4 * p, 4 * (p + b - a), new Uint8Array(out.buffer, 4 * a, 4 * (b - a)), 0);
      loaded.fill(1, c, next);
      c = next - 1;
    }
  }

  private reserve(postings: number, long: number, W: number): void {
    if (this.docs.length < postings) {
      const n = Math.max(postings, 2 * this.docs.length);
      this.docs = new Uint32Array(n);
      this.scores = new Float32Array(n);
      this.docsLoaded = new Uint8Array(n / CHUNK);
      this.scoresLoaded = new Uint8Array(n / CHUNK);
      this.chunkShift = new Float64Array(n / CHUNK);
      this.chunkBegin = new Int32Array(n / CHUNK);
      this.chunkEnd = new Int32Array(n / CHUNK);
    }
    if (this.windowMax.length < long * W) this.windowMax = new Uint8Array(long * W);
    if (this.windowStart.length < long * (W + 1)) this.windowStart = new Uint32Array(long * (W + 1));
    if (this.bits.length < long * 2 * W) this.bits = new Uint32Array(long * 2 * W);
    const flags = long * this.startChunks;
    if (this.startLoaded.length < flags) this.startLoaded = new Uint8Array(flags);
    if (this.bitsLoaded.length < long * this.bitChunks) this.bitsLoaded = new Uint8Array(long * this.bitChunks);
  }
}
