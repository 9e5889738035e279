/**
 * Builds a BM25 index folder from corpus.jsonl ({id, title, text} per line), streaming, so that
 * memory is bounded by a chunk and not by the corpus:
 *   1. chunks: the corpus is read in chunks of a fixed number of lines, tokenized on worker threads
 *      (both cores); each chunk's postings are written as a partial index (partial-index.ts) to the
 *      work folder beside the index (build-work.ts), and its titles and texts are appended to the
 *      new texts.bin;
 *   2. merge: the partial indexes are merged on disk by term (merge-partials.ts) into the index's
 *      files, with BM25 contributions from the whole corpus's statistics; meta.json is written last
 *      and the folder renamed into place, so the previous index serves until then.
 * A build that is killed keeps its finished chunks: run again, it resumes after them (a changed
 * corpus starts over), and a resumed build writes the same bytes as an uninterrupted one.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
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
  metaText,
  type IndexFile,
  type IndexMeta,
} from "./bm25-format";
import { sealDataFile } from "./block-crc";
import { BuildWork, CHUNK_DOCUMENTS, workSettings } from "./build-work";
import { CorpusBatcher, type BatchRequest, type BatchResult } from "./corpus-batch";
import { readCorpusBatches, type CorpusBatch } from "./corpus-chunks";
import { Growable } from "./growable";
import { mergePartials, type MergeResult } from "./merge-partials";
import { ChunkPostings } from "./partial-index";
import { STEMMER_NAME, TOKENIZER_NAME } from "./tokenizer";
import { MISSING, WordTable } from "./word-table";

export interface BuildOptions {
  k1?: number;
  b?: number;
  /** Tokenizer threads; default min(2, cores). 0 tokenizes on the calling thread. */
  workers?: number;
  /** Corpus bytes per batch sent to a worker. */
  batchBytes?: number;
  /** Corpus lines (documents) per chunk; default CHUNK_DOCUMENTS (a corpus smaller than a chunk is one chunk). */
  chunkDocuments?: number;
  /** Postings merged between two merge progress reports (default 4M; small ones let a test stop a merge midway). */
  mergeReportPostings?: number;
  /** Called as the build goes: paragraphs read so far, and where the build stands. */
  onProgress?: (documents: number, progress: BuildProgress) => void;
  /** One-line notes: a build resuming after its kept chunks, or starting over because the corpus changed. */
  onNote?: (line: string) => void;
}

export interface BuildProgress {
  phase: "chunks" | "merge";
  /** The chunk being read (1-based) and the chunks expected (an estimate until the corpus's end). */
  chunk: number;
  chunks: number;
  documents: number;
  /** Paragraphs per second read by this process (chunks), postings per second merged (merge). */
  perSecond: number;
  /** Seconds left in this phase at this pace; undefined until there is a pace. */
  etaSeconds: number | undefined;
  /** Merge: postings merged so far, of all. */
  postingsMerged: number;
  postings: number;
  /** Bytes in the work folder now. */
  workBytes: number;
}

export interface BuildSummary {
  indexDir: string;
  documents: number;
  terms: number;
  postings: number;
  bytes: number;
  seconds: number;
  contentHash: string;
  /** Chunks of the build, and how many of them an interrupted build had finished. */
  chunks: number;
  chunksKept: number;
  /** The work folder's largest size (the partial indexes and the new index, before the partials go). */
  workPeakBytes: number;
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
  const chunkDocuments = options.chunkDocuments ?? CHUNK_DOCUMENTS;
  mkdirSync(dirname(indexDir), { recursive: true });
  const work = BuildWork.open(corpusFile, indexDir, workSettings(k1, b, chunkDocuments), options.onNote ?? (() => {}));
  try {
    const chunksKept = work.manifest.chunks.length;
    await readChunks(corpusFile, work, chunkDocuments, options);
    const chunks = work.manifest.chunks;
    const documents = chunks.reduce((a, c) => a + c.docs, 0);
    if (documents === 0) throw new UserError(`corpus file ${corpusFile} has no paragraphs`);
    const merged = merge(work, k1, b, documents, options);
    const meta = writeMeta(merged, work.outDir, k1, b, corpusFile);
    const bytes = Object.values(meta.bytes).reduce((a, n) => a + n, 0);
    const workPeakBytes = work.chunkBytes() + bytes;
    replaceDir(work.outDir, indexDir);
    work.remove();
    return {
      indexDir,
      documents: meta.documents,
      terms: meta.terms,
      postings: meta.postings,
      bytes,
      seconds: (performance.now() - started) / 1000,
      contentHash: meta.contentHash,
      chunks: chunks.length,
      chunksKept,
      workPeakBytes,
    };
  } catch (e) {
    // Bad input is fixed by editing the corpus, which a re-run would not resume from anyway; any
    // other failure (a full disk, a kill) keeps the finished chunks for the next run.
    if (e instanceof UserError) work.remove();
    throw e;
  } finally {
    work.release();
  }
}

