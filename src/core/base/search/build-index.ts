/**
 * Builds a BM25 index folder from corpus.jsonl ({id, title, text} per line), streaming: the corpus
 * is read in batches, tokenized on worker threads (both cores), and only compact typed arrays are
 * kept in memory. The folder is written under a temporary name and renamed into place at the end,
 * so a crash or cancel leaves any previous index untouched.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { availableParallelism } from "node:os";
import { basename, dirname, join } from "node:path";
import type { Worker } from "node:worker_threads";
import { crc32 } from "node:zlib";
import { FileFormatError, UserError } from "../errors";
import { findWorkerScript, startWorkerThread } from "../util/worker-thread";
import {
  DEFAULT_B,
  DEFAULT_K1,
  FILES,
  INDEX_FILES,
  INDEX_FORMAT,
  INDEX_VERSION,
  META_FILE,
  WINDOW_SHIFT,
  crcHex,
  hasWindows,
  idfLucene,
  lengthNorm,
  metaText,
  termHash,
  vocabHashSlots,
  windowCount,
  windowedRows,
  type IndexFile,
  type IndexMeta,
} from "./bm25-format";
import { sealDataFile } from "./block-crc";
import { CorpusBatcher, type BatchRequest, type BatchResult, type TermOrderResult } from "./corpus-batch";
import { Growable } from "./growable";
import {
  scatterPostings,
  type PostingChunk,
  type ScatterJob,
  type ScatterRequest,
  type ScatterResult,
} from "./posting-scatter";
import { mergeTermOrders } from "./term-order";
import { STEMMER_NAME, TOKENIZER_NAME } from "./tokenizer";
import { MISSING, WordTable } from "./word-table";

export interface BuildOptions {
  k1?: number;
  b?: number;
  /** Tokenizer threads; default min(2, cores). 0 tokenizes on the calling thread. */
  workers?: number;
  /** Corpus bytes per batch sent to a worker. */
  batchBytes?: number;
  /** Postings per chunk of the in-memory postings (small ones let a test split a small corpus's scatter). */
  chunkPostings?: number;
  /** Called after each batch with the number of paragraphs indexed so far. */
  onProgress?: (documents: number) => void;
}

export interface BuildSummary {
  indexDir: string;
  documents: number;
  terms: number;
  postings: number;
  bytes: number;
  seconds: number;
  contentHash: string;
}

export async function buildIndex(
  corpusFile: string,
  indexDir: string,
  options: BuildOptions = {},
): Promise<BuildSummary> {
  const started = performance.now();
  if (!existsSync(corpusFile)) throw new UserError(`corpus file ${corpusFile} does not exist`);
  const k1 = options.k1 ?? DEFAULT_K1;
  const b = options.b ?? DEFAULT_B;
  mkdirSync(dirname(indexDir), { recursive: true });
  const tmpDir = join(dirname(indexDir), `.${basename(indexDir)}.partial-${process.pid}`);
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir);
  try {
    const collected = await collect(corpusFile, tmpDir, options);
    const meta = await finish(collected, tmpDir, k1, b, corpusFile, options);
    replaceDir(tmpDir, indexDir);
    const bytes = Object.values(meta.bytes).reduce((a, n) => a + n, 0);
    return {
      indexDir,
      documents: meta.documents,
      terms: meta.terms,
      postings: meta.postings,
      bytes,
      seconds: (performance.now() - started) / 1000,
      contentHash: meta.contentHash,
    };
  } catch (e) {
    rmSync(tmpDir, { recursive: true, force: true });
    throw e;
  }
}

/** Everything gathered while streaming the corpus. */
interface Collected {
  terms: string[];
  /** Term ids in UTF-8 byte order of the terms. */
  order: Uint32Array;
  docLengths: Uint32Array;
  docIds: Float64Array;
  postings: PostingChunks;
  textOffsets: Float64Array;
}

