/**
 * One chunk of a streaming index build (build-index.ts): the postings of a run of consecutive
 * documents, grouped by term in UTF-8 byte order of the terms, written to one file the merge
 * (merge-partials.ts) reads front to back. Scores are not in it: they need the whole corpus's
 * document count, average length and document frequencies, which only the merge knows.
 *
 * Layout (little-endian), `docs` documents:
 *   doc ids        f64 × docs     corpus ids (row numbers where the corpus has none)
 *   doc lengths    u32 × docs     token counts after stopwords
 *   text lengths   u32 × 2·docs   UTF-8 bytes of each title and text (the bytes are in texts.bin)
 *   then per term, in byte order:  u32 term bytes, u32 postings, the term's UTF-8 bytes,
 *                                  u32 × postings document numbers (of the whole corpus, ascending),
 *                                  u16 × postings term frequencies
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { BatchResult } from "./corpus-batch";
import { Growable } from "./growable";
import { FileWriter } from "./file-writer";
import { sortTerms } from "./term-order";

/** What the builder's vocabulary offers a chunk: terms by global id, and the id of a term. */
export interface Vocabulary {
  terms: readonly string[];
  idOf(term: string): number;
}

export interface PartialSummary {
  docs: number;
  terms: number;
  postings: number;
  bytes: number;
}

/** A chunk's documents and postings while the corpus streams in (reused from chunk to chunk). */
export class ChunkPostings {
  private readonly termIds = new Growable(Uint32Array, 1 << 16);
  private readonly tfs = new Growable(Uint16Array, 1 << 16);
  /** Per document, one past its last posting in this chunk. */
  private readonly docEnds = new Growable(Uint32Array, 1 << 12);
  private readonly docLengths = new Growable(Uint32Array, 1 << 12);
  private readonly docIds = new Growable(Float64Array, 1 << 12);
  private readonly textLengths = new Growable(Uint32Array, 1 << 13);
  /** Number (in the whole corpus) of this chunk's first document. */
  firstDoc = 0;

  get docs(): number {
    return this.docLengths.length;
  }

  get postings(): number {
    return this.termIds.length;
  }

  /** Starts the next chunk at document number firstDoc. */
  reset(firstDoc: number): void {
    this.firstDoc = firstDoc;
    for (const g of [this.termIds, this.tfs, this.docEnds, this.docLengths, this.docIds, this.textLengths])
      g.length = 0;
  }

  /** The next documents of the chunk: one tokenized batch, its term ids translated to global ones by `global`. */
  add(r: BatchResult, global: Uint32Array): void {
    const n = r.docs;
    const before = this.docs;
    const ids = this.docIds.ensure(n);
    for (let j = 0; j < n; j++) ids[before + j] = r.docIds[j] < 0 ? this.firstDoc + before + j : r.docIds[j];
    this.docIds.length += n;
    this.docLengths.append(r.docLengths);
    this.textLengths.append(r.textLengths);
    const ends = this.docEnds.ensure(n);
    const terms = this.termIds.ensure(r.termIds.length);
    let p = this.termIds.length;
    for (let j = 0, q = 0; j < n; j++) {
      for (const e = q + r.distinct[j]; q < e; q++) terms[p++] = global[r.termIds[q]];
      ends[before + j] = p;
    }
    this.termIds.length = p;
    this.docEnds.length += n;
    this.tfs.append(r.tfs);
  }

  /** Writes the chunk to `file` (not atomically: the caller renames it into place). */
  write(file: string, vocab: Vocabulary): PartialSummary {
    const V = vocab.terms.length;
    const termIds = this.termIds.view();
    const tfs = this.tfs.view();
    const P = termIds.length;
    const count = new Uint32Array(V);
    const present: string[] = [];
    for (let p = 0; p < P; p++) if (count[termIds[p]]++ === 0) present.push(vocab.terms[termIds[p]]);
    const { sorted } = sortTerms(present);
    const order = sorted.map((t) => vocab.idOf(t));
    // A counting sort by term (in byte order): each term's postings stay in document order.
    const cursor = new Uint32Array(V);
    let at = 0;
    for (const id of order) {
      cursor[id] = at;
      at += count[id];
    }
    const docs = new Uint32Array(P);
    const termTfs = new Uint16Array(P);
    const docEnds = this.docEnds.view();
    for (let d = 0, p = 0; d < docEnds.length; d++) {
      const doc = this.firstDoc + d;
      for (const e = docEnds[d]; p < e; p++) {
        const c = cursor[termIds[p]]++;
        docs[c] = doc;
        termTfs[c] = tfs[p];
      }
    }
    const out = new FileWriter(file);
    try {
      out.write(this.docIds.view());
      out.write(this.docLengths.view());
      out.write(this.textLengths.view());
      const head = new Uint32Array(2);
      let start = 0;
      for (let r = 0; r < order.length; r++) {
        const n = count[order[r]];
        const bytes = Buffer.from(sorted[r], "utf8");
        head[0] = bytes.length;
        head[1] = n;
        out.write(head);
        out.write(bytes);
        out.write(docs.subarray(start, start + n));
        out.write(termTfs.subarray(start, start + n));
        start += n;
      }
    } catch (e) {
      out.abandon();
      throw e;
    }
    out.close();
    return { docs: this.docs, terms: order.length, postings: P, bytes: statSync(file).size };
  }
}