/** Reads the corpus after the kept chunks, writing each further chunk's partial index and texts. */
async function readChunks(
  corpusFile: string,
  work: BuildWork,
  chunkDocuments: number,
  options: BuildOptions,
): Promise<void> {
  const kept = work.manifest.chunks.at(-1);
  const start = { offset: kept?.corpusEnd ?? 0, lines: kept?.linesEnd ?? 0 };
  const corpusBytes = work.manifest.corpus.size;
  const vocab = new WordTable();
  const terms: string[] = [];
  const idOf = (t: string) => vocab.get(t, 0, t.length);
  const translate: Growable<Uint32Array>[] = [];
  const chunk = new ChunkPostings();
  let documents = kept ? work.manifest.chunks.reduce((a, c) => a + c.docs, 0) : 0;
  chunk.reset(documents);
  const texts = openSync(join(work.outDir, FILES.texts), "a");
  let textBytes = work.textEnd();
  // Batches in flight, by sequence number: where each ends in the corpus.
  const batches = new Map<number, CorpusBatch>();
  let last: CorpusBatch | undefined;
  let unflushed = false;
  const began = performance.now();
  const docsBefore = documents;
  let lastReport = 0;

  const flush = (end: CorpusBatch) => {
    const index = work.manifest.chunks.length;
    const name = work.chunkFile(index);
    const file = join(work.dir, name);
    const summary = chunk.write(`${file}.tmp`, { terms, idOf });
    fsyncSync(texts); // the manifest may say texts.bin holds this chunk only once it does
    renameSync(`${file}.tmp`, file);
    work.addChunk({ file: name, ...summary, corpusEnd: end.end, linesEnd: end.linesEnd, textEnd: textBytes });
    chunk.reset(documents);
    unflushed = false;
    report(true); // a finished chunk is always reported: the count "chunk i/n" moves on
  };

  const report = (force: boolean) => {
    const now = performance.now();
    if (!options.onProgress || (!force && now - lastReport < 500)) return;
    lastReport = now;
    const at = last?.end ?? start.offset;
    const read = at - start.offset;
    const seconds = (now - began) / 1000;
    const linesPerByte = last && last.end > 0 ? last.linesEnd / last.end : 0;
    const index = work.manifest.chunks.length;
    const expected = linesPerByte > 0 ? Math.ceil((corpusBytes * linesPerByte) / chunkDocuments) : index + 1;
    const perSecond = seconds > 0 ? (documents - docsBefore) / seconds : 0;
    options.onProgress(documents, {
      phase: "chunks",
      chunk: index + 1,
      chunks: Math.max(index + 1, expected),
      documents,
      perSecond,
      etaSeconds: read > 0 ? ((corpusBytes - at) * seconds) / read : undefined,
      postingsMerged: 0,
      postings: 0,
      workBytes: work.chunkBytes() + textBytes,
    });
  };

  const add = (r: BatchResult, source: number): void => {
    const batch = batches.get(r.seq)!;
    batches.delete(r.seq);
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
    chunk.add(r, map.view());
    documents += r.docs;
    if (r.textBytes.length > 0) {
      for (let at = 0; at < r.textBytes.length;) at += writeSync(texts, r.textBytes, at);
      textBytes += r.textBytes.length;
    }
    last = batch;
    unflushed = true;
    if (batch.endsChunk) flush(batch);
    report(false);
  };

  try {
    let seq = 0;
    const requests = function* (): Generator<BatchRequest & CorpusBatch> {
      for (const batch of readCorpusBatches(corpusFile, options.batchBytes ?? 4 << 20, chunkDocuments, start)) {
        const request = { ...batch, seq: seq++ };
        batches.set(request.seq, batch);
        yield request;
      }
    };
    await tokenizeBatches(requests(), options, add);
    if (unflushed && last) flush(last);
    report(true);
  } finally {
    closeSync(texts);
  }
}