async function collect(corpusFile: string, tmpDir: string, options: BuildOptions): Promise<Collected> {
  const vocab = new WordTable();
  const terms: string[] = [];
  const docLengths = new Growable(Uint32Array, 1 << 16);
  const docIds = new Growable(Float64Array, 1 << 16);
  const postings = new PostingChunks(options.chunkPostings);
  const textOffsets = new Growable(Float64Array, 1 << 17);
  const textsFd = openSync(join(tmpDir, FILES.texts), "w");
  let textBytes = 0;
  const translate: Growable<Uint32Array>[] = [];

  const merge = (r: BatchResult, source: number): void => {
    if (r.error) throw new FileFormatError(corpusFile, r.error.line, r.error.problem);
    const map = (translate[source] ??= new Growable(Uint32Array, 1 << 16));
    for (const t of r.newTerms) {
      let id = vocab.get(t, 0, t.length);
      if (id === MISSING) {
        id = terms.length;
        vocab.add(id);
        terms.push(t);
      }
      map.push(id);
    }
    const firstDoc = docLengths.length;
    const n = r.docs;
    docLengths.append(r.docLengths);
    const ids = docIds.ensure(n);
    const offsets = textOffsets.ensure(2 * n);
    const lengths = r.textLengths;
    for (let j = 0; j < n; j++) {
      const id = r.docIds[j];
      ids[firstDoc + j] = id < 0 ? firstDoc + j : id;
      offsets[2 * (firstDoc + j)] = textBytes;
      offsets[2 * (firstDoc + j) + 1] = textBytes + lengths[2 * j];
      textBytes += lengths[2 * j] + lengths[2 * j + 1];
    }
    docIds.length += n;
    textOffsets.length += 2 * n;
    postings.addBatch(r.distinct, r.termIds, r.tfs, map.view());
    if (r.textBytes.length > 0) {
      writeSync(textsFd, r.textBytes);
    }
    options.onProgress?.(docLengths.length);
  };

  const orders: Uint32Array[] = [];
  let surrogates = false;
  const ordered = (o: TermOrderResult, source: number): void => {
    const map = (translate[source] ??= new Growable(Uint32Array, 1)).view();
    orders.push(o.order.map((local) => map[local]));
    surrogates ||= o.surrogates;
  };

  try {
    await runBatches(corpusFile, options, merge, ordered);
  } finally {
    closeSync(textsFd);
  }
  textOffsets.push(textBytes);
  if (docLengths.length === 0) throw new UserError(`corpus file ${corpusFile} has no paragraphs`);
  if (postings.length > 0xffffffff)
    throw new UserError(`corpus file ${corpusFile} is too large for one index (over 4 billion postings)`);
  return {
    terms,
    order: mergeTermOrders(orders, terms, surrogates),
    docLengths: docLengths.view(),
    docIds: docIds.view(),
    postings,
    textOffsets: textOffsets.view(),
  };
}

/**
 * (term, tf) pairs in document order, in fixed-size chunks: no doubling-and-copying while the corpus streams in,
 * and chunks can be freed one by one while the final arrays are filled. Shared memory, so a worker
 * can scatter half of them.
 */
class PostingChunks {
  private chunks: { term: Uint32Array; tf: Uint16Array }[] = [];
  private fill: number;
  /** Per document, the index one past its last posting: the document of a posting is implied, not stored (4 bytes a posting). */
  private readonly docEnds = new Growable(Float64Array, 1 << 16);
  length = 0;

  constructor(private readonly size = 1 << 20) {
    this.fill = size;
  }

