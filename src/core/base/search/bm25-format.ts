/**
 * On-disk layout of a BM25 index folder and the scoring formula both the builder and the tests use.
 *
 * The folder holds flat little-endian arrays, each loaded with one readFileSync into a Buffer that
 * lives outside the JS heap (the VS Code extension host caps the heap at 4 GB); texts.bin is not
 * loaded at all: a search reads its k hits from the open file.
 *   vocab.bin            index terms, UTF-8, concatenated in JS string order (binary-searchable)
 *   vocab-offsets.u32    V+1 byte offsets into vocab.bin
 *   vocab-hash.u32       a hash table of the terms: vocabHashSlots(V) slots, each 0 (empty) or row + 1
 *                        of a term, at termHash(its UTF-8 bytes) or the next free slot after it
 *   postings-offsets.u32 V+1 posting offsets per term
 *   postings-docs.u32    doc numbers, ascending within each term
 *   postings-scores.f32  each posting's BM25 contribution, precomputed (as bm25s does)
 *   term-max.f32         V per-term maxima of those contributions (upper bounds for pruning)
 *   window-max.u8        block maxima for pruning: documents are cut into windows of 2^WINDOW_SHIFT
 *                        consecutive numbers; for every term with at least as many postings as there
 *                        are windows (ascending rows), one byte per window: ceil(255 · the term's
 *                        largest contribution in that window / its term maximum), 0 = none there
 *   window-start.u32     for the same terms, windows + 1 posting positions each: the first posting of
 *                        the term in window w or later (a search jumps to a window's postings)
 *   doc-ids.f64          N corpus ids
 *   text-offsets.f64     2N+1 byte offsets into texts.bin: title i at [2i, 2i+1), text at [2i+1, 2i+2)
 *   texts.bin            titles and texts, UTF-8
 *   texts-blocks.crc32   a CRC-32 (u32) of every 4 KiB block of texts.bin (block-crc.ts)
 *   meta.json            written last: format, version, counts, settings, byte sizes, a CRC-32 of
 *                        every data file and of meta.json's own fields, and the content hash
 *
 * Integrity: every byte is checked against a CRC-32 before a result depends on it. The arrays
 * (everything a ranking reads) are read whole at open and their CRCs checked there (one of the two
 * large ones on a second thread), so a changed byte is refused before any search or eval.
 * texts.bin, half the bytes, is never loaded: each read of a hit covers whole 4 KiB blocks and
 * checks them against texts-blocks.crc32 (itself checked at open) before the text is returned, on
 * every read, so a byte changed even after open is refused too. contentHash is a sha256 over the
 * settings and every file's sha256, computed when the index is built, and is what run manifests
 * record: with the CRCs, it names the content the results came from.
 */

export const INDEX_FORMAT = "agent-lab-bm25";
/** Bump when the layout or the scoring changes: older folders are refused with a rebuild hint. */
export const INDEX_VERSION = 4;

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
  docIds: "doc-ids.f64",
  textOffsets: "text-offsets.f64",
  texts: "texts.bin",
  textBlocks: "texts-blocks.crc32",
} as const;
export type IndexFile = keyof typeof FILES;

/** Written last: an index folder without it is incomplete. */
export const META_FILE = "meta.json";

/** Windows of 64 consecutive document numbers: tight bounds (a window holds few postings of any one term), ~8 KB per long list at 507k paragraphs. */
export const WINDOW_SHIFT = 6;

export function windowCount(documents: number): number {
  return Math.ceil(documents / (1 << WINDOW_SHIFT));
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
  /** sha256 over the settings and every data file, for run manifests. */
  contentHash: string;
  /** Byte size of each data file, checked at load to catch truncated or mixed-up folders. */
  bytes: Record<IndexFile, number>;
  /** CRC-32 of each data file (8 hex digits), checked at load. */
  crc32: Record<IndexFile, string>;
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
