/**
 * Positional reads of an index file through a small, bounded page cache. A page (PAGE_SHIFTS in
 * bm25-format.ts) holds several 4 KiB CRC blocks; each is checked against the file's block table
 * the first time a byte of it is used, so no byte reaches a search unchecked, a search never reads
 * more of a file than the pages it touches, and it checks only the blocks of them it uses. The
 * cache is a least-recently-used list shared by the files of one open index, bounded in bytes
 * (PAGE_CACHE_BYTES): the memory a query process owns does not grow with the index, the OS keeps
 * the files' hot pages (file-backed, reclaimable) instead.
 *
 * Why positional reads, and mmap only beside them: Node has no mmap in core, and the npm packages
 * that add it build a native addon at install (node-gyp, headers fetched from the network) and must
 * be rebuilt for each Electron ABI the extension runs under. The project's own addon (file-map.ts)
 * maps the list files of an index too large for the budget where it could be built, under plain
 * Node on Linux (PagedFile.map); everywhere else this file's reads serve. Measured in
 * bench/search/disk-reader.ts against the same search over the files held whole in memory (an
 * mmap's best case): warm queries cost 1.15× (short) and 1.75× (question-length) its CPU at 507k
 * paragraphs; a miss costs a read and a CRC-32 of its page (~30–90 µs), paid once per page while
 * it stays cached (mapped lists against paged ones: bench/search/file-map-ab.ts). A file that
 * fits the budget is read whole after open instead (PagedFile.fill, in the background), checked
 * the same way, and is then read from memory without the pages.
 */
import { closeSync, readSync, readvSync } from "node:fs";
import { open } from "node:fs/promises";
import { endianness } from "node:os";
import { crc32 } from "node:zlib";
import { UserError } from "../errors";
import { blocksMatch } from "./block-crc";
import { PAGE_SHIFTS } from "./bm25-format";
import type { FileMapper } from "./file-map";

/**
 * Bytes of memory one open index keeps (its files' pages and the files read whole, together): 640
 * MiB. The 507k-paragraph index is 576 MiB (270 MiB of lists and tables, 306 MiB of texts), so an
 * index of that size is read into memory whole after open (Bm25Searcher.filled) and its queries
 * run from memory, texts included (bm25s holds the same corpus in its 2.5 GiB); a larger one keeps
 * paging, and what its query process owns stays this budget plus one query's scratch (issue 28's
 * limit is 3 GB at 21M). Measured at 507k (bench/search/disk-reader.ts): with 64 MiB of pages the
 * 1,000 bench queries read 1.7 GB of pages (each read is a CRC-32 of the page: CPU p50 1.2 / 2.6
 * ms short / question-length), with 256 MiB 0.3 GB; the files resident, 0.18 / 0.53 ms (wall, at
 * a load of 10).
 */
export const PAGE_CACHE_BYTES = 640 << 20;

interface Page {
  bytes: Uint8Array;
  view: DataView;
  /** Bit b set: the page's CRC block b has been checked (a page holds at most 32 blocks). */
  checked: number;
  /** False once the page has left the cache: its bytes may hold another page by then (recycled). */
  live: boolean;
}

/** Every block of a page checked: a page of a resident file (checked as a whole when it was read). */
const ALL_CHECKED = -1;

/** A cached page and its neighbours in the use order. */
interface CacheEntry {
  key: number;
  page: Page;
  newer: CacheEntry | undefined;
  older: CacheEntry | undefined;
}

/**
 * Least-recently-used pages of several files, keyed by file and page number, bounded in bytes. The
 * use order is a doubly linked list of the entries (a hit moves its entry to the front): a Map kept in
 * use order by deleting and re-adding on each hit filled with deleted entries that every eviction
 * then walked past from the start (8% of a 21M query's time, measured with 4 KiB pages).
 */