  /** One batch's postings: the next documents, with distinct[j] (term, tf) pairs each, terms as batch-local ids translated by `global`. */
  addBatch(distinct: Uint32Array, termIds: Uint32Array, tfs: Uint16Array, global: Uint32Array): void {
    let c = this.chunks[this.chunks.length - 1];
    let fill = this.fill;
    const size = this.size;
    const ends = this.docEnds.ensure(distinct.length);
    const at = this.docEnds.length;
    let p = 0;
    for (let j = 0; j < distinct.length; j++) {
      for (const e = p + distinct[j]; p < e; p++) {
        if (fill === size) {
          c = { term: shared(Uint32Array, size), tf: shared(Uint16Array, size) };
          this.chunks.push(c);
          fill = 0;
        }
        c.term[fill] = global[termIds[p]];
        c.tf[fill] = tfs[p];
        fill++;
      }
      ends[at + j] = this.length + p;
    }
    this.docEnds.length += distinct.length;
    this.fill = fill;
    this.length += p;
  }

  private sizeOf(i: number): number {
    return i === this.chunks.length - 1 ? this.fill : this.size;
  }

  chunkCount(): number {
    return this.chunks.length;
  }

  /** Postings per chunk (all but the last are full). */
  chunkSize(): number {
    return this.size;
  }

  /** Hands over the chunks in order (this holds none afterwards, so each can be freed once used), and the document ends. */
  take(): { chunks: PostingChunk[]; docEnds: Float64Array } {
    const chunks = this.chunks.map((c, i) => ({ ...c, n: this.sizeOf(i) }));
    this.chunks = [];
    this.fill = this.size;
    return { chunks, docEnds: this.docEnds.view() };
  }
}

/** A typed array in shared memory (zeroed, like a plain one), which a worker sees without a copy. */
function shared<T>(ctor: { new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, n: number): T {
  return new ctor(new SharedArrayBuffer(n * ctor.BYTES_PER_ELEMENT));
}

/** Newline-aligned slices of the corpus file, read with a fixed buffer (never the whole file). */
function* readBatches(file: string, batchBytes: number): Generator<Omit<BatchRequest, "seq">> {
  const fd = openSync(file, "r");
  try {
    let carry = Buffer.alloc(0);
    let line = 1;
    const chunk = Buffer.allocUnsafe(batchBytes);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      const data = n > 0 ? Buffer.concat([carry, chunk.subarray(0, n)]) : carry;
      const cut = n > 0 ? data.lastIndexOf(10) + 1 : data.length;
      if (cut > 0) {
        const bytes = new Uint8Array(cut);
        bytes.set(data.subarray(0, cut));
        const first = line;
        line += countNewlines(bytes); // before yielding: the consumer may transfer (detach) the bytes
        yield { firstLine: first, bytes };
      }
      carry = Buffer.from(data.subarray(cut));
      if (n === 0) return;
    }
  } finally {
    closeSync(fd);
  }
}

function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) count++;
  return count;
}

/** The build worker script next to this module (bundled .js, or .ts under tsx), if there is one. */
const workerScript = () => findWorkerScript(__dirname, ["bm25-build-worker.js", "build-worker.js", "build-worker.ts"]);

/** Build worker threads: `count`, or none when options.workers is 0 or no worker script is found. */
function startWorkers(options: BuildOptions, count: number): Worker[] {
  const script = workerScript();
  if (!script || options.workers === 0) return [];
  return Array.from({ length: count }, () => startWorkerThread(script));
}

