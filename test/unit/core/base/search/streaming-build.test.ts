import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import { buildIndex, openIndex, type BuildOptions, type BuildProgress } from "../../../../../src/core/base/search";
import { workDir } from "../../../../../src/core/base/search/build-work";
import { lockText } from "../../../../helpers/lock-holders";

/**
 * A corpus with what a merge must get right: terms in every chunk and in one, ties (equal
 * documents and equal lengths), repeated terms, paragraphs without terms, blank lines, rows with and
 * without ids, and words whose UTF-16 and UTF-8 orders differ.
 */
function corpusLines(rows = 300): string[] {
  const words = ["film", "films", "𠀀𠀁", "ｆｕｌｌ", "𝒜𝒷", "東京", "café", "cafe", "zz", "tie"];
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const w = words[i % words.length];
    const row =
      i % 9 === 4
        ? { title: "A", text: "the of and" } // no terms at all
        : i % 3 === 0
          ? { title: `T${i % 7}`, text: `${w} ${w} tie tie x${i % 13} same words here` }
          : { id: 5000 - i, title: `T${i % 5}`, text: `${w} tie y${i % 17} ${w} only${i}` };
    lines.push(JSON.stringify(row));
    if (i % 40 === 7) lines.push("");
  }
  return lines;
}

/** Every file of two index folders, byte for byte (meta.json less its build time and the CRC that covers it). */
function assertSameIndex(a: string, b: string): void {
  const names = readdirSync(a).sort();
  assert.deepEqual(readdirSync(b).sort(), names);
  const untimed = (text: string) => text.replace(/"builtAt": "[^"]*"/, "").replace(/"metaCrc32": "[^"]*"/, "");
  for (const name of names) {
    const x = readFileSync(join(a, name));
    const y = readFileSync(join(b, name));
    if (name === "meta.json") assert.equal(untimed(y.toString()), untimed(x.toString()), name);
    else assert.ok(x.equals(y), `${name} differs`);
  }
}

const child = join(__dirname, "kill-build-child.ts");