/** A chunk's documents, read whole (the merge needs every document's length and ids first). */
export interface ChunkDocs {
  docIds: Float64Array;
  docLengths: Uint32Array;
  textLengths: Uint32Array;
}

/** Reads a chunk file: its documents, then its terms one at a time, in byte order. */
export class PartialReader {
  private readonly fd: number;
  private buffer = Buffer.allocUnsafe(1 << 20);
  private start = 0;
  private end = 0;
  private position: number;
  /** The current term's UTF-8 bytes (undefined once the terms are exhausted), postings and frequencies. */
  term: Buffer | undefined;
  count = 0;
  docs = new Uint32Array(1024);
  tfs = new Uint16Array(1024);

  constructor(
    readonly file: string,
    private readonly docCount: number,
  ) {
    this.fd = openSync(file, "r");
    this.position = 20 * docCount;
  }

  readDocs(): ChunkDocs {
    const n = this.docCount;
    const docIds = new Float64Array(n);
    const docLengths = new Uint32Array(n);
    const textLengths = new Uint32Array(2 * n);
    let at = 0;
    for (const a of [docIds, docLengths, textLengths]) {
      this.readAt(new Uint8Array(a.buffer), at);
      at += a.byteLength;
    }
    return { docIds, docLengths, textLengths };
  }

  private readAt(into: Uint8Array, position: number): void {
    for (let got = 0; got < into.length;) {
      const n = readSync(this.fd, into, got, into.length - got, position + got);
      if (n === 0) throw new Error(`${this.file} ends early`);
      got += n;
    }
  }

  /** Moves to the next term; false at the end of the file. */
  next(): boolean {
    if (!this.fill(8)) {
      this.term = undefined;
      return false;
    }
    const termBytes = this.buffer.readUInt32LE(this.start);
    const n = this.buffer.readUInt32LE(this.start + 4);
    const need = 8 + termBytes + 6 * n;
    if (!this.fill(need)) throw new Error(`${this.file} ends inside a term`);
    let at = this.start + 8;
    this.term = Buffer.from(this.buffer.subarray(at, at + termBytes));
    at += termBytes;
    if (this.docs.length < n) {
      this.docs = new Uint32Array(Math.max(n, 2 * this.docs.length));
      this.tfs = new Uint16Array(this.docs.length);
    }
    new Uint8Array(this.docs.buffer, 0, 4 * n).set(this.buffer.subarray(at, at + 4 * n));
    at += 4 * n;
    new Uint8Array(this.tfs.buffer, 0, 2 * n).set(this.buffer.subarray(at, at + 2 * n));
    this.count = n;
    this.start += need;
    return true;
  }

  /** At least n unread bytes in the buffer (false at the end of the file with none left). */
  private fill(n: number): boolean {
    if (this.end - this.start >= n) return true;
    if (this.buffer.length < n) {
      const bigger = Buffer.allocUnsafe(Math.max(n, 2 * this.buffer.length));
      this.buffer.copy(bigger, 0, this.start, this.end);
      this.buffer = bigger;
    } else this.buffer.copy(this.buffer, 0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
    while (this.end < n) {
      const got = readSync(this.fd, this.buffer, this.end, this.buffer.length - this.end, this.position);
      if (got === 0) {
        if (this.end === 0) return false;
        throw new Error(`${this.file} ends inside a term`);
      }
      this.position += got;
      this.end += got;
    }
    return true;
  }

  close(): void {
    closeSync(this.fd);
  }
}
