import { strict as assert } from "node:assert";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { crc32 } from "node:zlib";
import { dirname, join } from "node:path";
import { realParagraphs, writeCorpus, type Paragraph } from "../../../../../bench/search/real-paragraphs";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import { buildIndex, openIndex, type Bm25Searcher } from "../../../../../src/core/base/search";
import {
  CRC_BLOCK_SHIFT,
  FILES,
  WINDOW_SHIFT,
  blockTableName,
  hasWindows,
  windowCount,
} from "../../../../../src/core/base/search/bm25-format";
import { corruptFileMessage } from "../../../../../src/core/base/search/bm25-index";
import { BlockCrcs, blocksMatch } from "../../../../../src/core/base/search/block-crc";

/** Every file's CRC blocks. */
const BLOCK_SIZE = 2 ** CRC_BLOCK_SHIFT;
import { TermTokenizer } from "../../../../../src/core/base/search/tokenizer";
import { makeQueries, queryParagraphIds, SyntheticCorpus } from "../../../../../bench/search/synthetic-corpus";
import { requireSharedData } from "../../../../helpers/shared-data";

const TOY: Paragraph[] = [
  { id: 0, title: "Ed Wood", text: "Edward Davis Wood Jr. was an American filmmaker, actor and author." },
  {
    id: 1,
    title: "Scott Derrickson",
    text: "Scott Derrickson is an American director, screenwriter and producer. He directed Sinister.",
  },
  {
    id: 2,
    title: "Sinister (film)",
    text: "Sinister is a 2012 supernatural horror film directed by Scott Derrickson.",
  },
  {
    id: 3,
    title: "Doctor Strange",
    text: "Doctor Strange is a 2016 American superhero film directed by Scott Derrickson. Films, films, films.",
  },
  { id: 4, title: "Tokyo", text: "東京 is the capital of Japan. Café naïve résumé — 😀 emoji." },
  // Words whose UTF-16 order and UTF-8 byte order disagree (astral vs. fullwidth letters).
  { id: 5, title: "Scripts", text: "𠀀𠀁 ｆｕｌｌ 𝒜𝒷 ｗｉｄｅ" },
];

let tmp: string;
beforeEach(() => (tmp = mkdtempSync(join(tmpdir(), "agent-lab-bm25-"))));
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function toyIndex(rows: Paragraph[] = TOY): Promise<Bm25Searcher> {
  const corpus = join(tmp, "corpus.jsonl");
  writeCorpus(rows, corpus);
  await buildIndex(corpus, join(tmp, "bm25"), { workers: 0 });
  return openIndex(join(tmp, "bm25"));
}

/** BM25 (lucene variant, k1 = 1.5, b = 0.75) written out directly from the definition. */
function directScores(rows: Paragraph[], query: string): number[] {
  const tok = new TermTokenizer();
  const docs = rows.map((r) => tok.terms(`${r.title}. ${r.text}`));
  const avgdl = docs.reduce((a, d) => a + d.length, 0) / docs.length;
  const dfs = new Map(tok.terms(query).map((term) => [term, docs.filter((x) => x.includes(term)).length]));
  return docs.map((d) =>
    tok.terms(query).reduce((sum, term) => {
      const df = dfs.get(term)!;
      if (df === 0) return sum;
      const tf = d.filter((t) => t === term).length;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      return sum + (idf * tf) / (tf + 1.5 * (1 - 0.75 + (0.75 * d.length) / avgdl));
    }, 0),
  );
}

