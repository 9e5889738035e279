/**
 * A loaded BM25 index: typed-array views over Buffers read from the index folder (outside the JS
 * heap), a binary-searched vocabulary, and top-k search with MaxScore-style pruning.
 *
 * Scores equal bm25s's (lucene variant) bit for bit: per-posting float32 contributions, summed in
 * float32 in query-word order. Pruning only decides which documents get that exact sum computed;
 * ties are broken by document number, so the result equals exhaustive scoring (searchExhaustive).
 */
import { existsSync, readFileSync } from "node:fs";
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
  private readonly texts: Buffer;
  private readonly tokenizer = new TermTokenizer();
  /** Per-document partial sums, reused across queries (reset after each). */
  private readonly acc: Float64Array;
  private readonly touched: Uint32Array;

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
    const load = (key: IndexFile): Buffer => {
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
    this.texts = load("texts");
    if (this.postingOffsets[V] !== P || this.vocabOffsets[V] !== this.vocab.length || this.textOffsets[2 * N] !== this.texts.length) {
      throw new UserError(`search index ${indexDir} is corrupt (offsets do not match the data files): ${REBUILD} again`);
    }
    this.acc = new Float64Array(N);
    this.touched = new Uint32Array(N);
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
    const o = this.textOffsets;
    return {
      id: this.docIds[doc],
      title: this.texts.toString("utf8", o[2 * doc], o[2 * doc + 1]),
      text: this.texts.toString("utf8", o[2 * doc + 1], o[2 * doc + 2]),
    };
  }

  /** Row of a stemmed term in the vocabulary, or -1. */
  termRow(term: string): number {
    let lo = 0;
    let hi = this.meta.terms - 1;
    const off = this.vocabOffsets;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const probe = this.vocab.toString("utf8", off[mid], off[mid + 1]);
      if (probe === term) return mid;
      if (probe < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
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
        if (n >= k && i > 0 && t.end - t.start >= n >> 2) {
          floor = Math.max(floor, this.kthFullScore(touched, n, k, terms, i));
          if (floor - slack(floor) > rest[i]) break;
        }
        for (let p = t.start; p < t.end; p++) {
          const d = docs[p];
          if (acc[d] === 0) touched[n++] = d;
          acc[d] += t.weight * scores[p];
        }
      }
      let cand: Uint32Array = touched.slice(0, n);
      const bar = () => Math.max(floor, kthLargest(acc, cand, cand.length, k));
      if (i === terms.length) return prunedBelow(acc, cand, bar(), 0);

      // Probe phase: only seen documents can still make the top k.
      cand = prunedBelow(acc, cand, bar(), rest[i]);
      cand.sort();
      for (; i < terms.length && cand.length > 0; i++) {
        const t = terms[i];
        let p = t.start;
        for (let c = 0; c < cand.length && p < t.end; c++) {
          const d = cand[c];
          p = gallop(docs, p, t.end, d);
          if (p < t.end && docs[p] === d) acc[d] += t.weight * scores[p];
        }
        cand = prunedBelow(acc, cand, bar(), rest[i + 1]);
      }
      return prunedBelow(acc, cand, bar(), 0);
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
    const top = topDocs(this.acc, list, n, k + 2);
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

/** Keeps candidates whose partial sum plus what is left could still reach `kth`. */
function prunedBelow(acc: Float64Array, cand: Uint32Array, kth: number, rest: number): Uint32Array {
  const bar = kth - slack(kth) - rest;
  if (bar <= 0) return cand;
  return cand.filter((d) => acc[d] >= bar);
}

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
  const best = new Float64Array(k); // ascending; best[0] is the k-th largest so far
  for (let j = 0; j < n; j++) {
    const v = acc[list[j]];
    if (v <= best[0]) continue;
    let at = 0;
    while (at + 1 < k && best[at + 1] < v) {
      best[at] = best[at + 1];
      at++;
    }
    best[at] = v;
  }
  return best[0];
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
