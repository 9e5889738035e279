/**
 * A loaded BM25 index: typed-array views over Buffers read from the index folder (outside the JS
 * heap), a binary-searched vocabulary, and top-k search pruned by window block maxima (window-top-k.ts).
 *
 * Scores equal bm25s's (lucene variant) bit for bit: per-posting float32 contributions, summed in
 * float32 in query-word order. Pruning only decides which documents get that exact sum computed;
 * ties are broken by document number, so the result equals exhaustive scoring (searchExhaustive).
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { UserError } from "../errors";
import {
  FILES,
  INDEX_FORMAT,
  INDEX_VERSION,
  META_FILE,
  crcHex,
  hasWindows,
  metaText,
  termHash,
  vocabHashSlots,
  windowCount,
  type IndexFile,
  type IndexMeta,
} from "./bm25-format";
import type { SearchHit, Searcher } from "./searcher";
import { ENGLISH_STOPWORDS, TermTokenizer } from "./tokenizer";
import { BLOCK_SIZE, blockCount, blocksMatch } from "./block-crc";
import { readOnWorker, type PendingRead } from "./read-on-worker";
import { WindowTopK } from "./window-top-k";

const REBUILD = 'run "agent-lab index" to build it';
const REBUILD_AGAIN = 'rebuild it with "agent-lab index"';

export function openIndex(indexDir: string): Bm25Searcher {
  return new Bm25Searcher(indexDir);
}

/** The one-line refusal for a data file whose bytes changed since the index was built. */
export function corruptFileMessage(file: string): string {
  return `search index file ${file} is corrupt (its CRC-32 differs from the one recorded when the index was built): ${REBUILD_AGAIN}`;
}