describe("BM25 index", () => {
  it("scores equal the BM25 formula computed directly (toy corpus)", async () => {
    const index = await toyIndex();
    for (const q of ["Scott Derrickson films", "American film director", "sinister horror 2012", "films films"]) {
      const expected = directScores(TOY, q);
      const hits = index.search(q, TOY.length);
      assert.ok(hits.length > 0, q);
      for (const h of hits)
        assert.ok(
          Math.abs(h.score - expected[h.id]) < 1e-5 * expected[h.id],
          `${q} doc ${h.id}: ${h.score} vs ${expected[h.id]}`,
        );
      // Best first, and every document with a positive score is returned when k allows.
      assert.deepEqual(
        hits.map((h) => h.score),
        [...hits.map((h) => h.score)].sort((a, b) => b - a),
      );
      assert.equal(hits.length, expected.filter((s) => s > 0).length);
    }
  });

  it("returns [] for an empty, stopword-only or unknown-word query", async () => {
    const index = await toyIndex();
    assert.deepEqual(index.search("", 3), []);
    assert.deepEqual(index.search("the of and to is it", 3), []);
    assert.deepEqual(index.search("?!", 3), []);
    assert.deepEqual(index.search("zyxwvut", 3), []);
  });

  it("reads back titles and texts exactly, unicode included, and finds CJK and accented words", async () => {
    const index = await toyIndex();
    for (let i = 0; i < TOY.length; i++) assert.deepEqual(index.paragraph(i), TOY[i]);
    const [hit] = index.search("東京 café", 1);
    assert.equal(hit.title, "Tokyo");
    assert.equal(hit.text, TOY[4].text);
    for (const word of ["𠀀𠀁", "ｆｕｌｌ", "𝒜𝒷", "ｗｉｄｅ"])
      assert.equal(index.search(word, 1)[0]?.title, "Scripts", word);
  });

  it("save/load round trip: a rebuilt index has the same content hash and answers the same", async () => {
    const first = await toyIndex();
    const before = first.search("Scott Derrickson American", 3);
    const hash = first.describe().indexSha256;
    assert.match(String(hash), /^[0-9a-f]{64}$/);
    const again = await toyIndex(); // replaces the folder in place
    assert.equal(again.describe().indexSha256, hash);
    assert.deepEqual(again.search("Scott Derrickson American", 3), before);
    const d = again.describe();
    assert.equal(d.kind, "bm25");
    assert.equal(d.k1, 1.5);
    assert.equal(d.b, 0.75);
    assert.equal(d.documents, TOY.length);
  });

  it("uses corpus ids when rows have them, row numbers otherwise", async () => {
    const corpus = join(tmp, "corpus.jsonl");
    writeFileSync(
      corpus,
      JSON.stringify({ id: 907, title: "A", text: "alpha beta" }) +
        "\n\n" +
        JSON.stringify({ title: "B", text: "beta gamma" }) +
        "\n",
    );
    await buildIndex(corpus, join(tmp, "bm25"), { workers: 0 });
    const index = openIndex(join(tmp, "bm25"));
    assert.deepEqual(index.search("gamma", 1)[0].id, 1);
    assert.deepEqual(index.search("alpha", 1)[0].id, 907);
  });

  it("builds the same index with worker threads as on one thread", async function () {
    const corpus = join(tmp, "corpus.jsonl");
    const rows = Array.from({ length: 400 }, (_, i) => ({
      ...TOY[i % TOY.length],
      id: i,
      text: `${TOY[i % TOY.length].text} row${i} w${i % 17}`,
    }));
    writeCorpus(rows, corpus);
    const one = await buildIndex(corpus, join(tmp, "one"), { workers: 0 });
    const two = await buildIndex(corpus, join(tmp, "two"), { workers: 2, batchBytes: 2048 }); // many small batches
    assert.equal(two.documents, 400);
    assert.equal(two.contentHash, one.contentHash);
    // Many chunks, merged on disk. Some paragraphs have no terms at all (stopwords only), so
    // document numbers are not posting counts.
    const mixed = rows.map((r, i) =>
      i % 7 === 3 ? { ...r, title: "A", text: "the of and" } : { ...r, title: `first${i} ${r.title}` },
    );
    writeCorpus(mixed, corpus);
    const oneMixed = await buildIndex(corpus, join(tmp, "one-mixed"), { workers: 0 });
    const split = await buildIndex(corpus, join(tmp, "split"), { workers: 2, batchBytes: 2048, chunkDocuments: 37 });
    assert.equal(split.contentHash, oneMixed.contentHash);
    const index = openIndex(join(tmp, "split"));
    // A paragraph's first term right after a term-less one, and its last term, name that paragraph.
    for (const i of [4, 11, 200, 396, 398]) {
      assert.deepEqual(
        index.search(`first${i}`, 2).map((h) => h.id),
        [i],
      );
      assert.deepEqual(
        index.search(`row${i}`, 2).map((h) => h.id),
        [i],
      );
    }
  });

  it("a corrupt, incomplete, foreign or old-version folder is refused with the folder and what to run", async () => {
    await toyIndex();
    const dir = join(tmp, "bm25");
    const expectRefusal = (pattern: RegExp) =>
      assert.throws(
        () => openIndex(dir),
        (e: unknown) =>
          e instanceof UserError &&
          e.message.includes(dir) &&
          e.message.includes("agent-lab index") &&
          pattern.test(e.message),
      );
    // Read on the worker thread: a size it was not told is handed back to this thread, which says why.
    const scores = readFileSync(join(dir, FILES.postingScores));
    truncateSync(join(dir, FILES.postingScores), 4);
    expectRefusal(/postings-scores\.f32 is corrupt \(4 bytes/);
    rmSync(join(dir, FILES.postingScores));
    expectRefusal(/incomplete.*postings-scores\.f32/);
    writeFileSync(join(dir, FILES.postingScores), scores);
    truncateSync(join(dir, "texts.bin"), 10);
    expectRefusal(/texts\.bin is corrupt/);
    truncateSync(join(dir, "postings-docs.u32"), 8);
    expectRefusal(/postings-docs\.u32 is corrupt/);
    rmSync(join(dir, "postings-docs.u32"));
    expectRefusal(/incomplete.*postings-docs\.u32/);
    const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8"));
    writeFileSync(join(dir, "meta.json"), JSON.stringify({ ...meta, version: 0 }));
    expectRefusal(/version 0/);
    // Format 4 (arrays loaded whole, no block tables) is refused with the rebuild hint too.
    writeFileSync(join(dir, "meta.json"), JSON.stringify({ ...meta, version: 4 }));
    expectRefusal(/has format version 4, this Agent Lab reads version 7/);
    writeFileSync(join(dir, "meta.json"), "{ not json");
    expectRefusal(/unreadable/);
    rmSync(join(dir, "meta.json"));
    expectRefusal(/no search index/);
  });

  it("a byte changed in any index file (same size) is refused by the read that touches it, naming the file and how to rebuild", async () => {
    await toyIndex();
    const dir = join(tmp, "bm25");
    const files = readdirSync(dir).sort();
    const dataFiles = Object.keys(FILES) as (keyof typeof FILES)[];
    const tables = dataFiles.map((key) => blockTableName(key));
    assert.deepEqual(
      files,
      [...Object.values(FILES), ...tables, "meta.json"].sort(),
      "every file of the index is covered",
    );
    const clean = new Map(files.map((f) => [f, readFileSync(join(dir, f))]));
    const refusal = (file: string) => (e: unknown) =>
      e instanceof UserError && e.message === corruptFileMessage(join(dir, file));
    // Every read a search, a lookup or a hit makes, on a fresh index (nothing cached).
    const words = TOY.map((p) => `${p.title} ${p.text}`).join(" ");
    const useAll = (index: Bm25Searcher) => {
      index.search(words, TOY.length);
      index.searchExhaustive(words, TOY.length);
      for (const p of TOY) index.paragraph(p.id);
    };
    // Read at open: window-rows.u32 whole, and the page holding each offsets file's last entry.
    const readAtOpen = new Set<string>([FILES.windowRows, FILES.postingOffsets, FILES.vocabOffsets, FILES.textOffsets]);
    for (const key of dataFiles) {
      const file = FILES[key];
      const bytes = clean.get(file)!;
      // A long list's bits are read by probes only, and the toy's one window is scored whole by the
      // seeds: disk-reader.test.ts changes them under searches that probe.
      const changed = key === "windowBits" ? [] : [0, bytes.length >> 1, bytes.length - 1];
      for (const at of new Set(changed)) {
        const bad = Buffer.from(bytes);
        bad[at] ^= 0xff;
        writeFileSync(join(dir, file), bad);
        if (readAtOpen.has(file)) assert.throws(() => openIndex(dir), refusal(file), `${file} byte ${at}`);
        else {
          // Not read at open: the open succeeds, the first read of the changed block is refused.
          const index = openIndex(dir);
          assert.throws(() => useAll(index), refusal(file), `${file} byte ${at}`);
          index.close();
        }
      }
      writeFileSync(join(dir, file), bytes);
      // A changed block table is refused at open (each is checked against meta.json there).
      const table = blockTableName(key);
      const badTable = Buffer.from(clean.get(table)!);
      badTable[badTable.length - 1] ^= 0x01;
      writeFileSync(join(dir, table), badTable);
      assert.throws(() => openIndex(dir), refusal(table), table);
      writeFileSync(join(dir, table), clean.get(table)!);
    }
    // The reported case: postings-docs.u32 overwritten with 0xFF, same size: refused by the first search.
    writeFileSync(join(dir, FILES.postingDocs), Buffer.alloc(clean.get(FILES.postingDocs)!.length, 0xff));
    assert.throws(() => openIndex(dir).search("Derrickson", 1), refusal(FILES.postingDocs));
    writeFileSync(join(dir, FILES.postingDocs), clean.get(FILES.postingDocs)!);
    // meta.json: a changed value (here one digit of the recorded hash) and a changed layout byte.
    const meta = clean.get("meta.json")!.toString("utf8");
    const hashAt = meta.indexOf('"contentHash": "') + '"contentHash": "'.length;
    writeFileSync(
      join(dir, "meta.json"),
      meta.slice(0, hashAt) + (meta[hashAt] === "0" ? "1" : "0") + meta.slice(hashAt + 1),
    );
    assert.throws(() => openIndex(dir), refusal("meta.json"));
    writeFileSync(join(dir, "meta.json"), meta.replace('{\n  "format"', '{\n\t "format"'));
    assert.throws(() => openIndex(dir), refusal("meta.json"));
    writeFileSync(join(dir, "meta.json"), meta);
    // Restored byte for byte: it opens and answers again.
    const index = openIndex(dir);
    useAll(index);
    assert.equal(index.search("Derrickson", 1)[0].title, "Scott Derrickson");
  });

  it("texts.bin, not read ahead, is checked per 4 KiB block on every read: a changed block is refused, even after open; the others read", async () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({
      id: i,
      title: `Title ${i}`,
      text: `${TOY[i % 4].text} paragraph ${i} ${"x".repeat(i % 97)}`,
    }));
    await toyIndex(rows);
    const dir = join(tmp, "bm25");
    const texts = readFileSync(join(dir, FILES.texts));
    assert.ok(texts.length > 4 * BLOCK_SIZE, `${texts.length} bytes`);
    assert.equal(readFileSync(join(dir, blockTableName("texts"))).length, 4 * Math.ceil(texts.length / BLOCK_SIZE));
    // Without the background fill, which would read texts.bin whole once (checked then) and read hits from memory.
    const index = openIndex(dir, { fill: false });
    for (const r of rows) assert.deepEqual(index.paragraph(r.id), r);
    // Changed after open, in block 2: the paragraphs lying in it are refused, all others still read.
    const at = 2 * BLOCK_SIZE + 100;
    const bad = Buffer.from(texts);
    bad[at] ^= 0x01;
    writeFileSync(join(dir, FILES.texts), bad);
    const offsets = new Float64Array(new Uint8Array(readFileSync(join(dir, FILES.textOffsets))).buffer);
    let refused = 0;
    for (const r of rows) {
      const from = Math.floor(offsets[2 * r.id] / BLOCK_SIZE);
      const to = Math.ceil(offsets[2 * r.id + 2] / BLOCK_SIZE);
      if (from <= 2 && 2 < to) {
        assert.throws(
          () => index.paragraph(r.id),
          (e: unknown) => e instanceof UserError && e.message === corruptFileMessage(join(dir, FILES.texts)),
        );
        refused++;
      } else assert.deepEqual(index.paragraph(r.id), r);
    }
    assert.ok(refused >= 1);
    writeFileSync(join(dir, FILES.texts), texts);
    assert.deepEqual(index.paragraph(rows[199].id), rows[199]);
  });

  it("block CRCs do not depend on how the bytes were cut into writes", () => {
    const bytes = Buffer.from(Array.from({ length: 3 * BLOCK_SIZE + 123 }, (_, i) => (i * 31 + (i >> 7)) & 255));
    const whole = new BlockCrcs(CRC_BLOCK_SHIFT);
    whole.update(bytes);
    const expected = whole.finish();
    assert.equal(expected.length, 4);
    assert.equal(expected[1], crc32(bytes.subarray(BLOCK_SIZE, 2 * BLOCK_SIZE)) >>> 0);
    assert.equal(expected[3], crc32(bytes.subarray(3 * BLOCK_SIZE)) >>> 0);
    const pieces = new BlockCrcs(CRC_BLOCK_SHIFT);
    for (let at = 0, n = 1; at < bytes.length; at += n, n = ((n * 7) % 5000) + 1)
      pieces.update(bytes.subarray(at, at + n));
    assert.deepEqual(pieces.finish(), expected);
    assert.ok(blocksMatch(bytes.subarray(BLOCK_SIZE), 1, expected, CRC_BLOCK_SHIFT));
    const bad = Buffer.from(bytes);
    bad[3 * BLOCK_SIZE + 122] ^= 0x80;
    assert.ok(!blocksMatch(bad.subarray(2 * BLOCK_SIZE), 2, expected, CRC_BLOCK_SHIFT));
    assert.ok(blocksMatch(bad.subarray(BLOCK_SIZE, 3 * BLOCK_SIZE), 1, expected, CRC_BLOCK_SHIFT));
  });

  it("the manifest's index hash is a content hash: it changes with the content and only with it", async () => {
    const base = (await toyIndex()).describe().indexSha256;
    assert.equal((await toyIndex()).describe().indexSha256, base, "same corpus, rebuilt");
    const edited = TOY.map((p) => (p.id === 2 ? { ...p, text: p.text.replace("2012", "2013") } : p));
    const changed = (await toyIndex(edited)).describe().indexSha256;
    assert.notEqual(changed, base, "one word of one paragraph changed");
    const retitled = TOY.map((p) => (p.id === 4 ? { ...p, title: "Tōkyō" } : p));
    assert.notEqual((await toyIndex(retitled)).describe().indexSha256, base, "a title changed (texts.bin only)");
    const corpus = join(tmp, "corpus.jsonl");
    writeCorpus(TOY, corpus);
    const k1 = await buildIndex(corpus, join(tmp, "k1"), { workers: 0, k1: 1.2 });
    assert.notEqual(k1.contentHash, base, "same corpus, other BM25 settings");
  });

  /** A 3,000-paragraph synthetic corpus indexed on this thread; returns the index folder. */
  async function syntheticIndex(seed: number): Promise<string> {
    const corpus = join(tmp, "corpus.jsonl");
    await new SyntheticCorpus({ docs: 3000, seed, vocabulary: 250_000 }).write(corpus, queryParagraphIds(3000, 10));
    await buildIndex(corpus, join(tmp, "bm25"), { workers: 0 });
    return join(tmp, "bm25");
  }

  it("the vocabulary's hash table finds every term at its row, and no other word", async () => {
    const dir = await syntheticIndex(9);
    const vocab = readFileSync(join(dir, FILES.vocab));
    const offsets = new Uint32Array(new Uint8Array(readFileSync(join(dir, FILES.vocabOffsets))).buffer);
    const index = openIndex(dir);
    const V = offsets.length - 1;
    assert.ok(V > 5000, `${V} terms`);
    const rows = new Map<string, number>();
    for (let r = 0; r < V; r++) rows.set(vocab.toString("utf8", offsets[r], offsets[r + 1]), r);
    for (const [term, r] of rows) {
      assert.equal(index.termRow(term), r, term);
      // A word one letter longer or shorter: found only if it is a term itself.
      for (const other of [term + "q", term.slice(0, -1)])
        assert.equal(index.termRow(other), rows.get(other) ?? -1, other);
    }
    for (const absent of ["", "zzzzzzzzzz", "ünïcödé", "the"])
      assert.equal(index.termRow(absent), rows.get(absent) ?? -1, absent);
    index.close();
  });

  it("window block maxima bound every posting of their window, are 0 only where the term has none, and each window's start is its first posting", async () => {
    const dir = await syntheticIndex(5);
    const u32 = (f: string) => new Uint32Array(new Uint8Array(readFileSync(join(dir, f))).buffer);
    const f32 = (f: string) => new Float32Array(new Uint8Array(readFileSync(join(dir, f))).buffer);
    const offsets = u32(FILES.postingOffsets);
    const docs = u32(FILES.postingDocs);
    const scores = f32(FILES.postingScores);
    const termMax = f32(FILES.termMax);
    const windowMax = readFileSync(join(dir, FILES.windowMax));
    const windowStart = u32(FILES.windowStart);
    const W = windowCount(3000);
    let slot = 0;
    for (let r = 0; r + 1 < offsets.length; r++) {
      if (!hasWindows(offsets[r + 1] - offsets[r], W)) continue;
      for (let w = 0; w <= W; w++) {
        const p = windowStart[slot * (W + 1) + w];
        const first = w << WINDOW_SHIFT;
        assert.ok(p >= offsets[r] && p <= offsets[r + 1], `row ${r} window ${w}: start ${p} outside the list`);
        assert.ok(
          (p === offsets[r + 1] || docs[p] >= first) && (p === offsets[r] || docs[p - 1] < first),
          `row ${r} window ${w}: ${p} is not the first posting at or after document ${first}`,
        );
      }
      const seen = new Float64Array(W);
      for (let p = offsets[r]; p < offsets[r + 1]; p++)
        seen[docs[p] >>> WINDOW_SHIFT] = Math.max(seen[docs[p] >>> WINDOW_SHIFT], scores[p]);
      for (let w = 0; w < W; w++) {
        const q = windowMax[slot * W + w];
        assert.equal(q === 0, seen[w] === 0, `row ${r} window ${w}`);
        assert.ok(
          (q / 255) * termMax[r] >= seen[w] * (1 - 1e-12),
          `row ${r} window ${w}: ${q} vs ${seen[w] / termMax[r]}`,
        );
        assert.ok(q <= Math.ceil((seen[w] / termMax[r]) * 255 + 1e-9), `row ${r} window ${w} is tight`);
      }
      slot++;
    }
    assert.ok(slot > 50, `${slot} windowed terms`);
    assert.equal(windowMax.length, slot * W);
    assert.equal(windowStart.length, slot * (W + 1));
  });

  it("a bad corpus line is a FileFormatError naming file:line, and the previous index survives", async () => {
    await toyIndex();
    const corpus = join(tmp, "corpus.jsonl");
    appendFileSync(corpus, '{"id": 5, "title": "Broken", "text": 12}\n');
    await assert.rejects(
      buildIndex(corpus, join(tmp, "bm25"), { workers: 0 }),
      (e: unknown) =>
        e instanceof FileFormatError &&
        e.message.startsWith(`${corpus}:${TOY.length + 1}:`) &&
        /"text"/.test(e.message),
    );
    await assert.rejects(
      buildIndex(corpus, join(tmp, "bm25"), { workers: 2 }),
      (e: unknown) => e instanceof FileFormatError && e.message.startsWith(`${corpus}:${TOY.length + 1}:`),
    );
    assert.equal(openIndex(join(tmp, "bm25")).search("Derrickson", 1)[0].title, "Scott Derrickson");
    assert.ok(!existsSync(join(dirname(corpus), ".bm25.partial-" + process.pid)));
  });
});

