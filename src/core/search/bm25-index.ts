/**
 * A loaded BM25 index: typed-array views over Buffers read from the index folder (outside the JS
 * heap), a binary-searched vocabulary, and top-k search with MaxScore-style pruning.
 *
 * Scores equal bm25s's (lucene variant) bit for bit: per-posting float32 contributions, summed in
 * float32 in query-word order. Pruning only decides which documents get that exact sum computed;
 * ties are broken by document number, so the result equals exhaustive scoring (searchExhaustive).
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { crc32 } from "node:zlib";
import { UserError } from "../errors";
import {
  FILES,
  INDEX_FORMAT,
  INDEX_VERSION,
  WINDOW_SHIFT,
  crcHex,
  hasWindows,
  metaText,
  windowCount,
  type IndexFile,
  type IndexMeta,
} from "./bm25-format";
import type { SearchHit, Searcher } from "./searcher";
import { ENGLISH_STOPWORDS, TermTokenizer } from "./tokenizer";

/** A module-local copy: an imported binding is a property read per use under tsx/CommonJS, which shows in the hot loops. */
const SHIFT = WINDOW_SHIFT;

const REBUILD = 'run "agent-lab index" to build it';
const REBUILD_AGAIN = 'rebuild it with "agent-lab index"';

export function openIndex(indexDir: string): Bm25Searcher {
  return new Bm25Searcher(indexDir);
}

/** The one-line refusal for a data file whose bytes changed since the index was built. */
export function corruptFileMessage(file: string): string {
  return `search index file ${file} is corrupt (its CRC-32 differs from the one recorded when the index was built): ${REBUILD_AGAIN}`;
}

/** One query term: its position in the postings and how many times the query says it. */
interface QueryTerm {
  row: number;
  start: number;
  end: number;
  weight: number;
  upper: number;
}

export class Bm25Searcher implements Searcher {
  readonly meta: IndexMeta;
  private readonly vocab: Buffer;
  private readonly vocabOffsets: Uint32Array;
  private readonly postingOffsets: Uint32Array;
  private readonly docs: Uint32Array;
  private readonly scores: Float32Array;
  private readonly termMax: Float32Array;
  /** Per-window block maxima (bytes) of the long lists, one row of `windows` bytes per windowed term. */
  private readonly windowMax: Uint8Array;
  /** Ascending vocabulary rows that have a window row (the i-th has row i of windowMax). */
  private readonly windowedRows: Uint32Array;
  private readonly windows: number;
  private readonly docIds: Float64Array;
  private readonly textOffsets: Float64Array;
  /** texts.bin stays on disk: a search reads only its k hits (keeps load time and memory down). */
  private textsFd: number | undefined;
  private readonly tokenizer = new TermTokenizer();
  /** Query terms already looked up (research sessions repeat words). */
  private readonly rowCache = new Map<string, number>();
  /** Per-document partial sums, reused across queries (reset after each). */
  private readonly acc: Float64Array;
  private readonly touched: Uint32Array;
  /** Scratch list of surviving candidates (no per-query allocation: garbage collection shows in p99). */
  private readonly scratch: Uint32Array;
  /** Per-window upper bound of what the query terms not yet added can still contribute. */
  private readonly bound: Float64Array;

