/**
 * An open BM25 index: meta.json and the block-CRC tables are read at open, everything else is read
 * on demand with positional reads through a bounded page cache (paged-file.ts), so opening takes the
 * same few milliseconds at any size. Lookups go through vocab-hash.u32; top-k search is pruned by
 * window block maxima (window-top-k.ts) over per-query slices of the lists (disk-postings.ts).
 *
 * Scores equal bm25s's (lucene variant) bit for bit: per-posting float32 contributions, summed in
 * float32 in query-word order. Pruning only decides which documents get that exact sum computed;
 * ties are broken by document number, so the result equals exhaustive scoring (searchExhaustive).
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { UserError } from "../errors";
import {
  CRC_BLOCK_SHIFT,
  FILES,
  INDEX_FILES,
  INDEX_FORMAT,
  INDEX_VERSION,
  META_FILE,
  PAGE_SHIFTS,
  WINDOW_SHIFT,
  blockTableBytes,
  blockTableName,
  crcHex,
  metaText,
  termHash,
  vocabHashSlots,
  windowCount,
  type IndexFile,
  type IndexMeta,
} from "./bm25-format";
import type { SearchHit, Searcher } from "./searcher";
import { ENGLISH_STOPWORDS, TermTokenizer } from "./tokenizer";
import { DiskPostings } from "./disk-postings";
import { fileMapper } from "./file-map";
import { PAGE_CACHE_BYTES, PageCache, PagedFile } from "./paged-file";
import { MAX_K, MAX_ROWS, NO_SEARCH_HELPER_ENV, SearchHelper } from "./search-helper";
import { middleWindow, WindowTopK, type ScoredDoc } from "./window-top-k";

const REBUILD = 'run "agent-lab index" to build it';
const REBUILD_AGAIN = 'rebuild it with "agent-lab index"';

export interface OpenOptions {
  /** Bytes of pages the index keeps in memory (default PAGE_CACHE_BYTES). */
  cacheBytes?: number;
  /**
   * Read the index's files into the page cache in the background after open, as far as they fit
   * its budget (default true; see Bm25Searcher.filled). A one-shot search turns it off: it would
   * wait for the fill to end before it could exit.
   */
  fill?: boolean;
  /** The longest the warm-up searches hold the event loop before they give it a turn (default WARM_UP_TURN_MS; 0: a turn after every search). */
  warmUpTurnMs?: number;
  /**
   * A helper thread that searches half of each heavy query (search-helper.ts), started after the
   * fill: by default where the fill mapped the lists (an index too large to hold) and the machine
   * has two cores or more, unless AGENT_LAB_NO_SEARCH_HELPER is set; true starts one anyway
   * (tests), false never.
   */
  helper?: boolean;
  /** A query goes to the helper when its words' lists hold at least this many postings (default SPLIT_POSTINGS). */
  splitPostings?: number;
}

/**
 * Postings of a query's lists from which its search is split between two threads: handing a query
 * over and waking the helper costs ~0.1 ms, and a query reading this many postings takes several
 * milliseconds on one thread at 21M.
 */
export const SPLIT_POSTINGS = 1 << 20;

/** What the background fill of an open index did (Bm25Searcher.filled). */
export interface FillReport {
  /** From the fill's start (right after open) to its end. */
  seconds: number;
  /** Bytes of the files it read whole and checked. */
  bytes: number;
  /** Files read whole into memory (within the cache's budget). */
  filled: IndexFile[];
  /** Files left to on-demand reads: they did not fit the cache's budget, or the fill stopped before them. */
  left: IndexFile[];
  /** Of those, the list files mapped into memory instead of paged (file-map.ts), searched in place. */
  mapped: IndexFile[];
  /** Why it stopped early: the searcher was closed, or a page was refused (the search that needs it refuses it). */
  stopped?: "closed" | "refused";
  /** Whether a helper thread searches half of each heavy query from now on (OpenOptions.helper). */
  helper: boolean;
}