function merge(work: BuildWork, k1: number, b: number, documents: number, options: BuildOptions): MergeResult {
  const chunks = work.manifest.chunks;
  const postings = chunks.reduce((a, c) => a + c.postings, 0);
  const chunkBytes = work.chunkBytes();
  const textBytes = work.textEnd();
  const began = performance.now();
  return mergePartials(
    chunks.map((c) => ({ file: join(work.dir, c.file), docs: c.docs, postings: c.postings })),
    work.outDir,
    k1,
    b,
    (merged) => {
      const seconds = (performance.now() - began) / 1000;
      const perSecond = seconds > 0 ? merged / seconds : 0;
      options.onProgress?.(documents, {
        phase: "merge",
        chunk: chunks.length,
        chunks: chunks.length,
        documents,
        perSecond,
        etaSeconds: perSecond > 0 ? (postings - merged) / perSecond : undefined,
        postingsMerged: merged,
        postings,
        // The postings files grow by 8 bytes a posting; the rest is small beside them.
        workBytes: chunkBytes + textBytes + 8 * merged,
      });
    },
    options.mergeReportPostings,
  );
}

/** Seals every data file (its block-CRC table: block-crc.ts) and writes meta.json, last. */
function writeMeta(m: MergeResult, dir: string, k1: number, b: number, corpusFile: string): IndexMeta {
  const settings = {
    format: INDEX_FORMAT,
    version: INDEX_VERSION,
    variant: "lucene",
    k1,
    b,
    tokenizer: TOKENIZER_NAME,
    stemmer: STEMMER_NAME,
  } as const;
  const hash = createHash("sha256").update(JSON.stringify(settings));
  const bytes = {} as Record<IndexFile, number>;
  const blockCrcs = {} as Record<IndexFile, string>;
  for (const key of INDEX_FILES) {
    const sealed = sealDataFile(dir, key);
    hash.update(sealed.sha256);
    bytes[key] = sealed.bytes;
    blockCrcs[key] = sealed.blockCrc32;
  }
  const fields: Omit<IndexMeta, "metaCrc32"> = {
    ...settings,
    documents: m.documents,
    terms: m.terms,
    postings: m.postings,
    avgDocLength: m.avgDocLength,
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

/** The build worker script next to this module (bundled .js, or .ts under tsx), if there is one. */
const workerScript = () => findWorkerScript(__dirname, ["bm25-build-worker.js", "build-worker.js", "build-worker.ts"]);

/** Build worker threads: `count`, or none when options.workers is 0 or no worker script is found. */
function startWorkers(options: BuildOptions, count: number): Worker[] {
  const script = workerScript();
  if (!script || options.workers === 0) return [];
  return Array.from({ length: count }, () => startWorkerThread(script));
}

/** Tokenizes every batch, handing the results to `add` in corpus order. */
async function tokenizeBatches(
  batches: Iterable<BatchRequest>,
  options: BuildOptions,
  add: (r: BatchResult, source: number) => void,
): Promise<void> {
  const workers = startWorkers(options, options.workers ?? Math.min(2, availableParallelism()));
  const count = workers.length;
  if (count === 0) {
    const batcher = new CorpusBatcher();
    for (const batch of batches) add(batcher.tokenize(batch), 0);
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
    w.on("message", (r: BatchResult) => {
      inFlight[i]--;
      done.set(r.seq, { r, source: i });
      try {
        for (let next = done.get(nextMerge); next; next = done.get(nextMerge)) {
          done.delete(nextMerge++);
          add(next.r, next.source);
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
    for (const batch of batches) {
      while (failure === undefined && total() >= 2 * count) await waitForWorkers();
      if (failure !== undefined) break;
      // Batches go to the least busy worker; each worker sees its own batches in order, which
      // keeps its local term ids consistent with the order they are added in.
      const target = inFlight.indexOf(Math.min(...inFlight));
      inFlight[target]++;
      const request: BatchRequest = { seq: batch.seq, firstLine: batch.firstLine, bytes: batch.bytes };
      workers[target].postMessage(request, [batch.bytes.buffer as ArrayBuffer]);
    }
    while (failure === undefined && total() > 0) await waitForWorkers();
    if (failure !== undefined) throw failure;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** Swaps the finished folder into place; the old index is removed only after the new one is there. */
function replaceDir(newDir: string, indexDir: string): void {
  if (!existsSync(indexDir)) {
    renameSync(newDir, indexDir);
    return;
  }
  const old = join(dirname(indexDir), `.${basename(indexDir)}.old-${process.pid}`);
  rmSync(old, { recursive: true, force: true });
  renameSync(indexDir, old);
  renameSync(newDir, indexDir);
  rmSync(old, { recursive: true, force: true });
}