  constructor(readonly indexDir: string) {
    const metaFile = join(indexDir, "meta.json");
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
      throw new UserError(`search index ${indexDir} has format version ${meta.version}, this Agent Lab reads version ${INDEX_VERSION}: ${REBUILD_AGAIN}`);
    }
    // meta.json checks itself: its text must be exactly what the builder wrote for these fields
    // (catches changed layout bytes) and its fields must match their CRC (catches changed values).
    const { metaCrc32, ...fields } = meta;
    if (metaText(meta) !== metaRaw || crcHex(crc32(metaText(fields))) !== metaCrc32) throw new UserError(corruptFileMessage(metaFile));
    this.meta = meta;
    const N = meta.documents;
    const V = meta.terms;
    const P = meta.postings;
    const expected: Record<Exclude<IndexFile, "windowMax">, number> = {
      vocab: meta.bytes?.vocab,
      vocabOffsets: 4 * (V + 1),
      postingOffsets: 4 * (V + 1),
      postingDocs: 4 * P,
      postingScores: 4 * P,
      termMax: 4 * V,
      docIds: 8 * N,
      textOffsets: 8 * (2 * N + 1),
      texts: meta.bytes?.texts,
    };
    // texts.bin (about half the bytes) is read and checked on another thread while this one loads
    // and checks the arrays: load time is what the slower of the two takes, not their sum.
    const textsCheck = startCrc(join(indexDir, FILES.texts));
    const load = (key: Exclude<IndexFile, "texts">, size: number): Buffer => {
      const file = join(indexDir, FILES[key]);
      let buf: Buffer;
      try {
        buf = readFileSync(file);
      } catch (e) {
        throw new UserError(`search index ${indexDir} is incomplete (${FILES[key]}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${REBUILD_AGAIN}`);
      }
      if (buf.length !== size || buf.length !== meta.bytes?.[key]) {
        throw new UserError(`search index file ${file} is corrupt (${buf.length} bytes, expected ${size}): ${REBUILD_AGAIN}`);
      }
      if (crcHex(crc32(buf)) !== meta.crc32?.[key]) throw new UserError(corruptFileMessage(file));
      return buf;
    };
    this.vocab = load("vocab", expected.vocab);
    this.vocabOffsets = view(load("vocabOffsets", expected.vocabOffsets), Uint32Array);
    this.postingOffsets = view(load("postingOffsets", expected.postingOffsets), Uint32Array);
    this.docs = view(load("postingDocs", expected.postingDocs), Uint32Array);
    this.scores = view(load("postingScores", expected.postingScores), Float32Array);
    this.termMax = view(load("termMax", expected.termMax), Float32Array);
    this.docIds = view(load("docIds", expected.docIds), Float64Array);
    this.textOffsets = view(load("textOffsets", expected.textOffsets), Float64Array);
    if (this.postingOffsets[V] !== P || this.vocabOffsets[V] !== this.vocab.length || this.textOffsets[2 * N] !== meta.bytes?.texts) {
      throw new UserError(`search index ${indexDir} is corrupt (offsets do not match the data files): ${REBUILD_AGAIN}`);
    }
    this.windows = windowCount(N);
    const windowed: number[] = [];
    for (let r = 0; r < V; r++) if (hasWindows(this.postingOffsets[r + 1] - this.postingOffsets[r], this.windows)) windowed.push(r);
    this.windowedRows = Uint32Array.from(windowed);
    this.windowMax = view(load("windowMax", windowed.length * this.windows), Uint8Array);
    this.textsFd = this.openTexts(meta.bytes?.texts, meta.crc32?.texts, textsCheck);
    this.acc = new Float64Array(N);
    this.touched = new Uint32Array(N);
    this.scratch = new Uint32Array(N);
    this.bound = new Float64Array(this.windows);
  }

  /** Opens texts.bin and checks its size and CRC (read through once, in chunks: it is not kept in memory). */
  private openTexts(size: number, crc: string, check: PendingCrc): number {
    const file = join(this.indexDir, FILES.texts);
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (e) {
      throw new UserError(`search index ${this.indexDir} is incomplete (${FILES.texts}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${REBUILD_AGAIN}`);
    }
    try {
      const bytes = fstatSync(fd).size;
      if (bytes !== size) throw new UserError(`search index file ${file} is corrupt (${bytes} bytes, expected ${size}): ${REBUILD_AGAIN}`);
      const value = check.result() ?? crcOfFile(fd, bytes);
      if (crcHex(value) !== crc) throw new UserError(corruptFileMessage(file));
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

  /** Same ranking without pruning: every posting of every query term is added up (tests, benchmarks). */
  searchExhaustive(query: string, k: number): SearchHit[] {
    return this.hits(this.topDocs(query, k, false), k);
  }

  /** The paragraph stored for document number `doc` (0-based row of the corpus). */
  paragraph(doc: number): { id: number; title: string; text: string } {
    if (this.textsFd === undefined) throw new Error(`search index ${this.indexDir} was closed`);
    const o = this.textOffsets;
    const start = o[2 * doc];
    const bytes = Buffer.allocUnsafe(o[2 * doc + 2] - start);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(this.textsFd, bytes, got, bytes.length - got, start + got);
      if (n === 0) throw new UserError(`search index ${this.indexDir} is corrupt (${FILES.texts} ends early): ${REBUILD} again`);
      got += n;
    }
    const split = o[2 * doc + 1] - start;
    return { id: this.docIds[doc], title: bytes.toString("utf8", 0, split), text: bytes.toString("utf8", split) };
  }

  /** Releases the open texts file (the arrays go with the object). */
  close(): void {
    if (this.textsFd !== undefined) closeSync(this.textsFd);
    this.textsFd = undefined;
  }

  /** Row of a stemmed term in the vocabulary, or -1 (binary search over the UTF-8 bytes, cached). */
  termRow(term: string): number {
    const cached = this.rowCache.get(term);
    if (cached !== undefined) return cached;
    const target = Buffer.from(term, "utf8");
    const off = this.vocabOffsets;
    let lo = 0;
    let hi = this.meta.terms - 1;
    let row = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.vocab.compare(target, 0, target.length, off[mid], off[mid + 1]);
      if (c === 0) {
        row = mid;
        break;
      }
      if (c > 0) hi = mid - 1; // the vocabulary entry sorts after the target
      else lo = mid + 1;
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
    return this.exactTop(rows, this.candidates(rows, k), k);
  }

  /**
   * The reference: every posting of every query word added into a dense float32 array in query
   * order (as bm25s does), then the best k by (score desc, doc asc). No pruning, no shortcuts.
   */
  private exhaustiveTop(rows: number[], k: number): { doc: number; score: number }[] {
    const sums = new Float32Array(this.meta.documents);
    for (const r of rows) {
      for (let p = this.postingOffsets[r], e = this.postingOffsets[r + 1]; p < e; p++) sums[this.docs[p]] += this.scores[p];
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

  /**
   * MaxScore pruning with block maxima. Terms are visited in falling order of their upper bound
   * (weight × the term's largest contribution). Until the k-th best is known to beat everything the
   * remaining terms could add, a term's whole posting list is added (OR phase). Once a lower bound
   * of the k-th best final score exists (`floor`) and a long list comes up, the remaining terms'
   * block maxima are summed per window of documents (`bound`): a document first met in a list is
   * then only admitted if its contribution plus the window's bound can still reach the floor, and
   * the OR phase ends as soon as no window can. From then on the remaining (common, long) lists are
   * only probed for the candidates, by galloping search or one pass, and after each list the
   * candidates that can no longer reach the k-th best (partial sum + their window's bound) are dropped.
   */
  private candidates(rows: number[], k: number): Uint32Array {
    const weights = new Map<number, number>();
    for (const r of rows) weights.set(r, (weights.get(r) ?? 0) + 1);
    const terms: QueryTerm[] = [...weights].map(([r, w]) => ({
      row: r,
      start: this.postingOffsets[r],
      end: this.postingOffsets[r + 1],
      weight: w,
      upper: w * this.termMax[r],
    }));
    terms.sort((a, b) => b.upper - a.upper);
    const rest = new Float64Array(terms.length + 1);
    for (let i = terms.length - 1; i >= 0; i--) rest[i] = rest[i + 1] + terms[i].upper;

    const { acc, touched, docs, scores } = this;
    let n = 0;
    let i = 0;
    /** A proven lower bound of the k-th best final score (0 = none yet). */
    let floor = 0;
    /** Whether `bound` holds the window bounds of terms[i..]. */
    let windowed = false;
    /** Whether floor was just set from the documents seen so far (then at least their k-th best partial sum). */
    let fresh = false;
    try {
      // OR phase.
      for (; i < terms.length; i++) {
        const t = terms[i];
        const length = t.end - t.start;
        // Checking costs a pass over the documents seen so far; it pays when this list is long.
        fresh = n >= k && i > 0 && length >= n >> 1;
        if (fresh) floor = Math.max(floor, this.kthFullScore(touched, n, k, terms, i));
        if (floor - slack(floor) > rest[i]) break;
        if (!windowed && floor > 0 && length >= this.windows) {
          this.fillBounds(terms, i);
          windowed = true;
        }
        if (windowed) {
          // Checking costs a pass over the windows; it pays before a list at least that long.
          if (length >= this.windows && floor - slack(floor) > maxOf(this.bound)) break;
          this.addBounds(t, -1); // now the bounds of terms[i+1..]
          n = addListAdmitting(acc, touched, n, docs, scores, t.start, t.end, t.weight, this.bound, floor - slack(floor));
        } else {
          n = addList(acc, touched, n, docs, scores, t.start, t.end, t.weight);
        }
      }
      // Survivors are compacted in place into the scratch list; the result is copied out small.
      const cand = this.scratch;
      cand.set(touched.subarray(0, n));
      let m = n;
      if (i < terms.length) {
        // Probe phase: only seen documents can still make the top k.
        if (!fresh) floor = Math.max(floor, kthLargest(acc, cand, m, k));
        if (!windowed && m > PROBE_WINDOWS_FROM) {
          this.fillBounds(terms, i);
          windowed = true;
        }
        m = keepReachable(acc, cand, m, floor, rest[i], windowed ? this.bound : null, k);
        let sorted = false;
        for (; i < terms.length && m > 0; i++) {
          const t = terms[i];
          if (16 * m < t.end - t.start) {
            // Few candidates, long list: binary-search the list for each candidate (in doc order).
            if (!sorted) cand.subarray(0, m).sort();
            sorted = true;
            probeList(acc, cand, m, docs, scores, t.start, t.end, t.weight);
          } else {
            // Many candidates: one pass over the list, adding only where a candidate's sum is live.
            addToLive(acc, docs, scores, t.start, t.end, t.weight);
          }
          // The k-th best partial sum from before this list is still a valid (slightly lower) bar:
          // sums only grow. Saves a pass per list; the final prune below uses the exact one.
          floor = Math.max(floor, KTH.value);
          if (windowed && m * (terms.length - i) > this.windows) {
            this.addBounds(t, -1);
            m = keepReachable(acc, cand, m, floor, rest[i + 1], this.bound, k);
          } else if (m > k) {
            // Few candidates left: their own windows' bounds cost less than updating every window.
            windowed = false;
            m = this.keepReachableByWindows(cand, m, floor, terms, i + 1, k);
          }
        }
      }
      m = keepReachable(acc, cand, m, Math.max(floor, kthLargest(acc, cand, m, k)), 0, null, k);
      return cand.slice(0, m);
    } finally {
      for (let j = 0; j < n; j++) acc[touched[j]] = 0;
    }
  }

  /**
   * keepReachable with each candidate's own bound: the block maxima of terms[from..] in its window
   * (upper bounds for terms without window rows). Costs candidates × terms, no pass over windows.
   */
  private keepReachableByWindows(cand: Uint32Array, m: number, kth: number, terms: QueryTerm[], from: number, k: number): number {
    let fixed = 0;
    const bases: number[] = [];
    const units: number[] = [];
    for (let j = from; j < terms.length; j++) {
      const slot = windowSlot(this.windowedRows, terms[j].row);
      if (slot < 0) fixed += terms[j].upper;
      else {
        bases.push(slot * this.windows);
        units.push(terms[j].upper / 255);
      }
    }
    const { acc, windowMax } = this;
    const bar = kth - slack(kth) - fixed;
    const best = KTH.scratch(k);
    let kept = 0;
    for (let c = 0; c < m; c++) {
      const d = cand[c];
      const v = acc[d];
      const w = d >>> SHIFT;
      let b = v;
      for (let j = 0; j < bases.length; j++) b += windowMax[bases[j] + w] * units[j];
      if (b >= bar) {
        cand[kept++] = d;
        if (v > best[0]) insertAscending(best, k, v);
      } else acc[d] = 0; // out for good: addToLive skips it
    }
    KTH.value = kept >= k ? best[0] : 0;
    return kept;
  }

  /** bound := per-window upper bounds of what terms[from..] can add to a document of that window. */
  private fillBounds(terms: QueryTerm[], from: number): void {
    this.bound.fill(0);
    for (let j = from; j < terms.length; j++) this.addBounds(terms[j], 1);
  }

  /**
   * Adds (sign 1) or removes (sign −1) one term's window bounds: its stored block maxima for long
   * lists, its upper bound on every window it has a posting in for short ones. Both directions add
   * the same numbers, so removing leaves at most rounding dust (covered by slack()).
   */
  private addBounds(t: QueryTerm, sign: 1 | -1): void {
    const bound = this.bound;
    const slot = windowSlot(this.windowedRows, t.row);
    if (slot >= 0) {
      const W = this.windows;
      const q = this.windowMax;
      const base = slot * W;
      const unit = (sign * t.upper) / 255;
      for (let w = 0; w < W; w++) {
        const v = q[base + w];
        if (v !== 0) bound[w] += v * unit;
      }
    } else {
      const v = sign * t.upper;
      const docs = this.docs;
      let last = -1;
      for (let p = t.start; p < t.end; p++) {
        const w = docs[p] >>> SHIFT;
        if (w !== last) {
          bound[w] += v;
          last = w;
        }
      }
    }
  }

  /**
   * A lower bound of the k-th best final score: the best few partial sums completed with the
   * remaining terms (probed by binary search). Much tighter than the partial sums alone, so the
   * switch to probing comes after far fewer long lists.
   */
  private kthFullScore(list: Uint32Array, n: number, k: number, terms: QueryTerm[], from: number): number {
    const top = topDocs(this.acc, list, n, k + 8);
    const full = top.map((d) => {
      let s = this.acc[d];
      for (let j = from; j < terms.length; j++) {
        const t = terms[j];
        const p = gallop(this.docs, t.start, t.end, d);
        if (p < t.end && this.docs[p] === d) s += t.weight * this.scores[p];
      }
      return s;
    });
    full.sort((a, b) => b - a);
    return full.length >= k ? full[k - 1] : 0;
  }

  /** Exact float32 scores in query order for the candidates; best k by (score desc, doc asc). */
  private exactTop(rows: number[], cand: Uint32Array, k: number): { doc: number; score: number }[] {
    const out: { doc: number; score: number }[] = [];
    for (const d of cand) {
      let s = 0;
      for (const r of rows) {
        const p = gallop(this.docs, this.postingOffsets[r], this.postingOffsets[r + 1], d);
        if (p < this.postingOffsets[r + 1] && this.docs[p] === d) s = Math.fround(s + this.scores[p]);
      }
      out.push({ doc: d, score: s });
    }
    out.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return out.slice(0, k);
  }
}

/** CRC-32 of a whole open file, read in 8 MiB chunks. */
function crcOfFile(fd: number, bytes: number): number {
  const chunk = Buffer.allocUnsafe(Math.min(Math.max(bytes, 1), 8 << 20));
  let value = 0;
  for (let at = 0; at < bytes; ) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, bytes - at), at);
    if (n === 0) break; // shorter than its size said: the CRC will not match
    value = crc32(chunk.subarray(0, n), value);
    at += n;
  }
  return value;
}

