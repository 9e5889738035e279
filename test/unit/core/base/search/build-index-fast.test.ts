import { strict as assert } from "node:assert";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import {
  buildIndex,
  openIndex,
  type BuildOptions,
  type BuildProgress,
  type BuildSummary,
} from "../../../../../src/core/base/search";
import {
  DEFAULT_B,
  DEFAULT_K1,
  FILES,
  META_FILE,
  type IndexMeta,
} from "../../../../../src/core/base/search/bm25-format";
import { workDir } from "../../../../../src/core/base/search/build-work";

/**
 * The index builder's own behaviours, in process and in milliseconds (streaming-build.test.ts holds
 * the same with killed child processes, too slow to run per mutant): the worker threads' index
 * equals the calling thread's byte for byte, the progress lines' numbers, a stopped build resuming
 * after its finished chunks, the lock, the notes, and the final folder swap. A build is stopped the
 * way a failure stops it: an error thrown from its own progress callback (not a UserError), which
 * leaves the work folder as a kill between two steps would.
 */

/** Every line the same length in bytes, so paragraphs per byte is the same in every chunk and the estimates are exact. */
function corpusLines(rows: number, tag = ""): string[] {
  const words = ["film", "films", "river", "東京", "café", "cafe", "tie", "zz"];
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const w = words[i % words.length];
    const row = { id: 1000 + i, title: `T${i % 5}`, text: `${w} tie x${String(i % 13).padStart(2, "0")} ${tag}word` };
    lines.push(JSON.stringify(row));
  }
  const width = Math.max(...lines.map((l) => Buffer.byteLength(l)));
  return lines.map((l) => l.slice(0, -1) + " ".repeat(width - Buffer.byteLength(l)) + "}");
}

function assertSameIndex(a: string, b: string): void {
  const names = readdirSync(a).sort();
  assert.deepEqual(readdirSync(b).sort(), names);
  const untimed = (text: string) => text.replace(/"builtAt": "[^"]*"/, "").replace(/"metaCrc32": "[^"]*"/, "");
  for (const name of names) {
    const x = readFileSync(join(a, name));
    const y = readFileSync(join(b, name));
    if (name === META_FILE) assert.equal(untimed(y.toString()), untimed(x.toString()), name);
    else assert.ok(x.equals(y), `${name} differs`);
  }
}

/** Bytes of the work folder's chunk files and its new texts.bin, read from the disk. */
function workFolderBytes(indexDir: string): number {
  const dir = workDir(indexDir);
  let bytes = 0;
  for (const name of readdirSync(dir)) if (name.endsWith(".part")) bytes += statSync(join(dir, name)).size;
  const texts = readdirSync(dir, { recursive: true, encoding: "utf8" }).find((p) => p.endsWith(FILES.texts));
  return bytes + (texts ? statSync(join(dir, texts)).size : 0);
}

class Stop extends Error {}

/** A build stopped from its own progress callback when `at` says so: the work folder stays as a kill would leave it. */
async function stoppedBuild(
  corpus: string,
  indexDir: string,
  options: BuildOptions,
  at: (p: BuildProgress) => boolean,
) {
  await assert.rejects(
    buildIndex(corpus, indexDir, {
      ...options,
      onProgress: (_d, p) => {
        if (at(p)) throw new Stop("stopped");
      },
    }),
    Stop,
  );
}