describe("BM25 pruning on a synthetic corpus (no shared data needed)", () => {
  let index: Bm25Searcher;
  let dir: string;
  let queries: string[];
  before(async function () {
    this.timeout(120_000);
    dir = mkdtempSync(join(tmpdir(), "agent-lab-bm25-syn-"));
    const docs = 20_000;
    const generator = new SyntheticCorpus({ docs, seed: 11, vocabulary: 250_000 });
    const kept = await generator.write(join(dir, "corpus.jsonl"), queryParagraphIds(docs, 150));
    const { short, long } = makeQueries(kept, 150, 3);
    queries = [...short, ...long];
    await buildIndex(join(dir, "corpus.jsonl"), join(dir, "bm25"), { workers: 0 });
    index = openIndex(join(dir, "bm25"));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("pruned top-k equals exhaustive scoring on 300 short and question-length queries, k = 1, 3, 10, 50", function () {
    this.timeout(120_000);
    let full = 0;
    for (const [q, query] of queries.entries()) {
      for (const k of q % 2 ? [1, 10] : [3, 50]) {
        const fast = index.search(query, k);
        const slow = index.searchExhaustive(query, k);
        assert.deepEqual(
          fast.map((h) => [h.id, h.score]),
          slow.map((h) => [h.id, h.score]),
          `${query} (k ${k})`,
        );
        if (fast.length === k) full++;
      }
    }
    assert.ok(full > 550, `${full} full result lists`);
  });

  it("pruning scores a small part of the matching documents for question-length queries (k = 3)", function () {
    this.timeout(120_000);
    const long = queries.slice(queries.length / 2); // makeQueries: the short ones, then the question-length ones
    let scored = 0;
    for (const query of long) {
      index.search(query, 3);
      scored += index.lastScored;
    }
    // Without pruning every matching document gets its exact score; count those on a sample.
    const sample = long.slice(0, 5);
    const matching =
      sample.reduce((n, query) => n + index.searchExhaustive(query, index.documents).length, 0) / sample.length;
    assert.ok(
      scored / long.length < 0.1 * matching,
      `scored ${scored / long.length} per query of about ${matching} matching documents`,
    );
  });

  it("the exhaustive reference itself equals the BM25 formula computed directly", () => {
    const tok = new TermTokenizer();
    const docs = Array.from({ length: index.documents }, (_, i) => {
      const p = index.paragraph(i);
      return tok.terms(`${p.title}. ${p.text}`);
    });
    const df = new Map<string, number>();
    for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
    const avgdl = docs.reduce((a, d) => a + d.length, 0) / docs.length;
    for (const query of queries.slice(0, 5).concat(queries.slice(-5))) {
      const hits = index.searchExhaustive(query, 5);
      assert.ok(hits.length > 0, query);
      for (const h of hits) {
        const d = docs[h.id];
        const expected = tok.terms(query).reduce((sum, term) => {
          const n = df.get(term) ?? 0;
          const tf = d.filter((t) => t === term).length;
          return n === 0
            ? sum
            : sum +
                (Math.log(1 + (docs.length - n + 0.5) / (n + 0.5)) * tf) /
                  (tf + 1.5 * (1 - 0.75 + (0.75 * d.length) / avgdl));
        }, 0);
        assert.ok(Math.abs(h.score - expected) < 1e-5 * expected, `${query}: ${h.score} vs ${expected}`);
      }
    }
  });
});

describe("BM25 index on the real HotpotQA paragraphs", () => {
  let index: Bm25Searcher;
  let paragraphs: Paragraph[];
  let dir: string;
  before(async function () {
    const hotpot = dirname(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    dir = mkdtempSync(join(tmpdir(), "agent-lab-bm25-real-"));
    paragraphs = realParagraphs(hotpot);
    writeCorpus(paragraphs, join(dir, "corpus.jsonl"));
    await buildIndex(join(dir, "corpus.jsonl"), join(dir, "bm25"));
    index = openIndex(join(dir, "bm25"));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("pruned top-k equals exhaustive top-k on 400 random queries of 1–24 words", () => {
    let seed = 12345;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    let pruned = 0;
    for (let q = 0; q < 400; q++) {
      const words: string[] = [];
      const n = 1 + Math.floor(rand() * 24);
      for (let i = 0; i < n; i++) {
        const p = paragraphs[Math.floor(rand() * paragraphs.length)];
        const ws = `${p.title} ${p.text}`.split(/\s+/);
        words.push(ws[Math.floor(rand() * ws.length)]);
      }
      const query = words.join(" ");
      const k = [1, 3, 10][q % 3];
      const fast = index.search(query, k);
      const slow = index.searchExhaustive(query, k);
      assert.deepEqual(
        fast.map((h) => [h.id, h.score]),
        slow.map((h) => [h.id, h.score]),
        query,
      );
      if (fast.length === k) pruned++;
    }
    assert.ok(pruned > 300);
  });

  it("finds the recipe's example: Scott Derrickson first", () => {
    const hits = index.search("Scott Derrickson nationality", 3);
    assert.equal(hits[0].title, "Scott Derrickson");
    assert.ok(hits[0].text.startsWith("Scott Derrickson (born July 16, 1966) is an American director"));
  });
});