interface PendingCrc {
  /** Blocks until the other thread is done; undefined when it could not do the job (then do it here). */
  result(): number | undefined;
}

/** Plain JavaScript (no TypeScript, no imports of ours) so it runs the same from source, tests and the bundle. */
const CRC_WORKER = `
const { workerData } = require("node:worker_threads");
const { openSync, readSync, closeSync } = require("node:fs");
const { crc32 } = require("node:zlib");
const state = new Int32Array(workerData.shared);
try {
  const fd = openSync(workerData.file, "r");
  const chunk = Buffer.allocUnsafe(8 << 20);
  let value = 0;
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    value = crc32(chunk.subarray(0, n), value);
  }
  closeSync(fd);
  state[1] = value | 0;
  Atomics.store(state, 0, 1);
} catch (e) {
  Atomics.store(state, 0, 2);
}
Atomics.notify(state, 0);
`;

/** Starts computing a file's CRC-32 on a worker thread; result() waits for it (Atomics.wait, so open stays synchronous). */
function startCrc(file: string): PendingCrc {
  const shared = new SharedArrayBuffer(8);
  const state = new Int32Array(shared);
  let worker: Worker;
  try {
    // execArgv: [] keeps loader hooks of the parent (tsx in tests and benchmarks) out of this small worker.
    worker = new Worker(CRC_WORKER, { eval: true, workerData: { file, shared }, execArgv: [] });
  } catch (e) {
    // No worker threads here (e.g. a restricted host): the caller computes the CRC itself.
    void e;
    return { result: () => undefined };
  }
  worker.unref();
  worker.on("error", () => {
    // Reported through state (the worker sets 2, or never finishes and the wait times out).
  });
  return {
    result: () => {
      // Bounded: a worker that died before starting cannot report it while this thread waits.
      Atomics.wait(state, 0, 0, 20_000);
      return Atomics.load(state, 0) === 1 ? state[1] >>> 0 : undefined;
    },
  };
}

