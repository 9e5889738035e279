/**
 * The second half of a streaming index build: the chunks' partial indexes (partial-index.ts), each
 * grouped by term in byte order, merged k ways by term into the index's files (bm25-format.ts),
 * with each posting's BM25 contribution computed from the whole corpus's document count, average
 * length and document frequencies. Only per-document and per-term arrays and one term's postings
 * are held in memory; the postings stream from the chunk files to the index files.
 */
import { join } from "node:path";
import { UserError } from "../errors";
import {
  FILES,
  WINDOW_SHIFT,
  hasWindows,
  idfLucene,
  lengthNorm,
  setDocBits,
  termHash,
  termScore,
  vocabHashSlots,
  windowCount,
  windowedRows,
  type IndexFile,
} from "./bm25-format";
import { Growable } from "./growable";
import { FileWriter } from "./file-writer";
import { PartialReader } from "./partial-index";

export interface PartialFile {
  file: string;
  docs: number;
  postings: number;
}

export interface MergeResult {
  documents: number;
  terms: number;
  postings: number;
  avgDocLength: number;
}

/**
 * Merges the chunks (in document order) into the data files of `dir`, which already holds
 * texts.bin (the caller seals each file: block-crc.ts); `progress`
 * is told the postings merged so far, every `reportEvery` or so.
 */
export function mergePartials(
  partials: readonly PartialFile[],
  dir: string,
  k1: number,
  b: number,
  progress: (postings: number) => void = () => {},
  reportEvery = 1 << 22,
): MergeResult {
  const readers = partials.map((p) => new PartialReader(p.file, p.docs));
  const writers: Partial<Record<IndexFile, FileWriter>> = {};
  const open = (key: Exclude<IndexFile, "texts">) => (writers[key] = new FileWriter(join(dir, FILES[key])));
  try {
    const { docLengths, docIds, textOffsets } = documents(readers);
    const N = docLengths.length;
    let totalLength = 0;
    for (let d = 0; d < N; d++) totalLength += docLengths[d];
    const avgDocLength = totalLength / N;
    const norm = new Float64Array(N);
    for (let d = 0; d < N; d++) norm[d] = lengthNorm(docLengths[d], avgDocLength, k1, b);

    const vocab = open("vocab");
    const postingDocs = open("postingDocs");
    const postingScores = open("postingScores");
    const windowMaxOut = open("windowMax");
    const windowStartOut = open("windowStart");
    const windowBitsOut = open("windowBits");
    const vocabOffsets = new Growable(Uint32Array, 1 << 16);
    const postingOffsets = new Growable(Uint32Array, 1 << 16);
    const termMax = new Growable(Float32Array, 1 << 16);
    const hashes = new Growable(Uint32Array, 1 << 16);
    vocabOffsets.push(0);
    postingOffsets.push(0);
    const W = windowCount(N);
    const windowMax = new Uint8Array(W);
    const windowStart = new Uint32Array(W + 1);
    const windowBits = new Uint32Array(2 * W);
    const best = new Float32Array(W);
    let docs = new Uint32Array(1 << 16);
    let scores = new Float32Array(1 << 16);
    let vocabBytes = 0;
    let P = 0;
    let reported = 0;

    const heap = new TermHeap(readers);
    const group: PartialReader[] = [];
    while (heap.popTerm(group)) {
      const term = group[0].term!;
      let df = 0;
      for (const r of group) df += r.count;
      if (P + df > 0xffffffff) throw new UserError(`the corpus is too large for one index (over 4 billion postings)`);
      if (docs.length < df) {
        docs = new Uint32Array(Math.max(df, 2 * docs.length));
        scores = new Float32Array(docs.length);
      }
      const idf = idfLucene(df, N);
      let top = 0;
      let n = 0;
      // The chunks are in document order, so their lists joined in that order stay ascending.
      for (const r of group) {
        const rd = r.docs;
        const rt = r.tfs;
        for (let p = 0; p < r.count; p++, n++) {
          const d = rd[p];
          const s = termScore(idf, rt[p], norm[d]);
          docs[n] = d;
          scores[n] = s;
          if (s > top) top = s;
        }
      }
      postingDocs.write(docs.subarray(0, df));
      postingScores.write(scores.subarray(0, df));
      if (hasWindows(df, W)) {
        termWindows(docs, scores, df, P, Math.fround(top), best, windowMax, windowStart);
        windowMaxOut.write(windowMax);
        windowStartOut.write(windowStart);
        windowBits.fill(0);
        setDocBits(windowBits, 0, docs, 0, df);
        windowBitsOut.write(windowBits);
      }
      vocab.write(term);
      vocabBytes += term.length;
      vocabOffsets.push(vocabBytes);
      hashes.push(termHash(term, 0, term.length));
      termMax.push(top);
      P += df;
      postingOffsets.push(P);
      for (const r of group) heap.advance(r);
      if (P - reported >= reportEvery) {
        reported = P;
        progress(P);
      }
    }
    progress(P);

    for (const key of ["vocab", "postingDocs", "postingScores", "windowMax", "windowStart", "windowBits"] as const)
      writers[key]!.close();
    const whole = (key: Exclude<IndexFile, "texts">, view: ArrayBufferView) => {
      open(key).write(view);
      writers[key]!.close();
    };
    whole("vocabOffsets", vocabOffsets.view());
    whole("vocabHash", vocabHashTable(hashes.view()));
    whole("postingOffsets", postingOffsets.view());
    whole("termMax", termMax.view());
    whole("windowRows", windowedRows(postingOffsets.view(), N));
    whole("docIds", docIds);
    whole("textOffsets", textOffsets);
    return { documents: N, terms: termMax.length, postings: P, avgDocLength };
  } finally {
    for (const w of Object.values(writers)) w?.abandon();
    for (const r of readers) r.close();
  }
}