export class Bm25Searcher implements Searcher {
  readonly meta: IndexMeta;
  private readonly vocab: Buffer;
  private readonly vocabOffsets: Uint32Array;
  private readonly vocabHash: Uint32Array;
  private readonly postingOffsets: Uint32Array;
  private readonly docs: Uint32Array;
  private readonly scores: Float32Array;
  private readonly termMax: Float32Array;
  /** The pruned top-k search over the arrays (window-max.u8 included). */
  private readonly topK: WindowTopK;
  private readonly docIds: Float64Array;
  private readonly textOffsets: Float64Array;
  /** texts.bin stays on disk: a search reads only its k hits (keeps load time and memory down). */
  private textsFd: number | undefined;
  /** CRC-32 of every 4 KiB block of texts.bin, checked on each read. */
  private readonly textBlocks: Uint32Array;
  /** The blocks of the hit being read (paragraph()). */
  private scratch = Buffer.allocUnsafe(4 * BLOCK_SIZE);
  private readonly tokenizer = new TermTokenizer();
  /** A term's UTF-8 bytes while it is looked up. */
  private termBytes = new Uint8Array(256);
  /** Query terms already looked up (research sessions repeat words). */
  private readonly rowCache = new Map<string, number>();
  constructor(readonly indexDir: string) {
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
    this.meta = meta;
    const N = meta.documents;
    const V = meta.terms;
    const P = meta.postings;
    const expected: Record<Exclude<IndexFile, "windowMax" | "windowStart">, number> = {
      vocab: meta.bytes?.vocab,
      vocabOffsets: 4 * (V + 1),
      vocabHash: 4 * vocabHashSlots(V),
      postingOffsets: 4 * (V + 1),
      postingDocs: 4 * P,
      postingScores: 4 * P,
      termMax: 4 * V,
      docIds: 8 * N,
      textOffsets: 8 * (2 * N + 1),
      texts: meta.bytes?.texts,
      textBlocks: 4 * blockCount(meta.bytes?.texts),
    };
    // postings-scores.f32 (one of the two large arrays), window-start.u32 and vocab-hash.u32 are
    // read and checked on another thread while this one reads and checks the rest, and taken
    // last. window-start.u32's size needs the window rows (found from the offsets), so its read
    // takes the size meta.json records; load() then checks it against the rows.
    const [scoresRead, windowStartRead, vocabHashRead] = readOnWorker([
      { file: join(indexDir, FILES.postingScores), size: expected.postingScores },
      { file: join(indexDir, FILES.windowStart), size: meta.bytes?.windowStart },
      { file: join(indexDir, FILES.vocabHash), size: expected.vocabHash },
    ]);
    const load = (key: Exclude<IndexFile, "texts">, size: number, pending?: PendingRead): Buffer => {
      const file = join(indexDir, FILES[key]);
      const done = pending?.result();
      let buf: Buffer;
      try {
        buf = done?.bytes ?? readFileSync(file);
      } catch (e) {
        throw new UserError(
          `search index ${indexDir} is incomplete (${FILES[key]}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${REBUILD_AGAIN}`,
        );
      }
      if (buf.length !== size || buf.length !== meta.bytes?.[key]) {
        throw new UserError(
          `search index file ${file} is corrupt (${buf.length} bytes, expected ${size}): ${REBUILD_AGAIN}`,
        );
      }
      if (crcHex(done?.crc ?? crc32(buf)) !== meta.crc32?.[key]) throw new UserError(corruptFileMessage(file));
      return buf;
    };
    this.vocab = load("vocab", expected.vocab);
    this.vocabOffsets = view(load("vocabOffsets", expected.vocabOffsets), Uint32Array);
    this.postingOffsets = view(load("postingOffsets", expected.postingOffsets), Uint32Array);
    this.docs = view(load("postingDocs", expected.postingDocs), Uint32Array);
    this.termMax = view(load("termMax", expected.termMax), Float32Array);
    this.docIds = view(load("docIds", expected.docIds), Float64Array);
    this.textOffsets = view(load("textOffsets", expected.textOffsets), Float64Array);
    this.textBlocks = view(load("textBlocks", expected.textBlocks), Uint32Array);
    // Last: by now the other thread is about done with this file's CRC.
    this.scores = view(load("postingScores", expected.postingScores, scoresRead), Float32Array);
    this.vocabHash = view(load("vocabHash", expected.vocabHash, vocabHashRead), Uint32Array);
    if (
      this.postingOffsets[V] !== P ||
      this.vocabOffsets[V] !== this.vocab.length ||
      this.textOffsets[2 * N] !== meta.bytes?.texts
    ) {
      throw new UserError(
        `search index ${indexDir} is corrupt (offsets do not match the data files): ${REBUILD_AGAIN}`,
      );
    }
    const windows = windowCount(N);
    const windowed: number[] = [];
    for (let r = 0; r < V; r++)
      if (hasWindows(this.postingOffsets[r + 1] - this.postingOffsets[r], windows)) windowed.push(r);
    const windowMax = view(load("windowMax", windowed.length * windows), Uint8Array);
    const windowStart = view(load("windowStart", 4 * windowed.length * (windows + 1), windowStartRead), Uint32Array);
    this.textsFd = this.openTexts(meta.bytes?.texts);
    this.topK = new WindowTopK({
      postingOffsets: this.postingOffsets,
      docs: this.docs,
      scores: this.scores,
      termMax: this.termMax,
      windowMax,
      windowedRows: Uint32Array.from(windowed),
      windows,
      windowStart,
    });
  }