/**
 * The order the fill reads the files in: what every query reads first (the vocabulary's lookups,
 * the lists' bounds), then the lists, then what the hits read. texts.bin, the largest, last: it
 * is never paged (each hit's blocks are read and checked on every read) but read whole when the
 * budget has room for it.
 */
const FILL_ORDER: readonly IndexFile[] = [
  "vocabHash",
  "vocabOffsets",
  "vocab",
  "postingOffsets",
  "termMax",
  "windowRows",
  "windowMax",
  "windowStart",
  "windowBits",
  "postingDocs",
  "postingScores",
  "textOffsets",
  "docIds",
  "texts",
];

export function openIndex(indexDir: string, options: OpenOptions = {}): Bm25Searcher {
  return new Bm25Searcher(indexDir, options);
}

/** The one-line refusal for a data file whose bytes changed since the index was built. */
export function corruptFileMessage(file: string): string {
  return `search index file ${file} is corrupt (its CRC-32 differs from the one recorded when the index was built): ${REBUILD_AGAIN}`;
}

/**
 * Closes the files of a searcher that was never closed once it is garbage collected: an
 * environment run opens one per run and lets it go, and an index holds a descriptor per data file.
 * The held value is the files only (they reference no searcher), so it does not keep one alive.
 */
const unclosed = new FinalizationRegistry<{ close(): void }[]>((files) => {
  for (const f of files) f.close();
});

