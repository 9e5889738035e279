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
import { UserError } from "../errors";
import { FILES, INDEX_FORMAT, INDEX_VERSION, type IndexFile, type IndexMeta } from "./bm25-format";
import type { SearchHit, Searcher } from "./searcher";
import { ENGLISH_STOPWORDS, TermTokenizer } from "./tokenizer";

const REBUILD = 'run "agent-lab index" to build it';

export function openIndex(indexDir: string): Bm25Searcher {
  return new Bm25Searcher(indexDir);
}

/** One query term: its position in the postings and how many times the query says it. */
interface QueryTerm {
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

  constructor(readonly indexDir: string) {
    const metaFile = join(indexDir, "meta.json");
    if (!existsSync(metaFile)) throw new UserError(`no search index in ${indexDir} (meta.json is missing): ${REBUILD}`);
    let meta: IndexMeta;
    try {
      meta = JSON.parse(readFileSync(metaFile, "utf8")) as IndexMeta;
    } catch (e) {
      throw new UserError(`search index ${indexDir} is unreadable (meta.json: ${(e as Error).message}): ${REBUILD} again`);
    }
    if (meta?.format !== INDEX_FORMAT) throw new UserError(`${indexDir} is not an Agent Lab search index: ${REBUILD}`);
    if (meta.version !== INDEX_VERSION) {
      throw new UserError(`search index ${indexDir} has format version ${meta.version}, this Agent Lab reads version ${INDEX_VERSION}: ${REBUILD} again`);
    }
    this.meta = meta;
    const N = meta.documents;
    const V = meta.terms;
    const P = meta.postings;
    const expected: Record<IndexFile, number> = {
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
    const load = (key: Exclude<IndexFile, "texts">): Buffer => {
      const file = join(indexDir, FILES[key]);
      let buf: Buffer;
      try {
        buf = readFileSync(file);
      } catch (e) {
        throw new UserError(`search index ${indexDir} is incomplete (${FILES[key]}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${REBUILD} again`);
      }
      if (buf.length !== expected[key] || buf.length !== meta.bytes?.[key]) {
        throw new UserError(`search index ${indexDir} is corrupt (${FILES[key]} has ${buf.length} bytes, expected ${expected[key]}): ${REBUILD} again`);
      }
      return buf;
    };
    this.vocab = load("vocab");
    this.vocabOffsets = view(load("vocabOffsets"), Uint32Array);
    this.postingOffsets = view(load("postingOffsets"), Uint32Array);
    this.docs = view(load("postingDocs"), Uint32Array);
    this.scores = view(load("postingScores"), Float32Array);
    this.termMax = view(load("termMax"), Float32Array);
    this.docIds = view(load("docIds"), Float64Array);
    this.textOffsets = view(load("textOffsets"), Float64Array);
    const textsFile = join(indexDir, FILES.texts);
    let textsBytes: number;
    try {
      this.textsFd = openSync(textsFile, "r");
      textsBytes = fstatSync(this.textsFd).size;
    } catch (e) {
      throw new UserError(`search index ${indexDir} is incomplete (${FILES.texts}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): ${REBUILD} again`);
    }
    if (textsBytes !== meta.bytes?.texts) {
      this.close();
      throw new UserError(`search index ${indexDir} is corrupt (${FILES.texts} has ${textsBytes} bytes, expected ${meta.bytes?.texts}): ${REBUILD} again`);
    }
    if (this.postingOffsets[V] !== P || this.vocabOffsets[V] !== this.vocab.length || this.textOffsets[2 * N] !== textsBytes) {
      this.close();
      throw new UserError(`search index ${indexDir} is corrupt (offsets do not match the data files): ${REBUILD} again`);
    }
    this.acc = new Float64Array(N);
    this.touched = new Uint32Array(N);
    this.scratch = new Uint32Array(N);
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
    const candidates = prune ? this.candidates(rows, k) : this.allMatches(rows);
    return this.exactTop(rows, candidates, k);
  }

  /** Every document that has at least one query term (exhaustive path). */
  private allMatches(rows: number[]): Uint32Array {
    const seen = new Set<number>();
    for (const r of new Set(rows)) {
      for (let p = this.postingOffsets[r], e = this.postingOffsets[r + 1]; p < e; p++) seen.add(this.docs[p]);
    }
    return Uint32Array.from(seen);
  }

  /**
   * MaxScore-style pruning. Terms are visited in falling order of their upper bound (weight × the
   * term's largest contribution). While a document never seen so far could still reach the top k,
   * a term's whole posting list is added (OR phase). Once the k-th best partial sum beats everything
   * the remaining terms could add, only the documents already seen can make the top k: from then on
   * the remaining (common, long) lists are only probed for those candidates by galloping search,
   * and candidates that can no longer reach the k-th best are dropped after each term.
   */
  private candidates(rows: number[], k: number): Uint32Array {
    const weights = new Map<number, number>();
    for (const r of rows) weights.set(r, (weights.get(r) ?? 0) + 1);
    const terms: QueryTerm[] = [...weights].map(([r, w]) => ({
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
    try {
      // OR phase.
      for (; i < terms.length; i++) {
        const t = terms[i];
        // Checking costs a pass over the documents seen so far; it pays when this list is long.
        if (n >= k && i > 0 && t.end - t.start >= n >> 1) {
          floor = Math.max(floor, this.kthFullScore(touched, n, k, terms, i));
          if (floor - slack(floor) > rest[i]) break;
        }
        n = addList(acc, touched, n, docs, scores, t.start, t.end, t.weight);
      }
      // Survivors are compacted in place into the scratch list; the result is copied out small.
      const cand = this.scratch;
      cand.set(touched.subarray(0, n));
      let m = n;
      if (i < terms.length) {
        // Probe phase: only seen documents can still make the top k.
        m = keepReachable(acc, cand, m, Math.max(floor, kthLargest(acc, cand, m, k)), rest[i], k);
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
          m = keepReachable(acc, cand, m, floor, rest[i + 1], k);
        }
      }
      m = keepReachable(acc, cand, m, Math.max(floor, kthLargest(acc, cand, m, k)), 0, k);
      return cand.slice(0, m);
    } finally {
      for (let j = 0; j < n; j++) acc[touched[j]] = 0;
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
 * still reach `kth`, and zeroes the sums of the others; returns how many remain. Only called once
 * no new document can enter (after the OR phase), so a zero sum then means "pruned".
 */
function keepReachable(acc: Float64Array, cand: Uint32Array, m: number, kth: number, rest: number, k: number): number {
  const bar = kth - slack(kth) - rest;
  // Also tracks the k-th largest sum among the kept ones (KTH.value), for the next round's bar.
  const best = KTH.scratch(k);
  let kept = 0;
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
  for (let j = 0; j < n; j++) {
    const d = list[j];
    const v = acc[d];
    if (best.length === m && v <= acc[best[m - 1]]) continue;
    let at = best.length === m ? m - 1 : best.length;
    while (at > 0 && acc[best[at - 1]] < v) {
      best[at] = best[at - 1];
      at--;
    }
    best[at] = d;
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
