/**
 * On-disk layout of a BM25 index folder and the scoring formula both the builder and the tests use.
 *
 * The folder holds flat little-endian arrays. None is loaded whole: a search reads the parts it
 * needs with positional reads through a small page cache (paged-file.ts), so an index opens in
 * the same time at any size and the memory a query process owns does not grow with the corpus.
 *   vocab.bin            index terms, UTF-8, concatenated in JS string order (binary-searchable)
 *   vocab-offsets.u32    V+1 byte offsets into vocab.bin
 *   vocab-hash.u32       a hash table of the terms: vocabHashSlots(V) slots, each 0 (empty) or row + 1
 *                        of a term, at termHash(its UTF-8 bytes) or the next free slot after it
 *   postings-offsets.u32 V+1 posting offsets per term
 *   postings-docs.u32    doc numbers, ascending within each term
 *   postings-scores.f32  each posting's BM25 contribution, precomputed (as bm25s does)
 *   term-max.f32         V per-term maxima of those contributions (upper bounds for pruning)
 *   window-rows.u32      the ascending vocabulary rows of the terms with window rows (below): those
 *                        with at least as many postings as there are windows (read whole at open:
 *                        at most postings / windows of them)
 *   window-max.u8        block maxima for pruning: documents are cut into windows of 2^windowShift
 *                        consecutive numbers; for every term of window-rows.u32, one byte per
 *                        window: ceil(255 · the term's largest contribution in that window / its
 *                        term maximum), 0 = none there
 *   window-start.u32     for the same terms, windows + 1 posting positions each: the first posting of
 *                        the term in window w or later (a search jumps to a window's postings)
 *   window-bits.u32      for the same terms, a bitmap of the documents holding the term: 2 · windows
 *                        u32 each (a window's 64 bits), bit d & 31 of word d >>> 5 set for document
 *                        d. A probe (does document d hold the term, and where is its posting?) reads
 *                        one bit, and where it is set the posting is its window's start plus the bits
 *                        set below it: no search of the list's doc numbers
 *   doc-ids.f64          N corpus ids
 *   text-offsets.f64     2N+1 byte offsets into texts.bin: title i at [2i, 2i+1), text at [2i+1, 2i+2)
 *   texts.bin            titles and texts, UTF-8
 *   <file>.crc32         for every data file above, a CRC-32 (u32) of each 4 KiB block (CRC_BLOCK_SHIFT;
 *                        the last one partial), written by sealDataFile (block-crc.ts)
 *   meta.json            written last: format, version, counts, settings, byte sizes, the CRC-32 of
 *                        every block table, the CRC-32 of meta.json's own fields, and the content hash
 *
 * Integrity: every byte is checked against a CRC-32 before a result depends on it. At open,
 * meta.json checks itself and the block tables (1/1024 of the data) are read whole and checked
 * against meta.json; a data block is checked against its table the first time a search uses a
 * byte of it (texts.bin: on every read, it is not cached). contentHash is a sha256 over the
 * settings and every file's sha256, computed when the index is built, and is what run manifests
 * record: with the CRCs, it names the content the results came from.
 */

export const INDEX_FORMAT = "agent-lab-bm25";
/**
 * Bump when the layout or the scoring changes: older folders are refused with a rebuild hint.
 * 6: every file's CRC blocks are 4 KiB (5 had a block per page: 64 KiB for the lists).
 * 7: window-bits.u32 (probes read a bit, not the list).
 */
export const INDEX_VERSION = 7;

/** bm25s's defaults: method "lucene", k1 = 1.5, b = 0.75. */
export const DEFAULT_K1 = 1.5;
export const DEFAULT_B = 0.75;

export const FILES = {
  vocab: "vocab.bin",
  vocabOffsets: "vocab-offsets.u32",
  vocabHash: "vocab-hash.u32",
  postingOffsets: "postings-offsets.u32",
  postingDocs: "postings-docs.u32",
  postingScores: "postings-scores.f32",
  termMax: "term-max.f32",
  windowMax: "window-max.u8",
  windowStart: "window-start.u32",
  windowBits: "window-bits.u32",
  docIds: "doc-ids.f64",
  windowRows: "window-rows.u32",
  textOffsets: "text-offsets.f64",
  texts: "texts.bin",
} as const;
export type IndexFile = keyof typeof FILES;

/** The files of an index, in the order the builder hashes them into contentHash. */
export const INDEX_FILES = Object.keys(FILES) as IndexFile[];

/**
 * log2 of the CRC block of every data file: 4 KiB. A page of the reader's cache (PAGE_SHIFTS) holds
 * several blocks, and each is checked the first time a search uses a byte of it, so a search that
 * needs a few postings of a page pays the CRC of their block, not of the page. Measured at 21M
 * passages (bench/search/README.md): with a block per 64 KiB page, a question-length query spent
 * more time in the CRC of pages it had read for a handful of postings than in the search itself.
 */
export const CRC_BLOCK_SHIFT = 12;