export class Bm25Searcher implements Searcher {
  readonly meta: IndexMeta;
  /** Pages of every file but texts.bin (read fresh and checked on each read). */
  readonly cache: PageCache;
  private readonly files: Record<IndexFile, PagedFile>;
  /** The pruned top-k search over the lists. */
  private readonly topK: WindowTopK;
  private readonly postings: DiskPostings;
  /** What a searcher nobody closed still closes when collected: the files, and the helper once started. */
  private readonly closables: { close(): void }[];
  private helper: SearchHelper | undefined;
  private readonly splitPostings: number;
  private closed = false;
  private readonly tokenizer = new TermTokenizer();
  /** A term's UTF-8 bytes while it is looked up. */
  private termBytes = new Uint8Array(256);
  /** A term's bytes in vocab.bin while compared. */
  private vocabBytes = new Uint8Array(256);
  /** Query terms already looked up (research sessions repeat words). */
  private readonly rowCache = new Map<string, number>();
  /**
   * Settles once the background fill has read the files that fit the cache into it (at once when
   * options.fill is false); never rejects. Searches are correct before, during and after it: they
   * read what is not cached yet themselves. A benchmark waits for it the way a loader's timed
   * queries start after its load.
   */
  readonly filled: Promise<FillReport>;
  constructor(
    readonly indexDir: string,
    options: OpenOptions = {},
  ) {
    const metaFile = join(indexDir, META_FILE);
    if (!existsSync(metaFile)) throw new UserError(`no search index in ${indexDir} (meta.json is missing): ${REBUILD}`);
    let meta: IndexMeta;
    let metaRaw: string;
    try {
      metaRaw = readFileSync(metaFile, "utf8");
      meta = JSON.parse(metaRaw) as IndexMeta;
    } catch (e) {
      throw new UserError(`search index file ${metaFile} is unreadable (${(e as Error).message}): ${REBUILD_AGAIN}`);
    }
    if (meta?.format !== INDEX_FORMAT) throw new UserError(`${indexDir} is not an Agent Lab search index: ${REBUILD}`);
    if (meta.version !== INDEX_VERSION) {
      throw new UserError(
        `search index ${indexDir} has format version ${meta.version}, this Agent Lab reads version ${INDEX_VERSION}: ${REBUILD_AGAIN}`,
      );
    }
    // meta.json checks itself: its text must be exactly what the builder wrote for these fields
    // (catches changed layout bytes) and its fields must match their CRC (catches changed values).
    const { metaCrc32, ...fields } = meta;
    if (metaText(meta) !== metaRaw || crcHex(crc32(metaText(fields))) !== metaCrc32)
      throw new UserError(corruptFileMessage(metaFile));
    if (meta.windowShift !== WINDOW_SHIFT) {
      throw new UserError(
        `search index ${indexDir} has windows of 2^${meta.windowShift} documents, this Agent Lab reads 2^${WINDOW_SHIFT}: ${REBUILD_AGAIN}`,
      );
    }
    this.meta = meta;
    this.cache = new PageCache(options.cacheBytes ?? PAGE_CACHE_BYTES);
    const N = meta.documents;
    const V = meta.terms;
    const P = meta.postings;
    const W = windowCount(N);
    const opened: { close(): void }[] = [];
    this.closables = opened;
    this.splitPostings = options.splitPostings ?? SPLIT_POSTINGS;
    try {
      const open = (key: IndexFile, size: number): PagedFile => {
        const file = this.openFile(key, size, opened.length);
        opened.push(file);
        return file;
      };
      // window-rows.u32 first: its length gives the window files' sizes. Its open also refuses a
      // meta.json without `bytes` (the size it is given and the one recorded are both undefined
      // then), so the reads of meta.bytes after it need no `?.`.
      const windowRowsFile = open("windowRows", meta.bytes?.windowRows);
      const windowRows = new Uint32Array(windowRowsFile.size / 4);
      windowRowsFile.copy(0, windowRowsFile.size, new Uint8Array(windowRows.buffer), 0);
      const rows = windowRows.length;
      const expected: Record<Exclude<IndexFile, "windowRows">, number> = {
        vocab: meta.bytes.vocab,
        vocabOffsets: 4 * (V + 1),
        vocabHash: 4 * vocabHashSlots(V),
        postingOffsets: 4 * (V + 1),
        postingDocs: 4 * P,
        postingScores: 4 * P,
        termMax: 4 * V,
        windowMax: rows * W,
        windowStart: 4 * rows * (W + 1),
        windowBits: 4 * rows * 2 * W,
        docIds: 8 * N,
        textOffsets: 8 * (2 * N + 1),
        texts: meta.bytes.texts,
      };
      const files = { windowRows: windowRowsFile } as Record<IndexFile, PagedFile>;
      for (const key of INDEX_FILES) if (key !== "windowRows") files[key] = open(key, expected[key]);
      this.files = files;
      if (
        files.postingOffsets.u32(V) !== P ||
        files.vocabOffsets.u32(V) !== files.vocab.size ||
        files.textOffsets.f64(2 * N) !== files.texts.size
      ) {
        throw new UserError(
          `search index ${indexDir} is corrupt (offsets do not match the data files): ${REBUILD_AGAIN}`,
        );
      }
      this.postings = new DiskPostings(files, windowRows, W);
      this.topK = new WindowTopK(this.postings);
      unclosed.register(this, opened, this);
      // Not a closure here: one made in this constructor would share its scope, and with it the
      // searcher, which a searcher nobody closed must not be kept alive by.
      this.filled = fillThenHelper(files, this.cache, new WeakRef(this), windowRows, options);
    } catch (e) {
      for (const f of opened) f.close();
      throw e;
    }
  }

