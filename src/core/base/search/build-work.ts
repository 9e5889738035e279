/**
 * The work folder of a streaming index build, `<indexDir>.build/` beside the index: the finished
 * chunks' partial indexes (partial-index.ts), `out/` where the new index is assembled (texts.bin
 * grows there chunk by chunk), and chunks.json (not manifest.json: this is not a run folder),
 * rewritten atomically after each chunk, which records the chunks and what they were built from.
 * A re-run of an interrupted build keeps the chunks when the corpus and the settings are the same,
 * and starts over (saying so) when not.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { UserError } from "../errors";
import { takeFileLock, type RunLock } from "../runs/run-folder";
import { writeJsonAtomic } from "../util/atomic-write";
import { FILES, INDEX_VERSION } from "./bm25-format";
import { STEMMER_NAME, TOKENIZER_NAME } from "./tokenizer";

/** Corpus lines (one document each) per chunk: about 70M postings of Wikipedia passages, ~1 GB of memory while it fills. */
export const CHUNK_DOCUMENTS = 1 << 20;

/** Bump when the chunk files or this manifest change: an older work folder then starts over. */
export const WORK_FORMAT = 1;

const MANIFEST = "chunks.json";
const LOCK = "lock";
export const OUT_DIR = "out";

export interface WorkSettings {
  format: number;
  indexVersion: number;
  k1: number;
  b: number;
  chunkDocuments: number;
  tokenizer: string;
  stemmer: string;
}

/** Enough to tell a changed corpus without reading it: its size, mtime and the sha256 of its first and last 64 KiB. */
export interface CorpusIdentity {
  size: number;
  mtimeMs: number;
  edges: string;
}

export interface ChunkRecord {
  file: string;
  docs: number;
  terms: number;
  postings: number;
  bytes: number;
  /** Where the next chunk starts: a byte offset in the corpus, the lines read so far, and texts.bin's size. */
  corpusEnd: number;
  linesEnd: number;
  textEnd: number;
}

export interface WorkManifest {
  settings: WorkSettings;
  corpus: CorpusIdentity;
  chunks: ChunkRecord[];
}

export function workDir(indexDir: string): string {
  return join(dirname(indexDir), `${basename(indexDir)}.build`);
}

export function workSettings(k1: number, b: number, chunkDocuments: number): WorkSettings {
  return {
    format: WORK_FORMAT,
    indexVersion: INDEX_VERSION,
    k1,
    b,
    chunkDocuments,
    tokenizer: TOKENIZER_NAME,
    stemmer: STEMMER_NAME,
  };
}