export class PageCache {
  /** Every cached page's entry in the use order. */
  private readonly entries = new Map<number, CacheEntry>();
  /** The most and the least recently used entries. */
  private newest: CacheEntry | undefined;
  private oldest: CacheEntry | undefined;
  /** Bytes of pages and of resident files (never evicted) together. */
  private held = 0;
  /** Bytes of files read whole into memory (PagedFile.fill), reserved before they are read. */
  private resident = 0;
  /** Counts clear()s: a reservation taken before one is not given back after it. */
  private epoch = 0;
  /**
   * Buffers of evicted pages by size, for the next misses, within what the budget leaves (the
   * cache's memory stays the budget plus one read's run): a fresh buffer costs its allocation, its
   * collection and, the first time each of its 4 KiB pages is written, a page fault (~12 µs on the
   * machine measured, more than the read itself). See prefault().
   */
  private readonly spare = new Map<number, Uint8Array[]>();
  private spareHeld = 0;
  /** Pages read from disk (and checked) since the cache was made: tests and benchmarks read it. */
  misses = 0;
  /** Bytes read from disk into the cache since it was made. */
  bytesRead = 0;
  /** Bytes of files read whole by PagedFile.fill (no search waited for them; not in misses or bytesRead). */
  filledBytes = 0;

  constructor(readonly budget = PAGE_CACHE_BYTES) {}

  /** Whether a page is cached (its use order unchanged). */
  has(key: number): boolean {
    return this.entries.has(key);
  }

  get(key: number): Page | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.unlink(entry);
    this.linkNewest(entry);
    return entry.page;
  }

  /** A buffer for a page of `size` bytes: one an evicted page left, or a new one. */
  readonly buffer = (size: number): Uint8Array => {
    const buffer = this.spare.get(size)?.pop();
    if (buffer === undefined) return new Uint8Array(size);
    this.spareHeld -= size;
    return buffer;
  };

  /**
   * Buffers of `size` bytes for the pages the budget has room for, each written once so its memory
   * is faulted in now, not during the searches that first fill the cache; a slice of them per turn
   * of the event loop. Called after the background fill when the lists keep paging.
   */
  async prefault(size: number): Promise<void> {
    const SLICE = 16 << 20;
    const epoch = this.epoch; // a clear() (the index closed) stops it
    while (this.epoch === epoch && this.held + this.spareHeld + size <= this.budget) {
      for (let made = 0; made < SLICE && this.held + this.spareHeld + size <= this.budget; made += size)
        this.keepSpare(new Uint8Array(size).fill(0));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private keepSpare(bytes: Uint8Array): void {
    // Past the budget by up to one run of pages: a full cache evicts a page after reading one.
    if (this.held + this.spareHeld + bytes.length > this.budget + SPARE_SLACK) return;
    let spare = this.spare.get(bytes.length);
    if (spare === undefined) this.spare.set(bytes.length, (spare = []));
    spare.push(bytes);
    this.spareHeld += bytes.length;
  }

  /** A page a search read from disk (a miss), its blocks not checked yet. */
  put(key: number, bytes: Uint8Array): Page {
    this.misses++;
    this.bytesRead += bytes.length;
    const page: Page = {
      bytes,
      view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      checked: 0,
      live: true,
    };
    const entry: CacheEntry = { key, page, newer: undefined, older: undefined };
    this.entries.set(key, entry);
    this.linkNewest(entry);
    this.held += bytes.length;
    this.evict(entry);
    return page;
  }

  /**
   * Room for a file read whole (PagedFile.fill), taken from the budget if the resident files
   * together stay within it; pages are evicted to make the room. Returns the ticket release()
   * takes, or undefined: it does not fit.
   */
  reserve(bytes: number): number | undefined {
    if (this.resident + bytes > this.budget) return undefined;
    this.resident += bytes;
    this.held += bytes;
    this.evict(undefined);
    return this.epoch;
  }

  /** Gives back a reservation whose file was not made resident (closed, or refused); one from before a clear() is gone already. */
  release(bytes: number, ticket: number): void {
    if (ticket !== this.epoch) return;
    this.resident -= bytes;
    this.held -= bytes;
  }

  /** A reserved file is now resident: its pages, if any, go (the file reads from memory now). */
  settle(from: number, to: number, bytes: number): void {
    this.filledBytes += bytes;
    for (const entry of this.entries.values()) if (entry.key >= from && entry.key < to) this.drop(entry);
  }

  /** Least recently used pages out until the budget holds; `keep` stays whatever the budget (the read that needs it gets it). */
  private evict(keep: CacheEntry | undefined): void {
    while (this.held > this.budget && this.oldest !== undefined && this.oldest !== keep) this.drop(this.oldest);
  }

  private drop(entry: CacheEntry): void {
    this.unlink(entry);
    this.entries.delete(entry.key);
    this.held -= entry.page.bytes.length;
    entry.page.live = false;
    this.keepSpare(entry.page.bytes);
  }

  private linkNewest(entry: CacheEntry): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest !== undefined) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: CacheEntry): void {
    const { newer, older } = entry;
    if (newer !== undefined) newer.older = older;
    else this.newest = older;
    if (older !== undefined) older.newer = newer;
    else this.oldest = newer;
  }

  /** Bytes of spare page buffers (not counted in `bytes`). */
  get spareBytes(): number {
    return this.spareHeld;
  }

  /** Bytes held now: pages and resident files (reserved ones included). */
  get bytes(): number {
    return this.held;
  }

  clear(): void {
    for (const entry of this.entries.values()) entry.page.live = false;
    this.entries.clear();
    this.spare.clear();
    this.spareHeld = 0;
    this.newest = this.oldest = undefined;
    this.held = 0;
    this.resident = 0;
    this.epoch++;
  }
}