  /**
   * Opens one data file: its size must be `size` (derived from meta.json's counts) and what meta.json
   * records, and its block table is read whole and checked against meta.json's CRC of it.
   */
  private openFile(key: IndexFile, size: number, id: number): PagedFile {
    const indexDir = this.indexDir; // the PagedFile's callbacks must not hold the searcher (see unclosed)
    const file = join(indexDir, FILES[key]);
    const incomplete = (name: string, e: unknown) =>
      new UserError(
        `search index ${indexDir} is incomplete (${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${REBUILD_AGAIN}`,
      );
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (e) {
      throw incomplete(FILES[key], e);
    }
    try {
      const bytes = fstatSync(fd).size;
      if (bytes !== size || bytes !== this.meta.bytes[key])
        throw new UserError(
          `search index file ${file} is corrupt (${bytes} bytes, expected ${size}): ${REBUILD_AGAIN}`,
        );
      const tableFile = join(this.indexDir, blockTableName(key));
      let table: Buffer;
      try {
        table = readFileSync(tableFile);
      } catch (e) {
        throw incomplete(blockTableName(key), e);
      }
      if (table.length !== blockTableBytes(bytes) || crcHex(crc32(table)) !== this.meta.blockCrc32?.[key])
        throw new UserError(corruptFileMessage(tableFile));
      const crcs = new Uint32Array(table.length / 4);
      new Uint8Array(crcs.buffer).set(table);
      return new PagedFile(
        this.cache,
        id,
        fd,
        file,
        bytes,
        PAGE_SHIFTS[key],
        CRC_BLOCK_SHIFT,
        crcs,
        (path) => new UserError(corruptFileMessage(path)),
        (path) => new UserError(`search index ${indexDir} is corrupt (${path} ends early): ${REBUILD_AGAIN}`),
      );
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  get documents(): number {
    return this.meta.documents;
  }

  describe(): Record<string, unknown> {
    const m = this.meta;
    return {
      kind: "bm25",
      variant: m.variant,
      k1: m.k1,
      b: m.b,
      tokenizer: m.tokenizer,
      stemmer: m.stemmer,
      stopwords: `bm25s english (${ENGLISH_STOPWORDS.size})`,
      documents: m.documents,
      terms: m.terms,
      indexVersion: m.version,
      indexSha256: m.contentHash,
    };
  }

  search(query: string, k: number): SearchHit[] {
    return this.hits(this.topDocs(query, k, true), k);
  }

  /** Searches split with the helper thread since open, and those whose half it searched (tests, benchmarks). */
  get helperCounts(): { split: number; byHelper: number } {
    return { ...(this.helper?.counts ?? { split: 0, byHelper: 0 }) };
  }

  /** Documents the last pruned search scored exactly (exhaustive scoring scores every matching one). */
  get lastScored(): number {
    return this.topK.scored;
  }

  /** Same ranking without pruning: every posting of every query term is added up (tests, benchmarks). */
  searchExhaustive(query: string, k: number): SearchHit[] {
    return this.hits(this.topDocs(query, k, false), k);
  }

  /**
   * The paragraph stored for document number `doc` (0-based row of the corpus). From memory once
   * the fill has read texts.bin whole (every block checked then); until then, or when it does not
   * fit the budget, reads the whole 4 KiB blocks it lies in and checks their CRCs first, on every
   * call (texts are not paged): no byte of texts.bin reaches a caller unchecked.
   */
  paragraph(doc: number): { id: number; title: string; text: string } {
    const o = this.files.textOffsets;
    const start = o.f64(2 * doc);
    const split = o.f64(2 * doc + 1);
    const end = o.f64(2 * doc + 2);
    const resident = this.files.texts.resident;
    const { bytes, offset } = resident ? { bytes: resident, offset: 0 } : this.files.texts.readFresh(start, end);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return {
      id: this.files.docIds.f64(doc),
      title: text.toString("utf8", start - offset, split - offset),
      text: text.toString("utf8", split - offset, end - offset),
    };
  }

  /** Closes the index files and lets go of the cached pages. */
  close(): void {
    unclosed.unregister(this);
    this.closed = true;
    this.helper?.close();
    this.helper = undefined;
    for (const f of Object.values(this.files)) f.close();
    this.cache.clear();
  }

  /** Row of a stemmed term in the vocabulary, or -1 (vocab-hash.u32, then its bytes compared; cached). */
  termRow(term: string): number {
    const cached = this.rowCache.get(term);
    if (cached !== undefined) return cached;
    if (this.termBytes.length < 3 * term.length) this.termBytes = new Uint8Array(6 * term.length);
    const n = textEncoder.encodeInto(term, this.termBytes).written;
    const { vocabHash, vocabOffsets, vocab } = this.files;
    const mask = vocabHash.size / 4 - 1;
    let row = -1;
    for (let h = termHash(this.termBytes, 0, n) & mask, slot; (slot = vocabHash.u32(h)) !== 0; h = (h + 1) & mask) {
      const r = slot - 1;
      const from = vocabOffsets.u32(r);
      const to = vocabOffsets.u32(r + 1);
      if (to - from !== n) continue;
      if (this.vocabBytes.length < n) this.vocabBytes = new Uint8Array(2 * n);
      vocab.copy(from, to, this.vocabBytes, 0);
      if (sameBytes(this.vocabBytes, this.termBytes, n)) {
        row = r;
        break;
      }
    }
    if (this.rowCache.size >= 200_000) this.rowCache.clear();
    this.rowCache.set(term, row);
    return row;
  }

  private hits(ranked: { doc: number; score: number }[], k: number): SearchHit[] {
    return ranked.slice(0, k).map(({ doc, score }) => ({ ...this.paragraph(doc), score }));
  }

  /** Query words → vocabulary rows in query order (repeats kept, as bm25s adds them again). */
  private queryRows(query: string): number[] {
    const rows: number[] = [];
    for (const t of this.tokenizer.terms(query)) {
      const r = this.termRow(t);
      if (r >= 0) rows.push(r);
    }
    return rows;
  }

  private topDocs(query: string, k: number, prune: boolean): { doc: number; score: number }[] {
    if (!Number.isInteger(k) || k < 1) throw new UserError(`k must be a positive integer, got ${k}`);
    const rows = this.queryRows(query);
    if (rows.length === 0) return [];
    if (!prune) return this.exhaustiveTop(rows, k);
    const helper = this.helper;
    if (helper?.ready && k <= MAX_K && rows.length <= MAX_ROWS && this.postingCount(rows) >= this.splitPostings) {
      const W = this.postings.windows;
      const mid = middleWindow(W);
      const topK = this.topK;
      return helper.split(
        rows,
        k,
        mid,
        W,
        () => topK.top(rows, k, 0, mid),
        () => topK.top(rows, k, mid, W),
      );
    }
    return this.topK.top(rows, k);
  }

  /** The top k of windows [from, to) only (the helper thread's half of a split query). */
  topRows(rows: readonly number[], k: number, from: number, to: number): ScoredDoc[] {
    return this.topK.top(rows, k, from, to);
  }

  /** Starts the helper thread (withHelper) and gives it to close() and the collector. */
  startHelper(): SearchHelper | undefined {
    if (this.helper || this.closed) return this.helper;
    this.helper = SearchHelper.start(this.indexDir);
    if (this.helper) this.closables.push(this.helper);
    return this.helper;
  }

  /** Postings in the lists of a query's words (repeats counted again): what its search may read. */
  private postingCount(rows: readonly number[]): number {
    let n = 0;
    for (const r of rows) {
      const { from, to } = this.postings.range(r);
      n += to - from;
    }
    return n;
  }

  /**
   * The reference: every posting of every query word added into a dense float32 array in query
   * order (as bm25s does), then the best k by (score desc, doc asc). No pruning, no shortcuts.
   */
  private exhaustiveTop(rows: number[], k: number): { doc: number; score: number }[] {
    const sums = new Float32Array(this.meta.documents);
    for (const r of rows) {
      const { from, to } = this.postings.range(r);
      const docs = new Uint32Array(to - from);
      const scores = new Float32Array(to - from);
      this.files.postingDocs.copy(4 * from, 4 * to, new Uint8Array(docs.buffer), 0);
      this.files.postingScores.copy(4 * from, 4 * to, new Uint8Array(scores.buffer), 0);
      for (let p = 0; p < docs.length; p++) sums[docs[p]] += scores[p];
    }
    const out: { doc: number; score: number }[] = [];
    for (let d = 0; d < sums.length; d++) {
      const s = sums[d];
      if (s === 0 || (out.length === k && s <= out[k - 1].score)) continue;
      let at = out.length === k ? k - 1 : out.length;
      while (at > 0 && out[at - 1].score < s) {
        out[at] = out[at - 1];
        at--;
      }
      out[at] = { doc: d, score: s };
    }
    return out;
  }
}

const NOTHING_FILLED: FillReport = {
  seconds: 0,
  bytes: 0,
  filled: [],
  left: [...FILL_ORDER],
  mapped: [],
  helper: false,
};

/** The files a search reads in place when they are resident or mapped (disk-postings.ts): the ones worth mapping. */
const MAPPED_FILES: ReadonlySet<IndexFile> = new Set([
  "windowMax",
  "windowStart",
  "windowBits",
  "postingDocs",
  "postingScores",
]);

/**
 * Reads the files of FILL_ORDER into memory, each whole, one after another (PagedFile.fill), a file
 * whose bytes would take the resident files past the cache's budget left to paging (a large index
 * keeps paging). A function of its own that holds the files and the cache, not the searcher: a
 * searcher nobody closed can still be collected while its fill runs (its files are closed then,
 * and the fill stops).
 */
async function fillCache(files: Record<IndexFile, PagedFile>, cache: PageCache): Promise<FillReport> {
  const t0 = performance.now();
  const before = cache.filledBytes;
  const report: FillReport = { seconds: 0, bytes: 0, filled: [], left: [], mapped: [], helper: false };
  const mapper = fileMapper();
  for (const key of FILL_ORDER) {
    if (report.stopped !== undefined) {
      report.left.push(key);
      continue;
    }
    let outcome: Awaited<ReturnType<PagedFile["fill"]>>;
    try {
      outcome = await files[key].fill();
    } catch {
      // A file that went away or cannot be read: the search that needs its pages reads them itself
      // and gives its one-line refusal; the fill has nothing to add to it.
      outcome = "refused";
    }
    if (outcome === "filled") {
      report.filled.push(key);
      continue;
    }
    report.left.push(key);
    // Too large for the budget: mapped where it can be, so its searches read it in place.
    if (outcome === "full" && mapper !== undefined && MAPPED_FILES.has(key) && files[key].map(mapper))
      report.mapped.push(key);
    if (outcome === "stopped") report.stopped = "closed";
    if (outcome === "refused") report.stopped = "refused";
    // "full": the next (smaller) file may still fit.
  }
  report.seconds = (performance.now() - t0) / 1000;
  report.bytes = cache.filledBytes - before;
  return report;
}

/** fillCache, then warmUp once the lists are in memory (the searcher weakly held: see unclosed). */
async function fillAndWarm(
  files: Record<IndexFile, PagedFile>,
  cache: PageCache,
  searcher: WeakRef<Bm25Searcher>,
  windowRows: Uint32Array,
  turnMs: number,
): Promise<FillReport> {
  const t0 = performance.now();
  const report = await fillCache(files, cache);
  const inPlace = new Set([...report.filled, ...report.mapped]);
  try {
    if (inPlace.has("postingScores") && files.termMax.size > 0) await warmUp(searcher, files, windowRows, turnMs);
  } catch {
    // Closed meanwhile ("was closed" from a read): there is nothing left to warm, and `filled` never rejects.
  }
  // The lists keep paging: the cache's page buffers are made now, not by the first searches.
  if (report.stopped === undefined && !inPlace.has("postingDocs")) {
    await cache.prefault(2 ** PAGE_SHIFTS.postingDocs);
    report.seconds = (performance.now() - t0) / 1000;
  }
  return report;
}

/**
 * Bm25Searcher.filled: the fill (fillAndWarm, unless options.fill is false), then the helper thread
 * started and ready where it is wanted (OpenOptions.helper), so the timed searches after `filled`
 * are split from the first. The searcher weakly held, as by the fill.
 */
async function fillThenHelper(
  files: Record<IndexFile, PagedFile>,
  cache: PageCache,
  searcher: WeakRef<Bm25Searcher>,
  windowRows: Uint32Array,
  options: OpenOptions,
): Promise<FillReport> {
  const report =
    options.fill === false
      ? NOTHING_FILLED
      : await fillAndWarm(files, cache, searcher, windowRows, options.warmUpTurnMs ?? WARM_UP_TURN_MS);
  const want =
    options.helper ?? (!process.env[NO_SEARCH_HELPER_ENV] && report.mapped.length > 0 && availableParallelism() >= 2);
  const helper = want && report.stopped === undefined ? searcher.deref()?.startHelper() : undefined;
  if (!helper) return report;
  await helper.whenSettled();
  return { ...report, helper: helper.ready };
}

/** Made-up searches in warmUp: enough that V8 has optimised what a search runs (at 507k 64 were not, 256 nearly). */
const WARM_UP_QUERIES = 512;
/**
 * Milliseconds of made-up searches per turn of the event loop: a real search arriving meanwhile
 * waits for about that much, or one made-up search where that is longer. By time, not count: 32
 * searches take ~15 ms at 507k, but over a mapped 21M index, whose lists are read (and their blocks
 * checked) for the first time, one took up to 86 ms (the longest gap between turns, measured).
 */
const WARM_UP_TURN_MS = 15;

/**
 * Searches made-up query texts once the lists are in memory, before `filled` settles: V8 optimises
 * code only after it has run a while, and a fresh process's first real queries paid for that. The
 * whole path is warmed (words, stemmer, vocabulary lookups, the search, the hits' texts): with 64
 * made-up searches of the search alone, the first 500 real queries still ran while V8 optimised the
 * stemmer, the lookups and the search (measured at 507k, short p50 / p99: 0.17–0.18 / 0.9–2.0 ms
 * before, 0.14–0.15 / 0.6–0.7 with this; bench/search/README.md). Texts are vocabulary words,
 * inflected: the longest lists' (every windowed row) mixed with ones spread over the vocabulary, 1 to
 * 20 words, k 3 and 10; ~0.26 s at 507k, in turns of WARM_UP_TURN_MS. Deterministic; it changes no state
 * a result depends on (the top k is reset per query; the word → row cache only remembers lookups).
 */
async function warmUp(
  searcher: WeakRef<Bm25Searcher>,
  files: Record<IndexFile, PagedFile>,
  windowRows: Uint32Array,
  turnMs: number,
): Promise<void> {
  const terms = files.termMax.size / 4;
  const word = (row: number): string => {
    const from = files.vocabOffsets.u32(row);
    const bytes = new Uint8Array(files.vocabOffsets.u32(row + 1) - from);
    files.vocab.copy(from, from + bytes.length, bytes, 0);
    return textDecoder.decode(bytes);
  };
  let turn = performance.now();
  for (let q = 0; q < WARM_UP_QUERIES; q++) {
    if (performance.now() - turn >= turnMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
    const open = searcher.deref();
    if (open === undefined) return;
    const words: string[] = [];
    const long = q % 5;
    for (let i = 0; i < long && windowRows.length > 0; i++)
      words.push(word(windowRows[(q * 7 + i * 13) % windowRows.length]));
    const short = 1 + ((q * 5) % 20) - Math.min(long, 1);
    for (let i = 0; i < short; i++) words.push(word(Math.floor(((q * 31 + i * 97 + 1) * 2654435761) % terms)));
    // Inflected and capitalised as a question's words are, so that the stemmer's rules run too.
    const text = words.map((w, i) => {
      const inflected = w + WARM_UP_SUFFIXES[(q + i) % WARM_UP_SUFFIXES.length];
      return i % 3 === 0 ? inflected.charAt(0).toUpperCase() + inflected.slice(1) : inflected;
    });
    open.search(`${text.join(" ")}?`, q % 2 === 0 ? 3 : 10);
  }
}

const WARM_UP_SUFFIXES = ["", "s", "ing", "ed", "ies", "ly", "ational", "ness", "er", "'s", "ful", "ize"];
const textDecoder = new TextDecoder();
const textEncoder = new TextEncoder();

/** Whether a[0, n) equals b[0, n) (a loop: a native call's checks cost more than the few bytes). */
function sameBytes(a: Uint8Array, b: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