/** Candidates above which the probe phase sums window bounds (a pass per remaining term) to prune them. */
const PROBE_WINDOWS_FROM = 256;

/** Room for float rounding: partial sums are float64 in another order than the exact float32 sum. */
function slack(x: number): number {
  return 1e-5 * Math.abs(x) + 1e-9;
}

/** OR step: adds a whole posting list, recording first-seen documents; returns the new count. */
function addList(acc: Float64Array, touched: Uint32Array, n: number, docs: Uint32Array, scores: Float32Array, start: number, end: number, weight: number): number {
  for (let p = start; p < end; p++) {
    const d = docs[p];
    if (acc[d] === 0) touched[n++] = d;
    acc[d] += weight * scores[p];
  }
  return n;
}

/**
 * OR step once window bounds exist: adds a whole posting list to the documents already seen, and
 * admits a new document only if its contribution plus its window's bound (what the terms after
 * this one can add) reaches `bar`. A document turned away here can never reach the top k, and it
 * is not admitted by a later list either (its later bounds are smaller), so its sum stays exact.
 */
function addListAdmitting(acc: Float64Array, touched: Uint32Array, n: number, docs: Uint32Array, scores: Float32Array, start: number, end: number, weight: number, bound: Float64Array, bar: number): number {
  for (let p = start; p < end; p++) {
    const d = docs[p];
    const a = acc[d];
    const s = weight * scores[p];
    if (a !== 0) acc[d] = a + s;
    else if (s + bound[d >>> SHIFT] >= bar) {
      acc[d] = s;
      touched[n++] = d;
    }
  }
  return n;
}