  /** Opens texts.bin and checks its size (its bytes are checked block by block as they are read: paragraph()). */
  private openTexts(size: number): number {
    const file = join(this.indexDir, FILES.texts);
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (e) {
      throw new UserError(
        `search index ${this.indexDir} is incomplete (${FILES.texts}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${REBUILD_AGAIN}`,
      );
    }
    try {
      const bytes = fstatSync(fd).size;
      if (bytes !== size)
        throw new UserError(
          `search index file ${file} is corrupt (${bytes} bytes, expected ${size}): ${REBUILD_AGAIN}`,
        );
      return fd;
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

  /** Documents the last pruned search scored exactly (exhaustive scoring scores every matching one). */
  get lastScored(): number {
    return this.topK.scored;
  }

  /** Same ranking without pruning: every posting of every query term is added up (tests, benchmarks). */
  searchExhaustive(query: string, k: number): SearchHit[] {
    return this.hits(this.topDocs(query, k, false), k);
  }

  /**
   * The paragraph stored for document number `doc` (0-based row of the corpus). Reads the whole
   * 4 KiB blocks it lies in and checks their CRCs first, on every call: no byte of texts.bin
   * reaches a caller unchecked, even one changed on disk after open.
   */
  paragraph(doc: number): { id: number; title: string; text: string } {
    if (this.textsFd === undefined) throw new Error(`search index ${this.indexDir} was closed`);
    const o = this.textOffsets;
    const start = o[2 * doc];
    const end = o[2 * doc + 2];
    const first = Math.floor(start / BLOCK_SIZE);
    const from = first * BLOCK_SIZE;
    const to = Math.min(Math.max(Math.ceil(end / BLOCK_SIZE), first + 1) * BLOCK_SIZE, this.meta.bytes.texts);
    if (this.scratch.length < to - from) this.scratch = Buffer.allocUnsafe(2 * (to - from));
    const bytes = this.scratch.subarray(0, to - from); // reused: a fresh 4-8 KiB buffer per hit costs more than its read
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(this.textsFd, bytes, got, bytes.length - got, from + got);
      if (n === 0)
        throw new UserError(`search index ${this.indexDir} is corrupt (${FILES.texts} ends early): ${REBUILD} again`);
      got += n;
    }
    if (!blocksMatch(bytes, first, this.textBlocks))
      throw new UserError(corruptFileMessage(join(this.indexDir, FILES.texts)));
    const split = o[2 * doc + 1] - from;
    return {
      id: this.docIds[doc],
      title: bytes.toString("utf8", start - from, split),
      text: bytes.toString("utf8", split, end - from),
    };
  }

  /** Releases the open texts file (the arrays go with the object). */
  close(): void {
    if (this.textsFd !== undefined) closeSync(this.textsFd);
    this.textsFd = undefined;
  }

  /** Row of a stemmed term in the vocabulary, or -1 (vocab-hash.u32, then its bytes compared; cached). */
  termRow(term: string): number {
    const cached = this.rowCache.get(term);
    if (cached !== undefined) return cached;
    if (this.termBytes.length < 3 * term.length) this.termBytes = new Uint8Array(6 * term.length);
    const n = textEncoder.encodeInto(term, this.termBytes).written;
    const table = this.vocabHash;
    const mask = table.length - 1;
    const off = this.vocabOffsets;
    let row = -1;
    for (let h = termHash(this.termBytes, 0, n) & mask; table[h] !== 0; h = (h + 1) & mask) {
      const r = table[h] - 1;
      if (sameBytes(this.vocab, off[r], off[r + 1], this.termBytes, n)) {
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
    return this.topK.top(rows, k);
  }

  /**
   * The reference: every posting of every query word added into a dense float32 array in query
   * order (as bm25s does), then the best k by (score desc, doc asc). No pruning, no shortcuts.
   */
  private exhaustiveTop(rows: number[], k: number): { doc: number; score: number }[] {
    const sums = new Float32Array(this.meta.documents);
    for (const r of rows) {
      for (let p = this.postingOffsets[r], e = this.postingOffsets[r + 1]; p < e; p++)
        sums[this.docs[p]] += this.scores[p];
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

const textEncoder = new TextEncoder();

/** Whether vocab[start, end) equals target[0, n) (a loop: a native call's checks cost more than the few bytes). */
function sameBytes(vocab: Uint8Array, start: number, end: number, target: Uint8Array, n: number): boolean {
  if (end - start !== n) return false;
  for (let i = 0; i < n; i++) if (vocab[start + i] !== target[i]) return false;
  return true;
}

function view<T>(
  buf: Buffer,
  ctor: { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number },
): T {
  const width = ctor.BYTES_PER_ELEMENT;
  if (buf.byteOffset % width !== 0) {
    // readFileSync may hand back a pooled, unaligned slice for small files: copy it once.
    const copy = new ArrayBuffer(buf.length);
    new Uint8Array(copy).set(buf);
    return new ctor(copy, 0, buf.length / width);
  }
  return new ctor(buf.buffer as ArrayBuffer, buf.byteOffset, buf.length / width);
}