/**
 * Bytes per read, and per CRC turn, of a fill (16 pages of the lists, 64 of the lookup tables):
 * large enough that a read's own cost is small next to its bytes, small enough that the CRC of one
 * run (~0.3 ms) is all a search arriving meanwhile waits for.
 */
const FILL_RUN = 1 << 20;

/** Most pages read by one system call (Linux takes at most 1,024 buffers per call). */
export const RUN_PAGES = 256;

/** How far spare buffers may take the cache's memory past its budget: one run of the lists' pages (16 MiB). */
const SPARE_SLACK = RUN_PAGES << PAGE_SHIFTS.postingDocs;

/** Typed arrays use the machine's byte order; the files are little-endian (elsewhere reads keep going through DataViews). */
const LITTLE_ENDIAN = endianness() === "LE";

/** Files of one cache get disjoint key ranges: file id · 2^32 + page number (pages < 2^32 at any file size here). */
const FILE_KEY = 2 ** 32;

/** One open data file read through a PageCache; its block table checked at open by the caller. */
export class PagedFile {
  /** 2^pageShift: file offsets pass 2^32 in large indexes, so pages are found by division, not bit operations. */
  private readonly pageSize: number;
  /** Bytes of a CRC block, and blocks per page. */
  private readonly blockSize: number;
  private readonly blocksPerPage: number;
  /** The page last used, kept out of the cache's bookkeeping: runs of reads in one page are common. */
  private lastNumber = -1;
  private last: Page | undefined;
  /** The file read whole and checked (fill), and typed views of it where its length allows: then reads skip the pages. */
  private whole: Uint8Array | undefined;
  private words: Uint32Array | undefined;
  private floats: Float32Array | undefined;
  private doubles: Float64Array | undefined;
  /**
   * The file mapped into memory (map()) and typed views of it, its blocks checked as they are first
   * used: a flag per block (whole views of a file over 4 GiB are refused by V8, so bytes are viewed
   * a block at a time).
   */
  private mappedBuffer: ArrayBuffer | undefined;
  private mappedWords: Uint32Array | undefined;
  private mappedFloats: Float32Array | undefined;
  private checkedBlocks: Uint8Array | undefined;

  constructor(
    private readonly cache: PageCache,
    private readonly id: number,
    private fd: number | undefined,
    /** The file's path, for the one-line refusal. */
    readonly path: string,
    readonly size: number,
    pageShift: number,
    /** log2 of the file's CRC blocks (CRC_BLOCK_SHIFT in an index). */
    private readonly blockShift: number,
    /** One CRC-32 per block of the file (its block table). */
    private readonly blockCrcs: Uint32Array,
    /** The refusal for a block whose bytes differ from its CRC (the caller's message, one for every file). */
    private readonly corrupt: (path: string) => UserError,
    private readonly endsEarly: (path: string) => UserError,
  ) {
    // A page's checked blocks are the bits of one 32-bit number.
    if (pageShift < blockShift || pageShift > blockShift + 5)
      throw new Error(`pages of 2^${pageShift} bytes hold 1 to 32 blocks of 2^${blockShift}`);
    this.pageSize = 2 ** pageShift;
    this.blockSize = 2 ** blockShift;
    this.blocksPerPage = 2 ** (pageShift - blockShift);
  }