/** Row of windowMax for a vocabulary row, or -1 (binary search over the few windowed rows). */
function windowSlot(rows: Uint32Array, row: number): number {
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

function maxOf(xs: Float64Array): number {
  let m = 0;
  for (let j = 0; j < xs.length; j++) if (xs[j] > m) m = xs[j];
  return m;
}

/** Adds a posting list to documents that are still candidates (pruned ones have acc reset to 0). */
function addToLive(acc: Float64Array, docs: Uint32Array, scores: Float32Array, start: number, end: number, weight: number): void {
  for (let p = start; p < end; p++) {
    const d = docs[p];
    const a = acc[d];
    if (a !== 0) acc[d] = a + weight * scores[p];
  }
}

/** Probe step: adds a posting list's scores for the (ascending) candidates only, by galloping search. */
function probeList(acc: Float64Array, cand: Uint32Array, m: number, docs: Uint32Array, scores: Float32Array, start: number, end: number, weight: number): void {
  let p = start;
  for (let c = 0; c < m && p < end; c++) {
    const d = cand[c];
    p = gallop(docs, p, end, d);
    if (p < end && docs[p] === d) acc[d] += weight * scores[p];
  }
}

/**
 * Keeps (in place, order kept) the first m candidates whose partial sum plus what is left could
 * still reach `kth` (the window's bound when given, else `rest` for all), and zeroes the sums of the
 * others; returns how many remain. Only called once no new document can enter (after the OR
 * phase), so a zero sum then means "pruned".
 */
function keepReachable(acc: Float64Array, cand: Uint32Array, m: number, kth: number, rest: number, bound: Float64Array | null, k: number): number {
  // Also tracks the k-th largest sum among the kept ones (KTH.value), for the next round's bar.
  const best = KTH.scratch(k);
  let kept = 0;
  if (bound !== null) {
    const bar = kth - slack(kth);
    for (let j = 0; j < m; j++) {
      const d = cand[j];
      const v = acc[d];
      if (v + bound[d >>> SHIFT] >= bar) {
        cand[kept++] = d;
        if (v > best[0]) insertAscending(best, k, v);
      } else acc[d] = 0; // out for good: addToLive skips it
    }
    KTH.value = kept >= k ? best[0] : 0;
    return kept;
  }
  const bar = kth - slack(kth) - rest;
  for (let j = 0; j < m; j++) {
    const d = cand[j];
    const v = acc[d];
    if (v >= bar) {
      cand[kept++] = d;
      if (v > best[0]) insertAscending(best, k, v);
    } else acc[d] = 0; // out for good: addToLive skips it
  }
  KTH.value = kept >= k ? best[0] : 0;
  return kept;
}

/** Shared scratch for k-th-largest tracking (searches are synchronous, so one is enough). */
const KTH = {
  value: 0,
  buffer: new Float64Array(64),
  scratch(k: number): Float64Array {
    if (this.buffer.length < k) this.buffer = new Float64Array(2 * k);
    this.buffer.fill(0, 0, k);
    return this.buffer;
  },
};

/** Up to m documents of the list with the largest acc. */
function topDocs(acc: Float64Array, list: Uint32Array, n: number, m: number): number[] {
  const best: number[] = []; // descending by acc
  const value: number[] = [];
  let low = -1; // acc of the m-th best once there are m (skips most documents with one compare)
  for (let j = 0; j < n; j++) {
    const v = acc[list[j]];
    if (v <= low) continue;
    let at = best.length === m ? m - 1 : best.length;
    while (at > 0 && value[at - 1] < v) {
      best[at] = best[at - 1];
      value[at] = value[at - 1];
      at--;
    }
    best[at] = list[j];
    value[at] = v;
    if (best.length === m) low = value[m - 1];
  }
  return best;
}

/** k-th largest of acc over the listed documents (0 when fewer than k). */
function kthLargest(acc: Float64Array, list: Uint32Array, n: number, k: number): number {
  if (n < k) return 0;
  const best = KTH.scratch(k); // ascending; best[0] is the k-th largest so far
  for (let j = 0; j < n; j++) {
    const v = acc[list[j]];
    if (v > best[0]) insertAscending(best, k, v);
  }
  return best[0];
}

function insertAscending(best: Float64Array, k: number, v: number): void {
  let at = 0;
  while (at + 1 < k && best[at + 1] < v) {
    best[at] = best[at + 1];
    at++;
  }
  best[at] = v;
}

/** First position in docs[from, end) whose value is ≥ target (exponential then binary search). */
function gallop(docs: Uint32Array, from: number, end: number, target: number): number {
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
  // docs[lo] < target; answer in (lo, hi]
  let a = lo + 1;
  let b = hi;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (docs[m] < target) a = m + 1;
    else b = m;
  }
  return a;
}

function view<T>(buf: Buffer, ctor: { new (buffer: ArrayBuffer, byteOffset: number, length: number): T; BYTES_PER_ELEMENT: number }): T {
  const width = ctor.BYTES_PER_ELEMENT;
  if (buf.byteOffset % width !== 0) {
    // readFileSync may hand back a pooled, unaligned slice for small files: copy it once.
    const copy = new ArrayBuffer(buf.length);
    new Uint8Array(copy).set(buf);
    return new ctor(copy, 0, buf.length / width);
  }
  return new ctor(buf.buffer as ArrayBuffer, buf.byteOffset, buf.length / width);
}
