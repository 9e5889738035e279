/**
 * Positional reads of an index file through a small, bounded page cache. A page is one CRC block of
 * its file (BLOCK_SHIFTS in bm25-format.ts): it is checked against the file's block table when it
 * is read into the cache, so no byte reaches a search unchecked, and a search never reads more of a
 * file than the pages it touches. The cache is a least-recently-used list shared by the files of
 * one open index, bounded in bytes (PAGE_CACHE_BYTES): the memory a query process owns does not
 * grow with the index, the OS keeps the files' hot pages (file-backed, reclaimable) instead.
 *
 * Why positional reads and not mmap: Node has no mmap in core, and the npm packages that add it
 * build a native addon at install (node-gyp, headers fetched from the network) and must be rebuilt
 * for each Electron ABI the extension runs under; measured in bench/search/page-cache.ts, a cache
 * hit costs ~0.1 µs and a miss ~25–60 µs, which the search's access pattern (whole runs of
 * windows, not single postings) makes small next to its arithmetic.
 */
import { closeSync, readSync } from "node:fs";
import { UserError } from "../errors";
import { blocksMatch } from "./block-crc";

/**
 * Bytes of pages one open index keeps (all its files together): 256 MiB. Measured at 507k
 * paragraphs (bench/search/disk-reader.ts): with 64 MiB the 1,000 bench queries read 1.7 GB of
 * pages (each read is a CRC-32 of the page: CPU p50 1.2 / 2.6 ms short / question-length), with
 * 256 MiB 0.3 GB (everything but texts.bin fits; a second pass 0.32 / 1.2 ms).
 */
export const PAGE_CACHE_BYTES = 256 << 20;

interface Page {
  bytes: Uint8Array;
  view: DataView;
}

/** Least-recently-used pages of several files, keyed by file and page number, bounded in bytes. */
export class PageCache {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly pages = new Map<number, Page>();
  private held = 0;
  /** Pages read from disk (and checked) since the cache was made: tests and benchmarks read it. */
  misses = 0;
  /** Bytes read from disk into the cache since it was made. */
  bytesRead = 0;

  constructor(readonly budget = PAGE_CACHE_BYTES) {}

  get(key: number): Page | undefined {
    const page = this.pages.get(key);
    if (page !== undefined) {
      this.pages.delete(key);
      this.pages.set(key, page);
    }
    return page;
  }

  put(key: number, page: Page): void {
    this.pages.set(key, page);
    this.held += page.bytes.length;
    this.misses++;
    this.bytesRead += page.bytes.length;
    for (const [old, evicted] of this.pages) {
      if (this.held <= this.budget || old === key) break;
      this.pages.delete(old);
      this.held -= evicted.bytes.length;
    }
  }

  /** Bytes of pages held now. */
  get bytes(): number {
    return this.held;
  }

  clear(): void {
    this.pages.clear();
    this.held = 0;
  }
}

/** Files of one cache get disjoint key ranges: file id · 2^32 + page number (pages < 2^32 at any file size here). */
const FILE_KEY = 2 ** 32;

/** One open data file read through a PageCache; its block table checked at open by the caller. */
export class PagedFile {
  private readonly shift: number;
  /** 2^shift: file offsets pass 2^32 in large indexes, so pages are found by division, not bit operations. */
  private readonly pageSize: number;
  /** The page last used, kept out of the cache's bookkeeping: runs of reads in one page are common. */
  private lastNumber = -1;
  private last: Page | undefined;

  constructor(
    private readonly cache: PageCache,
    private readonly id: number,
    private fd: number | undefined,
    /** The file's path, for the one-line refusal. */
    readonly path: string,
    readonly size: number,
    shift: number,
    private readonly blockCrcs: Uint32Array,
    /** The refusal for a block whose bytes differ from its CRC (the caller's message, one for every file). */
    private readonly corrupt: (path: string) => UserError,
    private readonly endsEarly: (path: string) => UserError,
  ) {
    this.shift = shift;
    this.pageSize = 2 ** shift;
  }

  /** Page n, from the cache or read from disk and checked against its block CRC. */
  page(n: number): Page {
    if (n === this.lastNumber && this.last !== undefined) return this.last;
    const key = this.id * FILE_KEY + n;
    let page = this.cache.get(key);
    if (page === undefined) {
      const from = n * this.pageSize;
      const bytes = this.readChecked(from, Math.min(from + this.pageSize, this.size), n);
      page = { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
      this.cache.put(key, page);
    }
    this.lastNumber = n;
    this.last = page;
    return page;
  }

  /**
   * Bytes [from, to) read straight from disk (whole blocks, checked), not through the cache: for
   * texts.bin, whose hits are read once each and checked on every read.
   */
  readFresh(from: number, to: number): { bytes: Uint8Array; offset: number } {
    const first = Math.floor(from / this.pageSize);
    const start = first * this.pageSize;
    const end = Math.min(Math.max(Math.ceil(to / this.pageSize), first + 1) * this.pageSize, this.size);
    return { bytes: this.readChecked(start, end, first), offset: start };
  }

  private readChecked(from: number, to: number, firstBlock: number): Uint8Array {
    if (this.fd === undefined) throw new Error(`${this.path} was closed`);
    const bytes = new Uint8Array(to - from);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(this.fd, bytes, got, bytes.length - got, from + got);
      if (n === 0) throw this.endsEarly(this.path);
      got += n;
    }
    if (!blocksMatch(bytes, firstBlock, this.blockCrcs, this.shift)) throw this.corrupt(this.path);
    return bytes;
  }

  u32(i: number): number {
    const at = 4 * i;
    const n = Math.floor(at / this.pageSize);
    return this.page(n).view.getUint32(at - n * this.pageSize, true);
  }

  f32(i: number): number {
    const at = 4 * i;
    const n = Math.floor(at / this.pageSize);
    return this.page(n).view.getFloat32(at - n * this.pageSize, true);
  }

  f64(i: number): number {
    const at = 8 * i;
    const n = Math.floor(at / this.pageSize);
    return this.page(n).view.getFloat64(at - n * this.pageSize, true);
  }

  /** Copies bytes [from, to) of the file into out at `at`. */
  copy(from: number, to: number, out: Uint8Array, at: number): void {
    const size = this.pageSize;
    while (from < to) {
      const n = Math.floor(from / size);
      const inPage = from - n * size;
      const take = Math.min(to - from, size - inPage);
      out.set(this.page(n).bytes.subarray(inPage, inPage + take), at);
      from += take;
      at += take;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.last = undefined;
  }
}