/** Tokenizes every batch (merged in corpus order), then has each tokenizer sort its terms. */
async function runBatches(
  corpusFile: string,
  options: BuildOptions,
  merge: (r: BatchResult, source: number) => void,
  ordered: (o: TermOrderResult, source: number) => void,
): Promise<void> {
  const batchBytes = options.batchBytes ?? 4 << 20;
  const workers = startWorkers(options, options.workers ?? Math.min(2, availableParallelism()));
  const count = workers.length;
  if (count === 0) {
    const batcher = new CorpusBatcher();
    let seq = 0;
    for (const batch of readBatches(corpusFile, batchBytes)) merge(batcher.tokenize({ ...batch, seq: seq++ }), 0);
    ordered(batcher.termOrder(), 0);
    return;
  }

  const inFlight = new Array<number>(count).fill(0);
  const done = new Map<number, { r: BatchResult; source: number }>();
  let nextMerge = 0;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const signal = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  workers.forEach((w, i) => {
    w.on("message", (r: BatchResult | TermOrderResult) => {
      inFlight[i]--;
      if ("order" in r) {
        try {
          ordered(r, i);
        } catch (e) {
          failure ??= e;
        }
        signal();
        return;
      }
      done.set(r.seq, { r, source: i });
      try {
        for (let next = done.get(nextMerge); next; next = done.get(nextMerge)) {
          done.delete(nextMerge++);
          merge(next.r, next.source);
        }
      } catch (e) {
        failure ??= e;
      }
      signal();
    });
    w.on("error", (e) => {
      failure ??= e;
      signal();
    });
  });
  const waitForWorkers = () => new Promise<void>((resolve) => (wake = resolve));
  const total = () => inFlight.reduce((a, n) => a + n, 0);
  try {
    let seq = 0;
    for (const batch of readBatches(corpusFile, batchBytes)) {
      while (failure === undefined && total() >= 2 * count) await waitForWorkers();
      if (failure !== undefined) break;
      // Batches go to the least busy worker; each worker sees its own batches in order, which
      // keeps its local term ids consistent with the order we merge in.
      const target = inFlight.indexOf(Math.min(...inFlight));
      inFlight[target]++;
      workers[target].postMessage({ ...batch, seq: seq++ }, [batch.bytes.buffer as ArrayBuffer]);
    }
    while (failure === undefined && total() > 0) await waitForWorkers();
    // Both sort at once; collect() merges the lists.
    if (failure === undefined) {
      workers.forEach((w, i) => {
        inFlight[i]++;
        w.postMessage({ termOrder: true });
      });
    }
    while (failure === undefined && total() > 0) await waitForWorkers();
    if (failure !== undefined) throw failure;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** Runs a scatter job on a build worker. */
function scatterOnWorker(worker: Worker, job: ScatterJob): Promise<ScatterResult> {
  return new Promise((resolve, reject) => {
    const done = (r: ScatterResult) => {
      worker.off("error", fail);
      resolve(r);
    };
    const fail = (e: unknown) => {
      worker.off("message", done);
      reject(e);
    };
    worker.once("message", done).once("error", fail);
    const request: ScatterRequest = { scatter: job };
    worker.postMessage(request);
  });
}

/** Orders the vocabulary, computes scores, writes the arrays and meta.json (last). */
async function finish(
  c: Collected,
  dir: string,
  k1: number,
  b: number,
  corpusFile: string,
  options: BuildOptions,
): Promise<IndexMeta> {
  // A fresh worker scatters half the postings: not a tokenizer, those are gone with the memory of their word tables.
  const [helper] = c.postings.chunkCount() > 1 ? startWorkers(options, 1) : [];
  try {
    return await finishWith(c, dir, k1, b, corpusFile, helper);
  } finally {
    await helper?.terminate();
  }
}

async function finishWith(
  c: Collected,
  dir: string,
  k1: number,
  b: number,
  corpusFile: string,
  helper: Worker | undefined,
): Promise<IndexMeta> {
  const N = c.docLengths.length;
  const V = c.terms.length;
  const P = c.postings.length;
  let totalLength = 0;
  for (let d = 0; d < N; d++) totalLength += c.docLengths[d];
  const avgDocLength = totalLength / N;

  // Term ids in UTF-8 byte order (the order of vocab.bin; a query term is found through vocab-hash.u32).
  const order = c.order;
  const rank = new Uint32Array(V);
  for (let r = 0; r < V; r++) rank[order[r]] = r;

  // Postings arrive in document order, so a stable scatter keeps each term's list ascending. With a
  // worker, it takes the second half of the chunks; its cursors start after each term's postings in
  // the first half (dfHead), so the halves fill disjoint places and can run at the same time.
  const chunkSize = c.postings.chunkSize();
  const { chunks, docEnds } = c.postings.take();
  const split = helper ? Math.ceil(chunks.length / 2) : chunks.length;
  const df = new Uint32Array(V);
  const dfHead = new Uint32Array(split < chunks.length ? V : 0);
  chunks.forEach(({ term, n }, i) => {
    if (i === split) dfHead.set(df);
    for (let p = 0; p < n; p++) df[term[p]]++;
  });
  const postingOffsets = new Uint32Array(V + 1);
  for (let r = 0; r < V; r++) postingOffsets[r + 1] = postingOffsets[r] + df[order[r]];
  const idf = new Float64Array(V);
  for (let t = 0; t < V; t++) idf[t] = idfLucene(df[t], N);
  const norm = new Float64Array(N);
  for (let d = 0; d < N; d++) norm[d] = lengthNorm(c.docLengths[d], avgDocLength, k1, b);

  const head = new Uint32Array(V);
  for (let t = 0; t < V; t++) head[t] = postingOffsets[rank[t]];
  const docs = shared(Uint32Array, P);
  const scores = shared(Float32Array, P);
  let tail: Promise<ScatterResult> | undefined;
  const headChunks = chunks.splice(0, split);
  if (chunks.length > 0) {
    const cursor = new Uint32Array(V);
    for (let t = 0; t < V; t++) cursor[t] = head[t] + dfHead[t];
    tail = scatterOnWorker(helper!, {
      chunks: chunks.splice(0),
      first: split * chunkSize,
      docEnds,
      idf,
      norm,
      cursor,
      docs,
      scores,
    });
  }
  // scatterPostings lets go of each chunk once done, so the chunks and the final arrays overlap less.
  const headMax = scatterPostings({
    chunks: headChunks,
    first: 0,
    docEnds,
    idf,
    norm,
    cursor: head,
    docs,
    scores,
  }).maxById;
  const tailMax = tail ? (await tail).maxById : headMax;
  const termMax = new Float32Array(V);
  for (let r = 0; r < V; r++) termMax[r] = Math.max(headMax[order[r]], tailMax[order[r]]);

  const { windowMax, windowStart } = windowMaxima(postingOffsets, docs, scores, termMax, N);

  // Written straight into one buffer (a UTF-16 unit is at most 3 UTF-8 bytes), not a Buffer per term.
  let units = 0;
  for (const t of c.terms) units += t.length;
  const vocab = Buffer.allocUnsafe(3 * units);
  const vocabOffsets = new Uint32Array(V + 1);
  let vocabBytes = 0;
  for (let r = 0; r < V; r++) {
    vocabBytes += vocab.write(c.terms[order[r]], vocabBytes, "utf8");
    vocabOffsets[r + 1] = vocabBytes;
  }

  const vocabFile = vocab.subarray(0, vocabBytes);
  const arrays: Record<Exclude<IndexFile, "texts">, ArrayBufferView> = {
    vocab: vocabFile,
    vocabOffsets,
    vocabHash: vocabHashTable(vocabFile, vocabOffsets),
    postingOffsets,
    postingDocs: docs,
    postingScores: scores,
    termMax,
    windowMax,
    windowStart,
    windowRows: windowedRows(postingOffsets, N),
    docIds: c.docIds,
    textOffsets: c.textOffsets,
  };
  const settings = {
    format: INDEX_FORMAT,
    version: INDEX_VERSION,
    variant: "lucene",
    k1,
    b,
    tokenizer: TOKENIZER_NAME,
    stemmer: STEMMER_NAME,
  };
  const hash = createHash("sha256").update(JSON.stringify(settings));
  const bytes = {} as Record<IndexFile, number>;
  const blockCrcs = {} as Record<IndexFile, string>;
  for (const key of INDEX_FILES) {
    if (key !== "texts") {
      const view = arrays[key];
      writeFileSync(join(dir, FILES[key]), Buffer.from(view.buffer, view.byteOffset, view.byteLength));
    }
    const sealed = sealDataFile(dir, key);
    hash.update(sealed.sha256);
    bytes[key] = sealed.bytes;
    blockCrcs[key] = sealed.blockCrc32;
  }

  const fields: Omit<IndexMeta, "metaCrc32"> = {
    ...settings,
    format: INDEX_FORMAT,
    variant: "lucene",
    documents: N,
    terms: V,
    postings: P,
    avgDocLength,
    windowShift: WINDOW_SHIFT,
    contentHash: hash.digest("hex"),
    bytes,
    blockCrc32: blockCrcs,
    builtAt: new Date().toISOString(),
    source: basename(corpusFile),
  };
  const meta: IndexMeta = { ...fields, metaCrc32: crcHex(crc32(metaText(fields))) };
  writeFileSync(join(dir, META_FILE), metaText(meta));
  return meta;
}

/**
 * Block maxima over windows of consecutive document numbers (see bm25-format.ts), quantized
 * upwards to a byte of the term maximum, and the position of each window's first posting, for
 * every term with at least as many postings as windows.
 */
function windowMaxima(
  postingOffsets: Uint32Array,
  docs: Uint32Array,
  scores: Float32Array,
  termMax: Float32Array,
  documents: number,
): { windowMax: Uint8Array; windowStart: Uint32Array } {
  const W = windowCount(documents);
  const V = termMax.length;
  let rows = 0;
  for (let r = 0; r < V; r++) if (hasWindows(postingOffsets[r + 1] - postingOffsets[r], W)) rows++;
  const windowMax = new Uint8Array(rows * W);
  const windowStart = new Uint32Array(rows * (W + 1));
  const best = new Float32Array(W);
  let slot = 0;
  for (let r = 0; r < V; r++) {
    const start = postingOffsets[r];
    const end = postingOffsets[r + 1];
    if (!hasWindows(end - start, W)) continue;
    best.fill(0);
    const starts = slot * (W + 1);
    let next = 0; // the next window whose first posting is not yet known
    for (let p = start; p < end; p++) {
      const w = docs[p] >>> WINDOW_SHIFT;
      while (next <= w) windowStart[starts + next++] = p;
      if (scores[p] > best[w]) best[w] = scores[p];
    }
    while (next <= W) windowStart[starts + next++] = end;
    const top = termMax[r];
    const at = slot * W;
    for (let w = 0; w < W; w++)
      if (best[w] > 0) windowMax[at + w] = Math.max(1, Math.min(255, Math.ceil((best[w] / top) * 255)));
    slot++;
  }
  return { windowMax, windowStart };
}

/** vocab-hash.u32 (see bm25-format.ts): every term's row + 1 at its hash or the next free slot. */
function vocabHashTable(vocab: Uint8Array, offsets: Uint32Array): Uint32Array {
  const V = offsets.length - 1;
  const table = new Uint32Array(vocabHashSlots(V));
  const mask = table.length - 1;
  for (let r = 0; r < V; r++) {
    let h = termHash(vocab, offsets[r], offsets[r + 1]) & mask;
    while (table[h] !== 0) h = (h + 1) & mask;
    table[h] = r + 1;
  }
  return table;
}

/** Swaps the finished folder into place; the old index is removed only after the new one is there. */
function replaceDir(tmpDir: string, indexDir: string): void {
  if (!existsSync(indexDir)) {
    renameSync(tmpDir, indexDir);
    return;
  }
  const old = join(dirname(indexDir), `.${basename(indexDir)}.old-${process.pid}`);
  rmSync(old, { recursive: true, force: true });
  renameSync(indexDir, old);
  renameSync(tmpDir, indexDir);
  rmSync(old, { recursive: true, force: true });
}