describe("index builder (in process)", () => {
  let tmp: string;
  let corpus: string;
  const ROWS = 100;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), "agent-lab-build-fast-"));
    corpus = join(tmp, "corpus.jsonl");
    writeFileSync(corpus, corpusLines(ROWS).join("\n") + "\n");
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it("worker threads write the calling thread's index byte for byte, and the same summary", async function () {
    this.timeout(60_000);
    const here = await buildIndex(corpus, join(tmp, "here"), { workers: 0, chunkDocuments: 30, batchBytes: 400 });
    for (const workers of [1, 2]) {
      const dir = join(tmp, `w${workers}`);
      const threads = await buildIndex(corpus, dir, { workers, chunkDocuments: 30, batchBytes: 400 });
      assertSameIndex(join(tmp, "here"), dir);
      for (const key of ["documents", "terms", "postings", "bytes", "contentHash", "chunks"] as const)
        assert.equal(threads[key], here[key], `${key} with ${workers} worker(s)`);
      assert.ok(!existsSync(workDir(dir)));
    }
    assert.equal(here.documents, ROWS);
    assert.equal(here.chunks, 4);
  });

  it("a bad line read by a worker thread names its file and line; the work folder goes", async function () {
    this.timeout(60_000);
    const lines = corpusLines(ROWS);
    lines.splice(70, 0, '{"title": "Broken", "text": 12}');
    writeFileSync(corpus, lines.join("\n") + "\n");
    const indexDir = join(tmp, "bm25");
    for (const workers of [0, 2]) {
      await assert.rejects(
        buildIndex(corpus, indexDir, { workers, chunkDocuments: 30, batchBytes: 300 }),
        (e: unknown) => e instanceof FileFormatError && e.message === `${corpus}:71: "text" must be a string`,
      );
      assert.ok(!existsSync(workDir(indexDir)), `no work folder left (${workers} workers)`);
      assert.ok(!existsSync(indexDir));
    }
  });

  it("progress: each finished chunk with its paragraphs, the expected chunks, the work folder's bytes and an ETA that matches the pace", async () => {
    const indexDir = join(tmp, "bm25");
    const seen: { docs: number; p: BuildProgress; disk: number; elapsed: number }[] = [];
    const t0 = performance.now();
    const r = await buildIndex(corpus, indexDir, {
      workers: 0,
      chunkDocuments: 40,
      mergeReportPostings: 37,
      onProgress: (docs, p) =>
        seen.push({ docs, p: { ...p }, disk: workFolderBytes(indexDir), elapsed: (performance.now() - t0) / 1000 }),
    });
    // A pace is counted over at most the seconds since the build began: never below this one.
    for (const { p, elapsed } of seen) {
      const done = p.phase === "chunks" ? p.documents : p.postingsMerged;
      assert.ok(p.perSecond >= (done / elapsed) * (1 - 1e-9), `${p.phase} pace ${p.perSecond} at ${elapsed} s`);
    }
    assert.equal(r.chunks, 3);
    assert.equal(r.chunksKept, 0);
    const chunks = seen.filter((s) => s.p.phase === "chunks");
    const merge = seen.filter((s) => s.p.phase === "merge");
    // A report when each chunk is finished (then it reads the next one), and one at the corpus's end.
    for (const [i, docs] of [40, 80, 100].entries()) {
      const s = chunks.find((c) => c.p.chunk === i + 2);
      assert.ok(s, `a report after chunk ${i + 1}`);
      assert.equal(s.docs, docs);
      assert.equal(s.p.documents, docs);
    }
    assert.equal(chunks[chunks.length - 1].p.documents, ROWS);
    for (const { docs, p, disk } of chunks) {
      assert.equal(p.documents, docs);
      assert.equal(p.workBytes, disk, `work bytes at ${docs} paragraphs`);
      assert.equal(p.postingsMerged, 0);
      assert.equal(p.postings, 0);
      // Equal lines: 3 chunks expected from the first one on; never fewer than the one being read.
      assert.equal(p.chunks, Math.max(3, p.chunk));
      assert.ok(p.perSecond > 0, "paragraphs per second");
      assert.ok(p.etaSeconds !== undefined);
      // Seconds left at this pace hold the paragraphs left.
      assert.ok(Math.abs(p.etaSeconds * p.perSecond - (ROWS - docs)) < 1e-6 * ROWS, `eta at ${docs}: ${p.etaSeconds}`);
    }
    assert.equal(chunks[chunks.length - 1].p.etaSeconds, 0);

    assert.ok(merge.length >= 3, "merge reports");
    assert.ok(seen.indexOf(merge[0]) > seen.indexOf(chunks[chunks.length - 1]));
    const chunkBytes = merge[0].disk - statSync(join(indexDir, FILES.texts)).size;
    let before = 0;
    for (const { docs, p } of merge) {
      assert.equal(docs, ROWS);
      assert.equal(p.documents, ROWS);
      assert.equal(p.chunk, 3);
      assert.equal(p.chunks, 3);
      assert.equal(p.postings, r.postings);
      assert.ok(p.postingsMerged >= before && p.postingsMerged > 0 && p.postingsMerged <= r.postings);
      before = p.postingsMerged;
      // The chunk files and texts.bin, and 8 bytes a posting merged so far.
      assert.equal(p.workBytes, chunkBytes + statSync(join(indexDir, FILES.texts)).size + 8 * p.postingsMerged);
      assert.ok(p.perSecond > 0);
      assert.ok(p.etaSeconds !== undefined);
      assert.ok(Math.abs(p.etaSeconds * p.perSecond - (r.postings - p.postingsMerged)) < 1e-6 * r.postings);
    }
    assert.equal(before, r.postings, "the last merge report has every posting");

    // The summary: the index's files and numbers, and the work folder's peak (chunks + new index).
    const meta = JSON.parse(readFileSync(join(indexDir, META_FILE), "utf8")) as IndexMeta;
    // Each data file's bytes as meta.json gives them (a file holds its block-CRC table too, after them).
    const indexBytes = Object.values(meta.bytes).reduce((a, n) => a + n, 0);
    for (const [key, name] of Object.entries(FILES))
      assert.ok(statSync(join(indexDir, name)).size >= meta.bytes[key as keyof typeof FILES], name);
    assert.equal(r.bytes, indexBytes);
    assert.equal(r.workPeakBytes, chunkBytes + indexBytes);
    assert.deepEqual(
      [r.documents, r.terms, r.postings, r.contentHash],
      [meta.documents, meta.terms, meta.postings, meta.contentHash],
    );
    assert.equal(r.indexDir, indexDir);
    assert.ok(r.seconds > 0 && r.seconds <= (performance.now() - t0) / 1000, `${r.seconds} s`);
    assert.equal(meta.source, "corpus.jsonl");
    assert.deepEqual([meta.k1, meta.b], [DEFAULT_K1, DEFAULT_B]);
  });

  it("k1 and b are the index's, and go into its meta", async () => {
    const indexDir = join(tmp, "bm25");
    await buildIndex(corpus, indexDir, { workers: 0, k1: 1.2, b: 0.5 });
    const meta = JSON.parse(readFileSync(join(indexDir, META_FILE), "utf8")) as IndexMeta;
    assert.deepEqual([meta.k1, meta.b], [1.2, 0.5]);
  });

  for (const where of ["after 2 chunks", "mid-merge"] as const) {
    it(`a build stopped ${where} resumes after its finished chunks, with a note, to the same bytes; the old index serves meanwhile`, async () => {
      const options: BuildOptions = { workers: 0, chunkDocuments: 20, mergeReportPostings: 30 };
      const fresh = join(tmp, "fresh");
      await buildIndex(corpus, fresh, options);
      const indexDir = join(tmp, "bm25");
      writeFileSync(join(tmp, "old.jsonl"), JSON.stringify({ title: "Old", text: "previous index words" }) + "\n");
      await buildIndex(join(tmp, "old.jsonl"), indexDir, { workers: 0 });

      await stoppedBuild(corpus, indexDir, options, (p) =>
        where === "mid-merge" ? p.phase === "merge" && p.postingsMerged > 0 : p.phase === "chunks" && p.chunk === 3,
      );
      const work = workDir(indexDir);
      const kept = where === "mid-merge" ? 5 : 2;
      assert.equal(readdirSync(work).filter((f) => f.endsWith(".part")).length, kept);
      assert.ok(!existsSync(join(work, "lock")), "a stopped build lets go of its lock");
      assert.equal(openIndex(indexDir).search("previous", 1)[0].title, "Old", "the old index still answers");

      const notes: string[] = [];
      const seen: { docs: number; p: BuildProgress }[] = [];
      const resumed = await buildIndex(corpus, indexDir, {
        ...options,
        onNote: (l) => notes.push(l),
        onProgress: (docs, p) => seen.push({ docs, p: { ...p } }),
      });
      assert.deepEqual(notes, [`resuming the interrupted build in ${work}: ${kept} finished chunk(s) kept`]);
      assert.equal(resumed.chunksKept, kept);
      assert.equal(resumed.chunks, 5);
      assert.equal(resumed.documents, ROWS);
      assertSameIndex(fresh, indexDir);
      assert.ok(!existsSync(work));
      const chunks = seen.filter((s) => s.p.phase === "chunks");
      // Counting goes on from the kept chunks' paragraphs; pace and ETA are this run's reading.
      assert.ok(chunks.every((s) => s.docs >= kept * 20 && s.p.chunk > kept));
      if (where === "mid-merge") {
        // Nothing left to read: one report, with no pace and no ETA.
        assert.equal(chunks.length, 1);
        assert.deepEqual([chunks[0].docs, chunks[0].p.chunk, chunks[0].p.chunks], [ROWS, 6, 6]);
        assert.equal(chunks[0].p.perSecond, 0);
        assert.equal(chunks[0].p.etaSeconds, undefined);
      }
      if (where === "after 2 chunks") {
        const first = chunks.find((s) => s.p.chunk === 4)!;
        assert.equal(first.docs, 60);
        assert.equal(first.p.chunks, 5);
        assert.ok(Math.abs(first.p.etaSeconds! * first.p.perSecond - (ROWS - 60)) < 1e-6 * ROWS);
      }
    });
  }

  it("a corpus changed since the stop starts over, with a one-line note, to a fresh build's bytes", async () => {
    const options: BuildOptions = { workers: 0, chunkDocuments: 20 };
    const indexDir = join(tmp, "bm25");
    await stoppedBuild(corpus, indexDir, options, (p) => p.phase === "chunks" && p.chunk === 3);
    appendFileSync(corpus, corpusLines(1, "new")[0] + "\n");
    const notes: string[] = [];
    const r = await buildIndex(corpus, indexDir, { ...options, onNote: (l) => notes.push(l) });
    assert.equal(r.chunksKept, 0);
    assert.equal(r.documents, ROWS + 1);
    assert.deepEqual(notes, [
      `${corpus} or the build settings changed since the interrupted build in ${workDir(indexDir)}: starting over`,
    ]);
    await buildIndex(corpus, join(tmp, "fresh"), options);
    assertSameIndex(join(tmp, "fresh"), indexDir);
  });

  it("progress between chunks comes at most twice a second, the first at once", async () => {
    const docs: number[] = [];
    const t0 = performance.now();
    await buildIndex(corpus, join(tmp, "bm25"), {
      workers: 0,
      batchBytes: 120,
      onProgress: (d, p) => {
        if (p.phase === "chunks") docs.push(d);
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    assert.ok(docs[0] < ROWS, `the first batch is reported (${docs[0]} paragraphs)`);
    // One at the first batch, one each half second after, and the two at the chunk's and the corpus's end.
    assert.ok(docs.length <= 3 + Math.floor(seconds / 0.5), `${docs.length} reports in ${seconds} s`);
  });

  it("tokenizes on the threads asked for (default two), none for workers: 0, and ends them with the build", async function () {
    this.timeout(60_000);
    const ports = () => process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length;
    const before = ports();
    const expected = [
      [0, 0],
      [1, 1],
      [2, 2],
      [undefined, Math.min(2, availableParallelism())],
    ] as const;
    for (const [workers, threads] of expected) {
      const during: number[] = [];
      const dir = join(tmp, `w${workers}`);
      await buildIndex(corpus, dir, { workers, batchBytes: 400, onProgress: () => during.push(ports() - before) });
      assert.equal(Math.max(...during), threads, `threads with workers: ${workers}`);
      assert.equal(ports(), before, `no thread left after the build (workers: ${workers})`);
      assert.equal(openIndex(dir).describe().documents, ROWS);
    }
  });

  it("a second build of the index while one runs is refused with its exact message, and the first finishes", async () => {
    const indexDir = join(tmp, "bm25");
    let second: Promise<BuildSummary> | undefined;
    const first = await buildIndex(corpus, indexDir, {
      workers: 0,
      chunkDocuments: 40,
      onProgress: () => {
        second ??= buildIndex(corpus, indexDir, { workers: 0 });
        second.catch(() => {}); // asserted below
      },
    });
    const lock = join(workDir(indexDir), "lock");
    await assert.rejects(
      second!,
      (e: unknown) =>
        e instanceof UserError &&
        e.message ===
          `another build of this index is running (process ${process.pid}, lock ${lock}): wait for it to finish`,
    );
    assert.equal(first.documents, ROWS);
    assert.equal(openIndex(indexDir).describe().documents, ROWS);
    assert.ok(!existsSync(workDir(indexDir)));
    assert.equal((await buildIndex(corpus, indexDir, { workers: 0 })).documents, ROWS, "the lock went with the build");
  });

  it("a new index replaces the old one in place: no work folder or old copy left, and it reads back", async () => {
    const indexDir = join(tmp, "deeper", "bm25");
    writeFileSync(join(tmp, "old.jsonl"), JSON.stringify({ title: "Old", text: "previous index words" }) + "\n");
    await buildIndex(join(tmp, "old.jsonl"), indexDir, { workers: 0 });
    assert.deepEqual(readdirSync(dirname(indexDir)), ["bm25"]);
    const r = await buildIndex(corpus, indexDir, { workers: 0 });
    assert.deepEqual(readdirSync(dirname(indexDir)), ["bm25"], "only the index is left beside it");
    const index = openIndex(indexDir);
    assert.equal(index.describe().documents, ROWS);
    assert.equal(r.documents, ROWS);
    assert.equal(index.search("previous", 1).length, 0);
    assert.equal(index.search("river", 1)[0].id, 1002);
  });

  it("a missing corpus, or one without paragraphs, is a one-line UserError; no work folder stays", async () => {
    const indexDir = join(tmp, "bm25");
    await assert.rejects(
      buildIndex(join(tmp, "none.jsonl"), indexDir),
      (e: unknown) => e instanceof UserError && e.message === `corpus file ${join(tmp, "none.jsonl")} does not exist`,
    );
    const empty = join(tmp, "empty.jsonl");
    writeFileSync(empty, "\n\n");
    await assert.rejects(
      buildIndex(empty, indexDir, { workers: 0 }),
      (e: unknown) => e instanceof UserError && e.message === `corpus file ${empty} has no paragraphs`,
    );
    assert.ok(!existsSync(workDir(indexDir)));
    assert.ok(!existsSync(indexDir));
  });
});