  /** Page n, from the cache or read from disk; its blocks are checked as they are used (verify()). */
  page(n: number): Page {
    const last = this.last;
    if (n === this.lastNumber && last !== undefined && last.live) return last;
    if (this.whole !== undefined) {
      const bytes = this.whole.subarray(n * this.pageSize, Math.min((n + 1) * this.pageSize, this.size));
      return {
        bytes,
        view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        checked: ALL_CHECKED,
        live: true,
      };
    }
    const key = this.id * FILE_KEY + n;
    let page = this.cache.get(key);
    if (page === undefined) {
      const from = n * this.pageSize;
      page = this.cache.put(key, this.read(from, Math.min(from + this.pageSize, this.size), this.cache.buffer));
    }
    this.lastNumber = n;
    this.last = page;
    return page;
  }

  /** Checks the blocks of page n that bytes [from, to) of it lie in, those not checked yet. */
  private verify(page: Page, n: number, from: number, to: number): void {
    const first = from >>> this.blockShift;
    const last = (to - 1) >>> this.blockShift;
    for (let b = first; b <= last; b++) {
      if (((page.checked >>> b) & 1) === 1) continue;
      const at = b * this.blockSize;
      if (crc32(page.bytes.subarray(at, at + this.blockSize)) >>> 0 !== this.blockCrcs[n * this.blocksPerPage + b])
        throw this.corrupt(this.path);
      page.checked |= 1 << b;
    }
  }

  /**
   * Bytes [from, to) read straight from disk (whole blocks, checked), not through the cache: for
   * texts.bin, whose hits are read once each and checked on every read.
   */
  readFresh(from: number, to: number): { bytes: Uint8Array; offset: number } {
    const block = this.blockSize;
    const first = Math.floor(from / block);
    const start = first * block;
    const end = Math.min(Math.max(Math.ceil(to / block), first + 1) * block, this.size);
    const bytes = this.read(start, end, (size) => new Uint8Array(size));
    if (!blocksMatch(bytes, first, this.blockCrcs, this.blockShift)) throw this.corrupt(this.path);
    return { bytes, offset: start };
  }