export function corpusIdentity(file: string): CorpusIdentity {
  const { size, mtimeMs } = statSync(file);
  const edge = 64 << 10;
  const hash = createHash("sha256");
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(Math.min(edge, size));
    for (const at of [0, Math.max(0, size - edge)]) {
      const n = readSync(fd, buffer, 0, buffer.length, at);
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return { size, mtimeMs, edges: hash.digest("hex") };
}

/** A build's hold on its work folder: what it may keep, and the lock it must release. */
export class BuildWork {
  readonly dir: string;
  readonly outDir: string;
  manifest: WorkManifest;

  private constructor(
    dir: string,
    manifest: WorkManifest,
    private readonly held: RunLock,
  ) {
    this.dir = dir;
    this.outDir = join(dir, OUT_DIR);
    this.manifest = manifest;
  }

  /**
   * Opens (or starts) the work folder of `indexDir` for this corpus and these settings: finished
   * chunks are kept when both are unchanged, texts.bin is cut back to their end, and anything the
   * merge had written is dropped (the merge restarts from the chunks). `note` hears one line when a
   * build resumes or starts over.
   */
  static open(corpusFile: string, indexDir: string, settings: WorkSettings, note: (line: string) => void): BuildWork {
    const dir = workDir(indexDir);
    mkdirSync(dir, { recursive: true });
    const held = lock(dir);
    try {
      const corpus = corpusIdentity(corpusFile);
      const previous = readManifest(dir);
      let chunks: ChunkRecord[] = [];
      if (previous) {
        const same =
          JSON.stringify(previous.settings) === JSON.stringify(settings) && sameCorpus(previous.corpus, corpus);
        if (!same)
          note(`${corpusFile} or the build settings changed since the interrupted build in ${dir}: starting over`);
        else chunks = keptChunks(dir, previous.chunks);
        if (same && chunks.length > 0)
          note(`resuming the interrupted build in ${dir}: ${chunks.length} finished chunk(s) kept`);
      }
      const work = new BuildWork(dir, { settings, corpus, chunks }, held);
      work.clear();
      work.save();
      return work;
    } catch (e) {
      held.release(); // a corpus it cannot read: no lock left behind
      throw e;
    }
  }

  /** Everything but the kept chunks, the manifest and the lock goes; texts.bin is cut back to the kept chunks' end. */
  clear(): void {
    const keep = new Set([MANIFEST, LOCK, OUT_DIR, ...this.manifest.chunks.map((c) => c.file)]);
    for (const name of readdirSync(this.dir))
      if (!keep.has(name)) rmSync(join(this.dir, name), { recursive: true, force: true });
    mkdirSync(this.outDir, { recursive: true });
    for (const name of readdirSync(this.outDir))
      if (name !== FILES.texts) rmSync(join(this.outDir, name), { recursive: true, force: true });
    const texts = join(this.outDir, FILES.texts);
    const end = this.textEnd();
    if (end === 0) rmSync(texts, { force: true });
    else truncateSync(texts, end);
  }

  /** Bytes of texts.bin the kept chunks wrote. */
  textEnd(): number {
    return this.manifest.chunks.at(-1)?.textEnd ?? 0;
  }

  chunkFile(index: number): string {
    return `chunk-${String(index).padStart(5, "0")}.part`;
  }

  addChunk(chunk: ChunkRecord): void {
    this.manifest.chunks.push(chunk);
    this.save();
  }

  private save(): void {
    writeJsonAtomic(join(this.dir, MANIFEST), this.manifest);
  }

  /** Bytes of the chunk files. */
  chunkBytes(): number {
    return this.manifest.chunks.reduce((a, c) => a + c.bytes, 0);
  }

  release(): void {
    this.held.release();
  }

  /** The build is done (or its input was bad): the folder goes. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function readManifest(dir: string): WorkManifest | undefined {
  try {
    const m = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Partial<WorkManifest>;
    return m.settings && m.corpus && Array.isArray(m.chunks) ? (m as WorkManifest) : undefined;
  } catch {
    return undefined; // none, or torn by a crash of an older build: nothing to keep
  }
}

function sameCorpus(a: CorpusIdentity, b: CorpusIdentity): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.edges === b.edges;
}

/** The recorded chunks whose files are all there at their size, up to the first that is not, and texts.bin long enough. */
function keptChunks(dir: string, chunks: ChunkRecord[]): ChunkRecord[] {
  const kept: ChunkRecord[] = [];
  for (const c of chunks) {
    const file = join(dir, c.file);
    if (!existsSync(file) || statSync(file).size !== c.bytes) break;
    kept.push(c);
  }
  const texts = join(dir, OUT_DIR, FILES.texts);
  const have = existsSync(texts) ? statSync(texts).size : 0;
  while (kept.length > 0 && kept[kept.length - 1].textEnd > have) kept.pop();
  return kept;
}

/** One build at a time per index: the run folders' lock (a crashed build's is taken over, by one taker). */
function lock(dir: string): RunLock {
  return takeFileLock(join(dir, LOCK), "agent-lab index build", {
    held: (holder) =>
      new UserError(
        `another build of this index is running (process ${holder.pid}, lock ${join(dir, LOCK)}): wait for it to finish`,
      ),
    noTurn: (file) => new UserError(`could not lock ${file}: remove it if no build is running`),
  });
}