/**
 * log2 of each file's page: what the reader's cache reads with one system call (paged-file.ts).
 * A read costs about as much at 64 KiB as at 4 KiB here (the call, not the bytes), and the lists
 * are read in runs of windows, so they take 64 KiB; the lookup tables 16 KiB, texts.bin a block.
 */
export const PAGE_SHIFTS: Readonly<Record<IndexFile, number>> = {
  vocab: 14,
  vocabOffsets: 14,
  vocabHash: 14,
  postingOffsets: 14,
  postingDocs: 16,
  postingScores: 16,
  termMax: 14,
  windowMax: 16,
  windowStart: 16,
  windowBits: 16,
  windowRows: 14,
  docIds: 14,
  textOffsets: 14,
  texts: 12,
};

/** The block-CRC table of a data file (see the layout above). */
export function blockTableName(key: IndexFile): string {
  return `${FILES[key]}.crc32`;
}

/** Bytes of a data file's block table: one u32 per block. */
export function blockTableBytes(fileBytes: number): number {
  return 4 * Math.ceil(fileBytes / 2 ** CRC_BLOCK_SHIFT);
}

/** Written last: an index folder without it is incomplete. */
export const META_FILE = "meta.json";

/**
 * Windows of 64 consecutive document numbers: tight bounds (a window holds few postings of any one
 * term), ~8 KB per long list at 507k paragraphs. Recorded in meta.json (windowShift), so a later
 * build may choose it per index; this reader's search is written for 64 and refuses others.
 */
export const WINDOW_SHIFT = 6;

export function windowCount(documents: number): number {
  return Math.ceil(documents / (1 << WINDOW_SHIFT));
}

/** The rows of window-rows.u32: every term with window rows, ascending. */
export function windowedRows(postingOffsets: Uint32Array, documents: number): Uint32Array {
  const W = windowCount(documents);
  const rows: number[] = [];
  for (let r = 0; r + 1 < postingOffsets.length; r++)
    if (hasWindows(postingOffsets[r + 1] - postingOffsets[r], W)) rows.push(r);
  return Uint32Array.from(rows);
}

/** Sets the bits of docs[from, to) in a window-bits.u32 row that starts at word `at` (see the layout above). */
export function setDocBits(bits: Uint32Array, at: number, docs: Uint32Array, from: number, to: number): void {
  for (let p = from; p < to; p++) bits[at + (docs[p] >>> 5)] |= 1 << (docs[p] & 31);
}

/** Terms with window maxima: those with at least as many postings as there are windows (a row costs no more than the list it bounds). */
export function hasWindows(postings: number, windows: number): boolean {
  return postings >= windows;
}

/** Slots of vocab-hash.u32: a power of two at least twice the terms (probes stay short). */
export function vocabHashSlots(terms: number): number {
  let n = 2;
  while (n < 2 * terms) n *= 2;
  return n;
}

/** FNV-1a (32-bit) of bytes[start, end): where a term's search in vocab-hash.u32 begins (mask it to the slots). */
export function termHash(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

export interface IndexMeta {
  format: typeof INDEX_FORMAT;
  version: number;
  variant: "lucene";
  k1: number;
  b: number;
  tokenizer: string;
  stemmer: string;
  documents: number;
  terms: number;
  postings: number;
  avgDocLength: number;
  /** log2 of the window size of window-max.u8 and window-start.u32. */
  windowShift: number;
  /** sha256 over the settings and every data file, for run manifests. */
  contentHash: string;
  /** Byte size of each data file, checked at open to catch truncated or mixed-up folders. */
  bytes: Record<IndexFile, number>;
  /** CRC-32 (8 hex digits) of each data file's block table (blockTableName), checked at open. */
  blockCrc32: Record<IndexFile, string>;
  builtAt: string;
  source: string;
  /** CRC-32 of metaText(the other fields): meta.json checks itself. Last field. */
  metaCrc32: string;
}

/** CRC-32 as 8 lowercase hex digits (zlib's, the one gzip and PNG use). */
export function crcHex(crc: number): string {
  return (crc >>> 0).toString(16).padStart(8, "0");
}

/** The exact text of meta.json for these fields: the self-check compares it byte for byte. */
export function metaText(meta: Omit<IndexMeta, "metaCrc32"> & { metaCrc32?: string }): string {
  return JSON.stringify(meta, null, 2) + "\n";
}

/**
 * Lucene-variant idf, rounded to float32 like bm25s's idf array:
 * ln(1 + (N − df + 0.5) / (df + 0.5)).
 */
export function idfLucene(df: number, documents: number): number {
  return Math.fround(Math.log(1 + (documents - df + 0.5) / (df + 0.5)));
}

/** k1·(1 − b + b·|d|/avgdl), the document-length part of the denominator, in bm25s's operation order. */
export function lengthNorm(docLength: number, avgDocLength: number, k1: number, b: number): number {
  return k1 * (1 - b + (b * docLength) / avgDocLength);
}

/** One term's contribution to a document's score, stored as float32 like bm25s: idf · tf / (tf + norm). */
export function termScore(idf: number, tf: number, norm: number): number {
  return Math.fround(idf * (tf / (norm + tf)));
}