  /** Bytes [from, to) of the file into a buffer from `buffer` (unchecked). */
  private read(from: number, to: number, buffer: (size: number) => Uint8Array): Uint8Array {
    if (this.fd === undefined) throw new Error(`${this.path} was closed`);
    const bytes = buffer(to - from);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(this.fd, bytes, got, bytes.length - got, from + got);
      if (n === 0) throw this.endsEarly(this.path);
      got += n;
    }
    return bytes;
  }

  /**
   * Reads the whole file into memory, FILL_RUN bytes per read on libuv's thread pool (the searches
   * on this thread go on meanwhile, reading pages as before), each block checked against its CRC as
   * page() checks it; then the file is resident: every later read is an index into that memory (no
   * page lookups, no copies: disk-postings.ts searches the lists where they lie). Its bytes are
   * reserved in the cache's budget first. Through a descriptor of its own, closed before it
   * returns: close() may close this file's at any time. Not made resident when the budget has no
   * room for it ("full": a large index keeps paging), once the file is closed ("stopped"), or at a
   * block whose bytes differ from its CRC or that ends early ("refused": the search that needs it
   * reads it itself and refuses it with the one-line message).
   */
  async fill(): Promise<"filled" | "stopped" | "full" | "refused"> {
    if (this.whole !== undefined) return "filled";
    const ticket = this.cache.reserve(this.size);
    if (ticket === undefined) return "full";
    let outcome: "filled" | "stopped" | "refused" = "stopped";
    try {
      outcome = await this.readWhole();
    } finally {
      if (outcome !== "filled") this.cache.release(this.size, ticket);
    }
    return outcome;
  }

  private async readWhole(): Promise<"filled" | "stopped" | "refused"> {
    if (this.fd === undefined) return "stopped";
    const handle = await open(this.path, "r");
    try {
      // 8-byte aligned (a new buffer is), so the typed views below can sit on it.
      const whole = new Uint8Array(this.size);
      for (let from = 0; from < this.size;) {
        if (this.fd === undefined) return "stopped";
        const to = Math.min(from + FILL_RUN, this.size);
        const { bytesRead } = await handle.read(whole, from, to - from, from);
        if (bytesRead === 0) return "refused";
        from += bytesRead;
      }
      if (this.fd === undefined) return "stopped";
      // Checked in runs between turns of the event loop: a search arriving meanwhile waits for one run's CRC at most.
      for (let from = 0; from < this.size; from += FILL_RUN) {
        const to = Math.min(from + FILL_RUN, this.size);
        if (!blocksMatch(whole.subarray(from, to), from / this.blockSize, this.blockCrcs, this.blockShift))
          return "refused";
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.fd === undefined) return "stopped";
      }
      this.makeResident(whole);
      return "filled";
    } finally {
      await handle.close();
    }
  }

  private makeResident(whole: Uint8Array): void {
    this.whole = whole;
    if (LITTLE_ENDIAN) {
      if (whole.length % 4 === 0) this.words = new Uint32Array(whole.buffer, 0, whole.length / 4);
      if (whole.length % 4 === 0) this.floats = new Float32Array(whole.buffer, 0, whole.length / 4);
      if (whole.length % 8 === 0) this.doubles = new Float64Array(whole.buffer, 0, whole.length / 8);
    }
    this.last = undefined;
    this.lastNumber = -1;
    this.cache.settle(this.id * FILE_KEY, (this.id + 1) * FILE_KEY, whole.length);
  }

  /** The whole file, checked, once fill() has made it resident (disk-postings.ts searches it in place). */
  get resident(): Uint8Array | undefined {
    return this.whole;
  }

  /**
   * Maps the file (a file larger than the cache's budget, instead of paging it): its bytes are
   * then read in place, each 4 KiB block checked against its CRC the first time check() or a read
   * here covers it. On a little-endian machine only (the index's byte order); false elsewhere and
   * where the mapper refuses: the file keeps paging.
   */
  map(mapper: FileMapper): boolean {
    if (!LITTLE_ENDIAN || this.fd === undefined || this.whole !== undefined || this.size === 0) return false;
    try {
      const buffer = mapper(this.fd, this.size);
      // Views of over 2^32 - 1 values are refused (RangeError): such a file keeps paging.
      if (this.size % 4 === 0) {
        this.mappedWords = new Uint32Array(buffer);
        this.mappedFloats = new Float32Array(buffer);
      }
      this.mappedBuffer = buffer;
    } catch {
      this.mappedWords = this.mappedFloats = undefined;
      return false;
    }
    this.checkedBlocks = new Uint8Array(Math.ceil(this.size / this.blockSize));
    this.last = undefined;
    this.lastNumber = -1;
    return true;
  }

  /** The mapped file (map()); its bytes are checked only where check() has covered them. */
  get mapped(): ArrayBuffer | undefined {
    return this.mappedBuffer;
  }

  /** Checks the blocks of a mapped file's bytes [from, to) not checked yet; nothing to do for other files (page reads check their own). */
  check(from: number, to: number): void {
    const flags = this.checkedBlocks;
    if (flags === undefined) return;
    const size = this.blockSize;
    for (let b = Math.floor(from / size), last = Math.floor((to - 1) / size); b <= last; b++)
      if (flags[b] === 0) this.checkBlock(b);
  }

  /**
   * check() for the 4-byte values [from, to) (positions below 2^32): block numbers by shifts, where
   * byte offsets past 2^32 need a division. The search calls it for every run of windows it reads:
   * in a profile of the heaviest 21M queries this bookkeeping took 14.5% by bytes, 6.7% so.
   */
  checkWords(from: number, to: number): void {
    const flags = this.checkedBlocks;
    if (flags === undefined || to <= from) return;
    const shift = this.blockShift - 2;
    for (let b = from >>> shift, last = (to - 1) >>> shift; b <= last; b++) if (flags[b] === 0) this.checkBlock(b);
  }

  /** Checks mapped block b against its CRC and flags it. */
  private checkBlock(b: number): void {
    const at = b * this.blockSize;
    const bytes = new Uint8Array(this.mappedBuffer!, at, Math.min(this.blockSize, this.size - at));
    if (crc32(bytes) >>> 0 !== this.blockCrcs[b]) throw this.corrupt(this.path);
    this.checkedBlocks![b] = 1;
  }

  /** The page holding bytes [at, at + size) (aligned: in one block), those bytes' block checked. */
  private pageOf(at: number, size: number): { page: Page; offset: number } {
    const n = Math.floor(at / this.pageSize);
    const page = this.page(n);
    const offset = at - n * this.pageSize;
    if (((page.checked >>> (offset >>> this.blockShift)) & 1) === 0) this.verify(page, n, offset, offset + size);
    return { page, offset };
  }

  u32(i: number): number {
    if (this.words !== undefined) return this.words[i];
    if (this.mappedWords !== undefined) {
      this.checkWords(i, i + 1);
      return this.mappedWords[i];
    }
    const { page, offset } = this.pageOf(4 * i, 4);
    return page.view.getUint32(offset, true);
  }

  f32(i: number): number {
    if (this.floats !== undefined) return this.floats[i];
    if (this.mappedFloats !== undefined) {
      this.checkWords(i, i + 1);
      return this.mappedFloats[i];
    }
    const { page, offset } = this.pageOf(4 * i, 4);
    return page.view.getFloat32(offset, true);
  }

  f64(i: number): number {
    if (this.doubles !== undefined) return this.doubles[i];
    const { page, offset } = this.pageOf(8 * i, 8);
    return page.view.getFloat64(offset, true);
  }

  /** Copies bytes [from, to) of the file into out at `at`. */
  copy(from: number, to: number, out: Uint8Array, at: number): void {
    if (this.whole !== undefined) {
      out.set(this.whole.subarray(from, to), at);
      return;
    }
    if (this.mappedBuffer !== undefined) {
      this.check(from, to);
      out.set(new Uint8Array(this.mappedBuffer, from, to - from), at);
      return;
    }
    const size = this.pageSize;
    if (to - from > size) this.readMissing(Math.floor(from / size), Math.floor((to - 1) / size));
    while (from < to) {
      const n = Math.floor(from / size);
      const inPage = from - n * size;
      const take = Math.min(to - from, size - inPage);
      const page = this.page(n);
      this.verify(page, n, inPage, inPage + take);
      out.set(page.bytes.subarray(inPage, inPage + take), at);
      from += take;
      at += take;
    }
  }

  /**
   * Reads the pages first..last that are not cached, each run of consecutive ones with one system
   * call (a page is still its own buffer, checked against its own CRC); a single missing page is
   * left to page(). A short read leaves the rest to page() too, which names a file that ends early.
   */
  private readMissing(first: number, last: number): void {
    const key = this.id * FILE_KEY;
    for (let n = first; n <= last;) {
      if (this.cache.has(key + n)) {
        n++;
        continue;
      }
      let end = n + 1;
      while (end <= last && end - n < RUN_PAGES && !this.cache.has(key + end)) end++;
      if (end - n > 1) this.readRun(n, end);
      n = end;
    }
  }

  /** Pages [first, end) read by one readv and cached (their blocks checked as they are used). */
  private readRun(first: number, end: number): void {
    if (this.fd === undefined) throw new Error(`${this.path} was closed`);
    const pages: Uint8Array[] = [];
    for (let n = first; n < end; n++)
      pages.push(this.cache.buffer(Math.min((n + 1) * this.pageSize, this.size) - n * this.pageSize));
    let got = readvSync(this.fd, pages, first * this.pageSize);
    for (let i = 0; i < pages.length && got >= pages[i].length; got -= pages[i].length, i++)
      this.cache.put(this.id * FILE_KEY + first + i, pages[i]);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.last = undefined;
    this.whole = this.words = this.floats = this.doubles = undefined;
    // The mapping goes when its buffer is collected (views a search still holds stay valid till then).
    this.mappedBuffer = this.mappedWords = this.mappedFloats = this.checkedBlocks = undefined;
  }
}