/** Runs a build in a child process that SIGKILLs itself at `at` (see kill-build-child.ts). */
function killedBuild(corpus: string, indexDir: string, chunkDocuments: number, at: string): void {
  const r = spawnSync(process.execPath, ["--import", "tsx", child, corpus, indexDir, String(chunkDocuments), at], {
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(r.signal, "SIGKILL", `the child was to be killed at ${at}: ${r.status} ${r.stderr}`);
}

describe("streaming index build", () => {
  let tmp: string;
  let corpus: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), "agent-lab-stream-build-"));
    corpus = join(tmp, "corpus.jsonl");
    writeFileSync(corpus, corpusLines().join("\n") + "\n");
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it("a K-chunk build equals the 1-chunk build byte for byte (ties, repeated terms, term-less paragraphs), with any batches and threads", async function () {
    this.timeout(120_000);
    const one = await buildIndex(corpus, join(tmp, "one"), { workers: 0 });
    assert.equal(one.chunks, 1);
    for (const [name, options] of [
      ["k37", { workers: 0, chunkDocuments: 37 }],
      ["k1", { workers: 0, chunkDocuments: 1, batchBytes: 500 }],
      ["k50-threads", { workers: 2, chunkDocuments: 50, batchBytes: 700 }],
    ] as [string, BuildOptions][]) {
      const k = await buildIndex(corpus, join(tmp, name), options);
      assert.ok(k.chunks > 1, name);
      assert.equal(k.contentHash, one.contentHash, name);
      assertSameIndex(join(tmp, "one"), join(tmp, name));
    }
    assert.ok(!existsSync(workDir(join(tmp, "k37"))), "the work folder goes once the index is in place");
  });

  it("progress goes chunk by chunk (i/n), then through the merge to every posting, with the work folder's size", async function () {
    this.timeout(60_000);
    const seen: BuildProgress[] = [];
    const r = await buildIndex(corpus, join(tmp, "bm25"), {
      workers: 0,
      chunkDocuments: 100,
      mergeReportPostings: 50,
      onProgress: (_docs, p) => seen.push({ ...p }),
    });
    const chunks = seen.filter((p) => p.phase === "chunks");
    const merge = seen.filter((p) => p.phase === "merge");
    const numbers = chunks.map((p) => p.chunk);
    assert.ok(
      numbers.every((n, i) => i === 0 || n >= numbers[i - 1]),
      "chunk numbers only go up",
    );
    for (let i = 2; i <= r.chunks + 1; i++) assert.ok(numbers.includes(i), `reported once chunk ${i - 1} was finished`);
    assert.ok(chunks.every((p) => p.chunks >= p.chunk && p.workBytes > 0));
    assert.ok(seen.indexOf(merge[0]) > seen.indexOf(chunks[chunks.length - 1]), "the merge comes after the chunks");
    assert.ok(merge.length > 2);
    assert.equal(merge[merge.length - 1].postingsMerged, r.postings);
    assert.ok(merge.every((p) => p.postings === r.postings && p.chunk === r.chunks && p.chunks === r.chunks));
    assert.ok(r.workPeakBytes > r.bytes);
  });

  for (const at of ["chunks:3", "merge:0.5"]) {
    it(`a build killed ${at.startsWith("merge") ? "mid-merge" : "after 2 of its chunks"} resumes after the finished chunks to the same index bytes; the old index serves meanwhile`, async function () {
      this.timeout(180_000);
      const fresh = join(tmp, "fresh");
      await buildIndex(corpus, fresh, { workers: 0, chunkDocuments: 60 });
      const indexDir = join(tmp, "bm25");
      writeFileSync(join(tmp, "old.jsonl"), JSON.stringify({ title: "Old", text: "previous index words" }) + "\n");
      await buildIndex(join(tmp, "old.jsonl"), indexDir, { workers: 0 });

      killedBuild(corpus, indexDir, 60, at);
      const work = workDir(indexDir);
      const chunkFiles = readdirSync(work).filter((f) => f.endsWith(".part"));
      assert.equal(chunkFiles.length, at.startsWith("merge") ? 6 : 2, chunkFiles.join(" "));
      assert.equal(openIndex(indexDir).search("previous", 1)[0].title, "Old", "the old index still opens and answers");

      const notes: string[] = [];
      const resumed = await buildIndex(corpus, indexDir, { chunkDocuments: 60, onNote: (l) => notes.push(l) });
      assert.equal(resumed.chunksKept, chunkFiles.length);
      assert.equal(resumed.chunks, 6);
      assert.deepEqual(notes, [
        `resuming the interrupted build in ${work}: ${chunkFiles.length} finished chunk(s) kept`,
      ]);
      assertSameIndex(fresh, indexDir);
      assert.ok(!existsSync(work));
    });
  }

  it("a corpus changed since the kill starts over, with a one-line note", async function () {
    this.timeout(120_000);
    const indexDir = join(tmp, "bm25");
    killedBuild(corpus, indexDir, 60, "chunks:3");
    appendFileSync(corpus, JSON.stringify({ title: "New", text: "appended later" }) + "\n");
    const notes: string[] = [];
    const r = await buildIndex(corpus, indexDir, { workers: 0, chunkDocuments: 60, onNote: (l) => notes.push(l) });
    assert.equal(r.chunksKept, 0);
    assert.deepEqual(notes, [
      `${corpus} or the build settings changed since the interrupted build in ${workDir(indexDir)}: starting over`,
    ]);
    await buildIndex(corpus, join(tmp, "fresh"), { workers: 0 });
    assertSameIndex(join(tmp, "fresh"), indexDir);
  });

  it("a bad line in a later chunk names its file and line; the work folder goes and the previous index stays", async function () {
    this.timeout(120_000);
    const indexDir = join(tmp, "bm25");
    await buildIndex(corpus, indexDir, { workers: 0 });
    const lines = corpusLines();
    lines.splice(200, 0, '{"title": "Broken", "text": 12}');
    writeFileSync(corpus, lines.join("\n") + "\n");
    for (const workers of [0, 2]) {
      await assert.rejects(
        buildIndex(corpus, indexDir, { workers, chunkDocuments: 45, batchBytes: 900 }),
        (e: unknown) => e instanceof FileFormatError && e.message === `${corpus}:201: "text" must be a string`,
      );
      assert.ok(!existsSync(workDir(indexDir)));
    }
    assert.equal(openIndex(indexDir).describe().documents, 300);
  });

  it("a second build of the same index while one runs is refused; a lock left by a dead process is taken over", async () => {
    const indexDir = join(tmp, "bm25");
    const work = workDir(indexDir);
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, "lock"), lockText(process.ppid)); // the test runner's parent: alive
    await assert.rejects(
      buildIndex(corpus, indexDir, { workers: 0 }),
      (e: unknown) =>
        e instanceof UserError &&
        e.message ===
          `another build of this index is running (process ${process.ppid}, lock ${join(work, "lock")}): wait for it to finish`,
    );
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    writeFileSync(join(work, "lock"), lockText(gone));
    assert.equal((await buildIndex(corpus, indexDir, { workers: 0 })).documents, 300);
  });
});