/** Every chunk's documents, joined: lengths, corpus ids and the offsets of titles and texts in texts.bin. */
function documents(readers: readonly PartialReader[]): {
  docLengths: Uint32Array;
  docIds: Float64Array;
  textOffsets: Float64Array;
} {
  const chunks = readers.map((r) => r.readDocs());
  const N = chunks.reduce((a, c) => a + c.docLengths.length, 0);
  const docLengths = new Uint32Array(N);
  const docIds = new Float64Array(N);
  const textOffsets = new Float64Array(2 * N + 1);
  let d = 0;
  let at = 0;
  for (const c of chunks) {
    docLengths.set(c.docLengths, d);
    docIds.set(c.docIds, d);
    for (let j = 0; j < c.docLengths.length; j++, d++) {
      textOffsets[2 * d] = at;
      textOffsets[2 * d + 1] = at + c.textLengths[2 * j];
      at += c.textLengths[2 * j] + c.textLengths[2 * j + 1];
    }
  }
  textOffsets[2 * N] = at;
  return { docLengths, docIds, textOffsets };
}

/**
 * One term's window maxima row and window starts (see bm25-format.ts): the largest contribution in
 * each window, quantized upwards to a byte of the term maximum, and the position (in the whole
 * postings file, the term's first posting at `base`) of the first posting in each window or later.
 */
function termWindows(
  docs: Uint32Array,
  scores: Float32Array,
  n: number,
  base: number,
  top: number,
  best: Float32Array,
  windowMax: Uint8Array,
  windowStart: Uint32Array,
): void {
  const W = best.length;
  best.fill(0);
  windowMax.fill(0);
  let next = 0; // the next window whose first posting is not yet known
  for (let p = 0; p < n; p++) {
    const w = docs[p] >>> WINDOW_SHIFT;
    while (next <= w) windowStart[next++] = base + p;
    if (scores[p] > best[w]) best[w] = scores[p];
  }
  while (next <= W) windowStart[next++] = base + n;
  for (let w = 0; w < W; w++)
    if (best[w] > 0) windowMax[w] = Math.max(1, Math.min(255, Math.ceil((best[w] / top) * 255)));
}

/** vocab-hash.u32 (see bm25-format.ts): every term's row + 1 at its hash or the next free slot. */
function vocabHashTable(hashes: Uint32Array): Uint32Array {
  const table = new Uint32Array(vocabHashSlots(hashes.length));
  const mask = table.length - 1;
  for (let r = 0; r < hashes.length; r++) {
    let h = hashes[r] & mask;
    while (table[h] !== 0) h = (h + 1) & mask;
    table[h] = r + 1;
  }
  return table;
}

/** The chunk readers ordered by (current term's bytes, chunk number): a min-heap. */
class TermHeap {
  private readonly heap: PartialReader[] = [];
  private readonly rank = new Map<PartialReader, number>();

  constructor(readers: readonly PartialReader[]) {
    readers.forEach((r, i) => this.rank.set(r, i));
    for (const r of readers) if (r.next()) this.push(r);
  }

  /** Takes the readers at the smallest term into `group` (in chunk order); false when none is left. */
  popTerm(group: PartialReader[]): boolean {
    group.length = 0;
    if (this.heap.length === 0) return false;
    const first = this.pop();
    group.push(first);
    while (this.heap.length > 0 && this.heap[0].term!.equals(first.term!)) group.push(this.pop());
    return true;
  }

  /** Puts a reader of the last group back at its next term (if it has one). */
  advance(r: PartialReader): void {
    if (r.next()) this.push(r);
  }

  private before(a: PartialReader, b: PartialReader): boolean {
    const c = Buffer.compare(a.term!, b.term!);
    return c < 0 || (c === 0 && this.rank.get(a)! < this.rank.get(b)!);
  }

  private push(r: PartialReader): void {
    const h = this.heap;
    let i = h.push(r) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(h[i], h[parent])) break;
      [h[i], h[parent]] = [h[parent], h[i]];
      i = parent;
    }
  }

  private pop(): PartialReader {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.before(h[l], h[m])) m = l;
        if (r < h.length && this.before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
