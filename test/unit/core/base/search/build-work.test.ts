/**
 * The streaming build's work folder on its own, on tiny folders written here (build-index-fast.test.ts
 * holds it through whole builds): which finished chunks a re-run keeps (all there at their size, in
 * order, and texts.bin long enough for them) and what it clears, when it starts over and what it
 * says, the corpus identity that decides it, the manifest a chunk is recorded in, and the lock.
 */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { FILES, INDEX_VERSION } from "../../../../../src/core/base/search/bm25-format";
import {
  BuildWork,
  corpusIdentity,
  OUT_DIR,
  WORK_FORMAT,
  workDir,
  workSettings,
  type ChunkRecord,
  type WorkManifest,
  type WorkSettings,
} from "../../../../../src/core/base/search/build-work";
import { STEMMER_NAME, TOKENIZER_NAME } from "../../../../../src/core/base/search/tokenizer";
import { deadPid, holderPid, lockText } from "../../../../helpers/lock-holders";

const sha256 = (...parts: Buffer[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest("hex");
};

/** A chunk record whose file holds `bytes` bytes and whose texts end at `textEnd`. */
const chunk = (index: number, bytes: number, textEnd: number): ChunkRecord => ({
  file: `chunk-${String(index).padStart(5, "0")}.part`,
  docs: 10 + index,
  terms: 20 + index,
  postings: 30 + index,
  bytes,
  corpusEnd: 1000 * (index + 1),
  linesEnd: 10 * (index + 1),
  textEnd,
});

describe("search/build-work: the streaming build's work folder", () => {
  let tmp: string;
  let corpus: string;
  let indexDir: string;
  let dir: string;
  const settings = workSettings(1.2, 0.75, 20);

  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), "agent-lab-build-work-"));
    corpus = join(tmp, "corpus.jsonl");
    writeFileSync(corpus, '{"title": "A", "text": "some words"}\n'.repeat(50));
    indexDir = join(tmp, "bm25");
    dir = workDir(indexDir);
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** An interrupted build's folder: its manifest, the chunk files at `sizes`, out/texts.bin of `texts` bytes, and leftovers. */
  function interrupted(
    chunks: ChunkRecord[],
    sizes: (number | undefined)[],
    texts: number,
    over: Partial<WorkManifest> = {},
  ) {
    mkdirSync(join(dir, OUT_DIR), { recursive: true });
    const manifest: WorkManifest = { settings, corpus: corpusIdentity(corpus), chunks, ...over };
    writeFileSync(join(dir, "chunks.json"), JSON.stringify(manifest));
    chunks.forEach((c, i) => {
      if (sizes[i] !== undefined) writeFileSync(join(dir, c.file), Buffer.alloc(sizes[i], i + 1));
    });
    writeFileSync(join(dir, OUT_DIR, FILES.texts), Buffer.from(Array.from({ length: texts }, (_, i) => i % 251)));
    // What a merge or an unrecorded chunk had left: all of it goes.
    writeFileSync(join(dir, "chunk-00009.part"), "unrecorded");
    mkdirSync(join(dir, "merge-tmp"));
    writeFileSync(join(dir, "merge-tmp", "x"), "x");
    writeFileSync(join(dir, OUT_DIR, FILES.postingDocs), "half a merge");
    mkdirSync(join(dir, OUT_DIR, "merge-part"));
    writeFileSync(join(dir, OUT_DIR, "merge-part", "x"), "x");
  }

  const savedManifest = () => JSON.parse(readFileSync(join(dir, "chunks.json"), "utf8")) as WorkManifest;

  it("lives beside the index as <name>.build, and records this build's settings", () => {
    assert.equal(workDir(join(tmp, "deep", "bm25")), join(tmp, "deep", "bm25.build"));
    assert.deepEqual(settings, {
      format: WORK_FORMAT,
      indexVersion: INDEX_VERSION,
      k1: 1.2,
      b: 0.75,
      chunkDocuments: 20,
      tokenizer: TOKENIZER_NAME,
      stemmer: STEMMER_NAME,
    });
  });

  it("identifies a corpus by its size, mtime and the sha256 of its first and last 64 KiB", () => {
    const descriptors = () => readdirSync("/proc/self/fd").length;
    const open = existsSync("/proc/self/fd") ? descriptors() : 0;
    const small = corpusIdentity(corpus);
    if (open) assert.equal(descriptors(), open, "the corpus is closed again");
    const bytes = readFileSync(corpus);
    assert.deepEqual(small, { size: bytes.length, mtimeMs: statSync(corpus).mtimeMs, edges: sha256(bytes, bytes) });

    const big = join(tmp, "big.jsonl");
    const size = 200 << 10;
    const content = Buffer.from(Array.from({ length: size }, (_, i) => (i * 7) % 256));
    writeFileSync(big, content);
    const edge = 64 << 10;
    const id = corpusIdentity(big);
    assert.deepEqual(id, {
      size,
      mtimeMs: statSync(big).mtimeMs,
      edges: sha256(content.subarray(0, edge), content.subarray(size - edge)),
    });
    const when = statSync(big).mtime;
    const edited = (at: number) => {
      const copy = Buffer.from(content);
      copy[at] ^= 0xff;
      writeFileSync(big, copy);
      utimesSync(big, when, when);
      return corpusIdentity(big).edges;
    };
    assert.notEqual(edited(0), id.edges, "the first byte");
    assert.notEqual(edited(edge - 1), id.edges, "the last byte of the first 64 KiB");
    assert.notEqual(edited(size - edge), id.edges, "the first byte of the last 64 KiB");
    assert.notEqual(edited(size - 1), id.edges, "the last byte");
    assert.equal(edited(edge), id.edges, "a byte between the edges is not read");
    assert.equal(edited(size - edge - 1), id.edges, "nor the one just before the last 64 KiB");
  });

  it("starts a fresh folder: locked by this process, out/ made, chunks.json with no chunks, no note", () => {
    const notes: string[] = [];
    const work = BuildWork.open(corpus, indexDir, settings, (l) => notes.push(l));
    assert.deepEqual(notes, []);
    assert.equal(work.dir, dir);
    assert.equal(work.outDir, join(dir, OUT_DIR));
    assert.deepEqual(readdirSync(dir).sort(), ["chunks.json", "lock", OUT_DIR]);
    assert.deepEqual(readdirSync(work.outDir), []);
    assert.equal(holderPid(join(dir, "lock")), process.pid);
    assert.deepEqual(savedManifest(), { settings, corpus: corpusIdentity(corpus), chunks: [] });
    assert.deepEqual(work.manifest, savedManifest());
    assert.equal(work.textEnd(), 0);
    assert.equal(work.chunkBytes(), 0);
    work.release();
    assert.deepEqual(readdirSync(dir).sort(), ["chunks.json", OUT_DIR], "release lets go of the lock only");
    work.remove();
    assert.ok(!existsSync(dir));
    work.release(); // a finished build releases its lock after its folder went: no error
  });

  it("records each chunk in chunks.json as it is added, named by its index", () => {
    const work = BuildWork.open(corpus, indexDir, settings, () => {});
    assert.equal(work.chunkFile(0), "chunk-00000.part");
    assert.equal(work.chunkFile(37), "chunk-00037.part");
    assert.equal(work.chunkFile(123456), "chunk-123456.part");
    const a = chunk(0, 100, 40);
    const b = chunk(1, 250, 95);
    work.addChunk(a);
    assert.deepEqual(savedManifest().chunks, [a]);
    work.addChunk(b);
    assert.deepEqual(savedManifest().chunks, [a, b]);
    assert.equal(work.chunkBytes(), 350);
    assert.equal(work.textEnd(), 95, "the last chunk's texts end");
    work.release();
  });

  it("a re-run with the same corpus and settings keeps the finished chunks, cuts texts.bin back to them and clears the rest", () => {
    const chunks = [chunk(0, 100, 40), chunk(1, 60, 95)];
    interrupted(chunks, [100, 60], 130);
    const before = readFileSync(join(dir, OUT_DIR, FILES.texts));
    const notes: string[] = [];
    const work = BuildWork.open(corpus, indexDir, settings, (l) => notes.push(l));
    assert.deepEqual(notes, [`resuming the interrupted build in ${dir}: 2 finished chunk(s) kept`]);
    assert.deepEqual(work.manifest.chunks, chunks);
    assert.deepEqual(savedManifest().chunks, chunks);
    assert.deepEqual(readdirSync(dir).sort(), ["chunk-00000.part", "chunk-00001.part", "chunks.json", "lock", OUT_DIR]);
    assert.deepEqual(readdirSync(work.outDir), [FILES.texts]);
    assert.deepEqual(readFileSync(join(work.outDir, FILES.texts)), before.subarray(0, 95));
    assert.equal(work.textEnd(), 95);
    assert.equal(work.chunkBytes(), 160);
    work.release();
  });

  it("keeps the chunks up to the first missing or resized file, and none whose texts are not all in texts.bin", () => {
    const chunks = [chunk(0, 10, 5), chunk(1, 20, 12), chunk(2, 30, 20), chunk(3, 40, 31)];
    const cases: [string, (number | undefined)[], number, number][] = [
      ["the third file is missing", [10, 20, undefined, 40], 100, 2],
      ["the second file is shorter", [10, 19, 30, 40], 100, 1],
      ["the first file is longer", [11, 20, 30, 40], 100, 0],
      ["texts.bin ends inside the third chunk's texts", [10, 20, 30, 40], 19, 2],
      ["texts.bin ends exactly at the last chunk's texts", [10, 20, 30, 40], 31, 4],
    ];
    for (const [what, sizes, texts, kept] of cases) {
      rmSync(dir, { recursive: true, force: true });
      interrupted(chunks, sizes, texts);
      const notes: string[] = [];
      const work = BuildWork.open(corpus, indexDir, settings, (l) => notes.push(l));
      assert.deepEqual(work.manifest.chunks, chunks.slice(0, kept), what);
      assert.deepEqual(savedManifest().chunks, chunks.slice(0, kept), what);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.endsWith(".part")),
        chunks.slice(0, kept).map((c) => c.file),
        what,
      );
      const end = kept ? chunks[kept - 1].textEnd : 0;
      const texts_ = join(work.outDir, FILES.texts);
      assert.equal(existsSync(texts_) ? statSync(texts_).size : 0, end, what);
      assert.equal(existsSync(texts_), end > 0, `${what}: no texts.bin without a kept chunk`);
      assert.deepEqual(
        notes,
        kept ? [`resuming the interrupted build in ${dir}: ${kept} finished chunk(s) kept`] : [],
        what,
      );
      work.release();
    }
  });

  it("starts over, saying so, when the corpus or any setting changed; keeps nothing", () => {
    const chunks = [chunk(0, 10, 5), chunk(1, 20, 12)];
    const startingOver = `${corpus} or the build settings changed since the interrupted build in ${dir}: starting over`;
    const changes: [string, () => WorkSettings | undefined, Partial<WorkManifest>][] = [
      ["k1", () => workSettings(1.5, 0.75, 20), {}],
      ["b", () => workSettings(1.2, 0.7, 20), {}],
      ["chunk size", () => workSettings(1.2, 0.75, 21), {}],
      ["an older work format", () => undefined, { settings: { ...settings, format: WORK_FORMAT - 1 } }],
      ["another tokenizer", () => undefined, { settings: { ...settings, tokenizer: "other" } }],
      ["the corpus's size", () => undefined, { corpus: { ...corpusIdentity(corpus), size: 1 } }],
      ["the corpus's mtime", () => undefined, { corpus: { ...corpusIdentity(corpus), mtimeMs: 1 } }],
      ["the corpus's edges", () => undefined, { corpus: { ...corpusIdentity(corpus), edges: "0".repeat(64) } }],
    ];
    for (const [what, now, before] of changes) {
      rmSync(dir, { recursive: true, force: true });
      interrupted(chunks, [10, 20], 12, before);
      const notes: string[] = [];
      const asked = now() ?? settings;
      const work = BuildWork.open(corpus, indexDir, asked, (l) => notes.push(l));
      assert.deepEqual(notes, [startingOver], what);
      assert.deepEqual(savedManifest(), { settings: asked, corpus: corpusIdentity(corpus), chunks: [] }, what);
      assert.deepEqual(readdirSync(dir).sort(), ["chunks.json", "lock", OUT_DIR], what);
      assert.deepEqual(readdirSync(work.outDir), [], what);
      work.release();
    }
  });

  it("a torn or foreign chunks.json is no interrupted build: nothing kept, nothing said", () => {
    const chunks = [chunk(0, 10, 5)];
    const identity = corpusIdentity(corpus);
    for (const text of [
      "{not json",
      "{}",
      JSON.stringify({ settings, corpus: identity, chunks: {} }),
      JSON.stringify({ corpus: identity, chunks }),
      JSON.stringify({ settings, chunks }),
    ]) {
      rmSync(dir, { recursive: true, force: true });
      interrupted(chunks, [10], 5);
      writeFileSync(join(dir, "chunks.json"), text);
      const notes: string[] = [];
      const work = BuildWork.open(corpus, indexDir, settings, (l) => notes.push(l));
      assert.deepEqual(notes, [], text);
      assert.deepEqual(work.manifest.chunks, [], text);
      assert.deepEqual(readdirSync(dir).sort(), ["chunks.json", "lock", OUT_DIR], text);
      work.release();
    }
  });

  it("refuses a second build while the lock's process lives, changing nothing; takes over a dead, reused or garbage lock", () => {
    const lock = join(dir, "lock");
    interrupted([chunk(0, 10, 5)], [10], 5);
    const live = lockText(process.ppid); // the test runner's parent: alive, and started before now
    writeFileSync(lock, live);
    const before = readdirSync(dir).sort();
    const manifest = readFileSync(join(dir, "chunks.json"), "utf8");
    assert.throws(
      () => BuildWork.open(corpus, indexDir, settings, () => {}),
      (e: unknown) =>
        e instanceof UserError &&
        e.message ===
          `another build of this index is running (process ${process.ppid}, lock ${lock}): wait for it to finish`,
    );
    assert.deepEqual(readdirSync(dir).sort(), before, "nothing cleared");
    assert.equal(readFileSync(join(dir, "chunks.json"), "utf8"), manifest);
    assert.equal(readFileSync(lock, "utf8"), live);

    const reused = lockText(process.ppid, "2020-01-01T00:00:00.000Z"); // its pid now names a process started after it
    for (const stale of [
      lockText(deadPid()),
      reused,
      String(process.pid),
      "garbage",
      "",
      "0",
      lockText(0),
      lockText(-1),
    ]) {
      writeFileSync(lock, stale);
      const notes: string[] = [];
      const work = BuildWork.open(corpus, indexDir, settings, (l) => notes.push(l));
      assert.equal(holderPid(lock), process.pid, `taken over from "${stale}"`);
      assert.equal(work.manifest.chunks.length, 1, `the chunk is kept after taking over "${stale}"`);
      work.release();
      assert.ok(!existsSync(lock));
    }
  });

  it("a corpus it cannot read leaves no lock behind", () => {
    assert.throws(() => BuildWork.open(join(tmp, "missing.jsonl"), indexDir, settings, () => {}));
    assert.ok(!existsSync(join(dir, "lock")));
  });
});
