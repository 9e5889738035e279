/**
 * The reader of an index (bm25-index.ts) on one small index built once, in milliseconds per test, so
 * that mutation testing can run them per mutant (bm25-index.test.ts builds an index per test): the
 * open's checks, each with its exact message, reached one at a time by a copy of the index whose
 * other files and meta.json are made consistent again; results against BM25 computed directly,
 * ties and k; the vocabulary lookup; paragraphs read fresh and from memory; the background fill's
 * report and its warm-up; close.
 */
import { strict as assert } from "node:assert";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { writeCorpus, type Paragraph } from "../../../../../bench/search/real-paragraphs";
import { UserError } from "../../../../../src/core/base/errors";
import { buildIndex } from "../../../../../src/core/base/search";
import { sealDataFile } from "../../../../../src/core/base/search/block-crc";
import {
  FILES,
  INDEX_FILES,
  META_FILE,
  WINDOW_SHIFT,
  blockTableName,
  crcHex,
  metaText,
  termHash,
  type IndexFile,
  type IndexMeta,
  windowCount,
} from "../../../../../src/core/base/search/bm25-format";
import { corruptFileMessage, openIndex } from "../../../../../src/core/base/search/bm25-index";
import { TermTokenizer } from "../../../../../src/core/base/search/tokenizer";
import { Ctl, SearchHelper, State } from "../../../../../src/core/base/search/search-helper";
import { fileMapper, NO_FILE_MAP_ENV } from "../../../../../src/core/base/search/file-map";

const REBUILD_AGAIN = 'rebuild it with "agent-lab index"';

/** A word of 130 two-byte letters: 260 UTF-8 bytes, longer than the reader's first lookup buffers. */
const LONG_WORD = "ж".repeat(130);
/**
 * A term of the corpus and its prefix, whose vocab-hash searches start at the same slot (their
 * FNV-1a hashes agree in the low 16 bits, more than any small index's mask): the prefix's lookup
 * meets the longer term first and must not take it.
 */
const PREFIX_PAIR = ["qx7", "qx7w3u9"] as const;
const TWIN = { title: "Twin", text: "quartz harbor lantern quartz" };
/** Queries of one to ten words, repeats, non-ASCII words and words the corpus lacks. */
const QUERIES = [
  "river",
  "quartz harbor",
  "lantern quartz harbor",
  "glacier saffron tundra zephyr",
  "café 東京 naïve",
  "river river mountain",
  "marble lagoon kettle jungle island hollow granite ferry delta cobalt",
  "w17 title",
];
const TWINS = [20, 57, 90, 131];

/**
 * 150 paragraphs (three windows of 64 documents): a small vocabulary drawn unevenly, so common
 * terms have window rows and rare ones do not; four identical paragraphs (equal scores); one with
 * stopwords only (no terms); non-ASCII words; and texts.bin past its first 4 KiB blocks.
 */
function corpus(): Paragraph[] {
  const vocab = [
    "river",
    "mountain",
    "harbor",
    "lantern",
    "quartz",
    "violin",
    "orbit",
    "meadow",
    "copper",
    "falcon",
    "glacier",
    "saffron",
    "tundra",
    "zephyr",
    "café",
    "東京",
    "naïve",
    "ember",
    "willow",
    "basalt",
    "cobalt",
    "delta",
    "ferry",
    "granite",
    "hollow",
    "island",
    "jungle",
    "kettle",
    "lagoon",
    "marble",
  ];
  let x = 42;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8;
  return Array.from({ length: 150 }, (_, id) => {
    if (TWINS.includes(id)) return { id: 1000 + id, ...TWIN };
    if (id === 33) return { id: 1000 + id, title: "The", text: "of and to is it the" };
    if (id === 77) return { id: 1000 + id, title: "Long", text: `${LONG_WORD} river` };
    if (id === 99) return { id: 1000 + id, title: "Code", text: `${PREFIX_PAIR[1]} mountain` };
    const words = Array.from({ length: 6 + (next() % 14) }, () => {
      const r = next() % 1000;
      return vocab[Math.floor((r * r) / 1000 / (1000 / vocab.length))]; // skewed: early words are common
    });
    return { id: 1000 + id, title: `Title ${id} ${vocab[id % vocab.length]}`, text: `${words.join(" ")} w${id}.` };
  });
}

const tokenized = new WeakMap<Paragraph[], string[][]>();

/** BM25 (lucene, k1 1.5, b 0.75) from its definition, in float64: each paragraph's score for a query. */
function directScores(rows: Paragraph[], query: string): number[] {
  const tok = new TermTokenizer();
  let docs = tokenized.get(rows);
  if (docs === undefined) tokenized.set(rows, (docs = rows.map((r) => tok.terms(`${r.title}. ${r.text}`))));
  const avgdl = docs.reduce((a, d) => a + d.length, 0) / docs.length;
  return docs.map((d) =>
    tok.terms(query).reduce((sum, term) => {
      const df = docs.filter((t) => t.includes(term)).length;
      if (df === 0) return sum;
      const tf = d.filter((t) => t === term).length;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      return sum + (idf * tf) / (tf + 1.5 * (1 - 0.75 + (0.75 * d.length) / avgdl));
    }, 0),
  );
}

/** The k best paragraphs by the direct scores: score descending, then document number. */
function expectedTop(rows: Paragraph[], query: string, k: number): { id: number; score: number }[] {
  const scores = directScores(rows, query);
  return scores
    .map((score, doc) => ({ doc, score }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.doc - b.doc)
    .slice(0, k)
    .map(({ doc, score }) => ({ id: rows[doc].id, score }));
}

function assertTop(got: { id: number; score: number }[], want: { id: number; score: number }[], what: string) {
  assert.deepEqual(
    got.map((h) => h.id),
    want.map((h) => h.id),
    what,
  );
  for (const [i, h] of got.entries())
    assert.ok(Math.abs(h.score - want[i].score) <= 1e-5 * want[i].score, `${what}: ${h.score} vs ${want[i].score}`);
}

/** The lookup tables and the window rows: what the background fill reads first, in this order. */
const TABLES_FIRST: IndexFile[] = [
  "vocabHash",
  "vocabOffsets",
  "vocab",
  "postingOffsets",
  "termMax",
  "windowRows",
  "windowMax",
  "windowStart",
  "windowBits",
];

describe("search: the index reader on a small index", () => {
  const rows = corpus();
  let root: string;
  let built: string;
  let copies = 0;
  before(async function () {
    this.timeout(60_000);
    root = mkdtempSync(join(tmpdir(), "agent-lab-bm25-small-"));
    writeCorpus(rows, join(root, "corpus.jsonl"));
    built = join(root, "bm25");
    await buildIndex(join(root, "corpus.jsonl"), built, { workers: 0 });
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  /** A copy of the built index to change. */
  const copy = (): string => {
    const dir = join(root, `copy-${copies++}`);
    cpSync(built, dir, { recursive: true });
    return dir;
  };
  const readMeta = (dir: string) => JSON.parse(readFileSync(join(dir, META_FILE), "utf8")) as IndexMeta;
  /** Writes meta.json with these fields and a CRC that matches them: only the check aimed at passes or fails. */
  const writeMeta = (dir: string, meta: IndexMeta) => {
    const fields: Omit<IndexMeta, "metaCrc32"> & { metaCrc32?: string } = { ...meta };
    delete fields.metaCrc32;
    writeFileSync(join(dir, META_FILE), metaText({ ...fields, metaCrc32: crcHex(crc32(metaText(fields))) }));
  };
  /** Replaces a data file and seals it again (its block table and meta.json's record of it). */
  const replaceData = (dir: string, key: IndexFile, bytes: Uint8Array) => {
    writeFileSync(join(dir, FILES[key]), bytes);
    const sealed = sealDataFile(dir, key);
    const meta = readMeta(dir);
    writeMeta(dir, {
      ...meta,
      bytes: { ...meta.bytes, [key]: sealed.bytes },
      blockCrc32: { ...meta.blockCrc32, [key]: sealed.blockCrc32 },
    });
  };
  /** A copy whose postings-docs.u32 has a byte changed in river's list. */
  const changedRiver = (): string => {
    const dir = copy();
    const river = openIndex(built, { fill: false });
    const row = river.termRow("river");
    river.close();
    const offsets = readFileSync(join(dir, FILES.postingOffsets));
    const first = offsets.readUInt32LE(4 * row);
    const docs = readFileSync(join(dir, FILES.postingDocs));
    docs[4 * first + 1] ^= 0x10;
    writeFileSync(join(dir, FILES.postingDocs), docs);
    return dir;
  };
  const refused = (dir: string, message: string) =>
    assert.throws(
      () => openIndex(dir, { fill: false }),
      (e: unknown) => e instanceof UserError && e.message === message,
      message,
    );

  it("ranks like BM25 computed directly: the best k, ties by document number, repeated query words counted again", () => {
    const index = openIndex(built, { fill: false });
    for (const q of QUERIES)
      for (const k of [1, 2, 3, 5, 10, 200]) {
        const want = expectedTop(rows, q, k);
        assertTop(index.search(q, k), want, `${q} (k ${k})`);
        assertTop(index.searchExhaustive(q, k), want, `${q} (k ${k}, exhaustive)`);
      }
    // The twins score the same, so k cuts them by document number.
    for (const k of [1, 2, 3, 4])
      for (const search of [index.search.bind(index), index.searchExhaustive.bind(index)]) {
        const hits = search("quartz harbor lantern", k);
        assert.deepEqual(
          hits.map((h) => h.id),
          TWINS.slice(0, k).map((d) => 1000 + d),
        );
        assert.equal(new Set(hits.map((h) => h.score)).size, 1);
        assert.deepEqual({ title: hits[0].title, text: hits[0].text }, TWIN);
      }
    const once = index.searchExhaustive("mountain", 1)[0].score;
    assert.equal(index.searchExhaustive("mountain mountain", 1)[0].score, 2 * once);
    index.close();
  });

  it("every word of the corpus, searched alone, returns exactly the paragraphs that hold its term", () => {
    const index = openIndex(built, { fill: false });
    const tok = new TermTokenizer();
    const terms = rows.map((r) => new Set(tok.terms(`${r.title}. ${r.text}`)));
    const words = new Set(rows.flatMap((r) => `${r.title} ${r.text}`.toLowerCase().split(/[\s.]+/)));
    let searched = 0;
    for (const word of words) {
      const [term, ...more] = tok.terms(word);
      if (term === undefined || more.length > 0) continue;
      const holding = rows.filter((_, d) => terms[d].has(term)).map((r) => r.id);
      assert.deepEqual(
        index
          .searchExhaustive(word, rows.length)
          .map((h) => h.id)
          .sort((a, b) => a - b),
        holding,
        word,
      );
      assert.deepEqual(
        index
          .search(word, rows.length)
          .map((h) => h.id)
          .sort((a, b) => a - b),
        holding,
        word,
      );
      searched++;
    }
    assert.ok(searched > 150, `${searched} words`);
    // A word longer than the lookup buffers, found; one unit more or less is another word.
    assert.deepEqual(
      index.search(LONG_WORD, 3).map((h) => h.id),
      [1077],
    );
    assert.ok(index.termRow(LONG_WORD) >= 0);
    assert.equal(index.termRow(LONG_WORD + "ж"), -1);
    assert.equal(index.termRow(LONG_WORD.slice(1)), -1);
    // Looked up again (from the cache of rows): the same answers.
    assert.deepEqual(
      index.search(LONG_WORD, 3).map((h) => h.id),
      [1077],
    );
    for (const absent of ["", "zzzz", "rive", "riverr", "the"]) assert.equal(index.termRow(absent), -1, absent);
    index.close();
  });

  it("a word whose lookup starts where a longer term that begins with it lies is not taken for that term", () => {
    const [short, long] = PREFIX_PAIR;
    const hash = (w: string) => termHash(new TextEncoder().encode(w), 0, w.length);
    assert.equal(hash(short) & 0xffff, hash(long) & 0xffff);
    assert.ok(statSync(join(built, FILES.vocabHash)).size <= 4 << 16, "the mask is at most 16 bits");
    const index = openIndex(built, { fill: false });
    assert.deepEqual(new TermTokenizer().terms(`${short} ${long}`), [short, long]);
    assert.ok(index.termRow(long) >= 0);
    assert.equal(index.termRow(short), -1);
    assert.deepEqual(index.search(short, 3), []);
    assert.deepEqual(
      index.search(long, 3).map((h) => h.id),
      [1099],
    );
    index.close();
  });

  it("lastScored counts the documents the last pruned search scored; exhaustive scoring leaves it alone", () => {
    const index = openIndex(built, { fill: false });
    assert.equal(index.lastScored, 0);
    const query = "river mountain harbor";
    const matching = index.searchExhaustive(query, rows.length).length;
    assert.equal(index.lastScored, 0, "searchExhaustive is not a pruned search");
    index.search(query, 3);
    const scored = index.lastScored;
    assert.ok(scored >= 3 && scored <= matching, `${scored} scored of ${matching} matching`);
    index.searchExhaustive("quartz", rows.length);
    assert.equal(index.lastScored, scored);
    index.search("quartz", rows.length);
    assert.equal(
      index.lastScored,
      index.searchExhaustive("quartz", rows.length).length,
      "k past the matches: all scored",
    );
    index.close();
  });

  it("names a changed file and how to rebuild in one line", () => {
    assert.equal(
      corruptFileMessage("/i/postings-docs.u32"),
      `search index file /i/postings-docs.u32 is corrupt (its CRC-32 differs from the one recorded when the index was built): ${REBUILD_AGAIN}`,
    );
  });

  it("returns [] for a query without index terms, and refuses a k that is not a positive integer", () => {
    const index = openIndex(built, { fill: false });
    for (const q of ["", "the of and", "?!", "unknownword"]) {
      assert.deepEqual(index.search(q, 3), [], q);
      assert.deepEqual(index.searchExhaustive(q, 3), [], q);
    }
    for (const k of [0, -1, 1.5, Number.NaN])
      for (const search of [index.search.bind(index), index.searchExhaustive.bind(index)])
        assert.throws(
          () => search("river", k),
          (e: unknown) => e instanceof UserError && e.message === `k must be a positive integer, got ${k}`,
        );
    index.close();
  });

  it("reads every paragraph back exactly, read fresh from disk and from memory after the fill", async () => {
    const texts = statSync(join(built, FILES.texts)).size;
    assert.ok(texts > 3 * 4096, `texts.bin is ${texts} bytes`);
    const fresh = openIndex(built, { fill: false });
    for (const [doc, r] of rows.entries()) assert.deepEqual(fresh.paragraph(doc), r);
    fresh.close();
    const filled = openIndex(built);
    const report = await filled.filled;
    assert.ok(report.filled.includes("texts"), JSON.stringify(report));
    for (const [doc, r] of rows.entries()) assert.deepEqual(filled.paragraph(doc), r);
    filled.close();
  });

  it("describes itself from meta.json", () => {
    const index = openIndex(built, { fill: false });
    const meta = readMeta(built);
    assert.equal(index.documents, rows.length);
    assert.deepEqual(index.describe(), {
      kind: "bm25",
      variant: "lucene",
      k1: 1.5,
      b: 0.75,
      tokenizer: meta.tokenizer,
      stemmer: meta.stemmer,
      stopwords: "bm25s english (33)",
      documents: rows.length,
      terms: meta.terms,
      indexVersion: 7,
      indexSha256: meta.contentHash,
    });
    assert.ok(meta.terms > 30 && meta.terms === meta.bytes.termMax / 4, `${meta.terms} terms`);
    index.close();
  });

  it("the background fill reads the files in its order, then warms the search up; fill: false reads nothing", async () => {
    const order: IndexFile[] = [...TABLES_FIRST, "postingDocs", "postingScores", "textOffsets", "docIds", "texts"];
    assert.deepEqual([...order].sort(), [...INDEX_FILES].sort());
    const size = (key: IndexFile) => statSync(join(built, FILES[key])).size;
    const all = order.reduce((n, key) => n + size(key), 0);
    const index = openIndex(built);
    assert.equal(index.lastScored, 0);
    const report = await index.filled;
    assert.deepEqual(report.filled, order);
    assert.deepEqual(report.left, []);
    assert.equal(report.stopped, undefined);
    assert.equal(report.bytes, all);
    assert.ok(report.seconds >= 0 && report.seconds < 60, `${report.seconds} s`);
    assert.ok(index.lastScored > 0, "the warm-up searched the lists once they were in memory");
    // The warm-up changed nothing a search depends on.
    for (const q of ["river", "quartz harbor lantern", "glacier saffron tundra"])
      assertTop(index.search(q, 3), expectedTop(rows, q, 3), q);
    index.close();

    const none = openIndex(built, { fill: false });
    const nothing = await none.filled;
    assert.deepEqual(nothing, { seconds: 0, bytes: 0, filled: [], left: order, mapped: [], helper: false });
    assert.equal(none.cache.filledBytes, 0);
    assert.equal(none.lastScored, 0);
    none.close();
  });

  it("the warm-up takes turns of the event loop: searches made meanwhile get them and answer as after it", async () => {
    // A turn after every warm-up search: with the default's 15 ms, how many turns a small index's
    // warm-up gives depends on the machine's speed (one, on a fast run of the CI).
    const index = openIndex(built, { warmUpTurnMs: 0 });
    let settled = false;
    void index.filled.then(() => (settled = true));
    let left = -1; // lastScored as our last search left it
    let warmUpTurns = 0; // turns before `filled` settled in which a warm-up search had run since ours
    while (!settled) {
      if (left >= 0 && index.lastScored !== left) warmUpTurns++;
      assertTop(index.search("river", 3), expectedTop(rows, "river", 3), "river");
      left = index.lastScored;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    assert.ok(warmUpTurns >= 2, `the warm-up ran between ${warmUpTurns} of our searches`);
    index.close();
  });

  it("a fill over budget leaves the files that do not fit to paging and goes on with the next; no warm-up without the lists", async () => {
    const size = (key: IndexFile) => statSync(join(built, FILES[key])).size;
    const paged: IndexFile[] = ["postingDocs", "postingScores", "texts"];
    const resident = INDEX_FILES.filter((key) => !paged.includes(key));
    // Room for every file but the lists and the texts, each of which is larger than what is left
    // when the fill reaches it.
    const budget = resident.reduce((n, key) => n + size(key), 0);
    assert.ok(size("postingDocs") > size("textOffsets") + size("docIds"));
    process.env[NO_FILE_MAP_ENV] = "1"; // paged, where the mmap addon is built too (the next test maps)
    const index = openIndex(built, { cacheBytes: budget });
    delete process.env[NO_FILE_MAP_ENV];
    const report = await index.filled;
    assert.deepEqual(report.filled, [...TABLES_FIRST, "textOffsets", "docIds"]);
    assert.deepEqual(report.left, paged);
    assert.deepEqual(report.mapped, []);
    assert.equal(report.stopped, undefined);
    assert.equal(report.bytes, budget);
    assert.equal(index.lastScored, 0, "no warm-up: the lists are not in memory");
    for (const q of ["river", "quartz harbor lantern"]) assertTop(index.search(q, 3), expectedTop(rows, q, 3), q);
    for (const [doc, r] of rows.entries()) assert.deepEqual(index.paragraph(doc), r);
    index.close();
  });

  it("with the mmap addon, the lists that do not fit are mapped instead, and the search is warmed up on them", async function () {
    if (fileMapper() === undefined) {
      console.log("    (skipped: no mmap addon; `npm run build` builds it where c++ and Node's headers are)");
      this.skip();
    }
    const size = (key: IndexFile) => statSync(join(built, FILES[key])).size;
    const budget = INDEX_FILES.filter((key) => !["postingDocs", "postingScores", "texts"].includes(key)).reduce(
      (n, key) => n + size(key),
      0,
    );
    const index = openIndex(built, { cacheBytes: budget });
    const report = await index.filled;
    assert.deepEqual(report.left, ["postingDocs", "postingScores", "texts"]);
    assert.deepEqual(report.mapped, ["postingDocs", "postingScores"]);
    assert.ok(index.lastScored > 0, "the warm-up searched the mapped lists");
    const misses = index.cache.misses;
    for (const q of ["river", "quartz harbor lantern"]) assertTop(index.search(q, 3), expectedTop(rows, q, 3), q);
    assert.equal(index.cache.misses, misses, "no page of the lists read");
    index.close();
  });

  it("a fill that meets a changed block stops there and says so; one closed at once stops too", async () => {
    const dir = changedRiver();
    const index = openIndex(dir);
    const report = await index.filled;
    assert.equal(report.stopped, "refused");
    assert.deepEqual(report.filled, TABLES_FIRST);
    assert.deepEqual(report.left, ["postingDocs", "postingScores", "textOffsets", "docIds", "texts"]);
    assert.throws(
      () => index.searchExhaustive("river", 3),
      (e: unknown) => e instanceof UserError && e.message === corruptFileMessage(join(dir, FILES.postingDocs)),
    );
    index.close();

    const closed = openIndex(built);
    closed.close();
    const stopped = await closed.filled;
    assert.equal(stopped.stopped, "closed");
    assert.deepEqual(stopped.filled, []);
    assert.equal(stopped.left.length, INDEX_FILES.length);
    assert.equal(closed.cache.bytes, 0);
  });

  it("a paragraph read into memory by the fill comes from there, checked once: a later change on disk does not reach it", async () => {
    const dir = copy();
    const index = openIndex(dir);
    assert.ok((await index.filled).filled.includes("texts"));
    writeFileSync(join(dir, FILES.texts), Buffer.alloc(statSync(join(dir, FILES.texts)).size, 0x41));
    for (const [doc, r] of rows.entries()) assert.deepEqual(index.paragraph(doc), r);
    index.close();
    // Not filled: read from disk and checked on every read.
    const fresh = openIndex(dir, { fill: false });
    assert.throws(
      () => fresh.paragraph(0),
      (e: unknown) => e instanceof UserError && e.message === corruptFileMessage(join(dir, FILES.texts)),
    );
    fresh.close();
  });

  it("a data file cut short after open is refused by the read that reaches its end", () => {
    const dir = copy();
    const index = openIndex(dir, { fill: false });
    const docs = join(dir, FILES.postingDocs);
    writeFileSync(docs, readFileSync(docs).subarray(0, 8));
    assert.throws(
      () => index.searchExhaustive("river mountain harbor", 3),
      (e: unknown) =>
        e instanceof UserError && e.message === `search index ${dir} is corrupt (${docs} ends early): ${REBUILD_AGAIN}`,
    );
    index.close();
  });

  it("a refused open leaves no file open", () => {
    const open = () => readdirSync("/proc/self/fd").length;
    const dir = copy();
    const before = open();
    rmSync(join(dir, FILES.texts)); // the last data file: every other one was opened first
    for (let i = 0; i < 20; i++) assert.throws(() => openIndex(dir), UserError);
    const meta = readMeta(dir);
    writeFileSync(join(dir, FILES.texts), Buffer.alloc(meta.bytes.texts + 1));
    for (let i = 0; i < 20; i++) assert.throws(() => openIndex(dir), UserError); // its size is checked after its open
    rmSync(join(dir, blockTableName("texts")));
    writeFileSync(join(dir, FILES.texts), Buffer.alloc(meta.bytes.texts));
    for (let i = 0; i < 20; i++) assert.throws(() => openIndex(dir), UserError); // its block table is missing
    assert.equal(open(), before);
  });

  it("a meta.json without its records of the files' sizes or block CRCs is refused as corrupt, in one line", () => {
    const dir = copy();
    const meta = readMeta(dir);
    const { bytes: _bytes, ...noBytes } = meta;
    void _bytes;
    writeMeta(dir, noBytes as IndexMeta);
    assert.throws(
      () => openIndex(dir),
      (e: unknown) =>
        e instanceof UserError && e.message.startsWith(`search index file ${join(dir, FILES.windowRows)} is corrupt (`),
    );
    const { blockCrc32: _crcs, ...noCrcs } = meta;
    void _crcs;
    writeMeta(dir, noCrcs as IndexMeta);
    assert.throws(
      () => openIndex(dir),
      (e: unknown) =>
        e instanceof UserError && e.message === corruptFileMessage(join(dir, blockTableName("windowRows"))),
    );
  });

  it("a helper thread takes a posted half and hands back its top k; a half it fails or never takes is searched by the caller", async function () {
    this.timeout(30_000);
    const index = openIndex(built, { fill: false, helper: false });
    const helper = SearchHelper.start(built);
    assert.ok(helper, "the worker script is found");
    await helper.whenSettled();
    assert.ok(helper.ready);
    const W = windowCount(index.meta.documents);
    const tok = new TermTokenizer();
    const rowsOf = (q: string) => [...tok.terms(q)].map((t) => index.termRow(t)).filter((r) => r >= 0);
    // The caller's half waits until the helper has taken the query, so the helper always searches.
    const untilTaken = () => {
      while (Atomics.load(helper.memory.control, Ctl.State) === State.Posted);
      return [];
    };
    const notHere = () => assert.fail("the helper's half was searched by the caller");
    let posted = 0;
    for (const q of QUERIES)
      for (const k of [1, 3, 200]) {
        const rows = rowsOf(q);
        assert.deepEqual(
          helper.split(rows, k, 0, W, untilTaken, notHere),
          index.topRows(rows, k, 0, W),
          `${q} (k ${k})`,
        );
        posted++;
      }
    assert.deepEqual(helper.counts, { split: posted, byHelper: posted });
    helper.close();
    assert.equal(helper.ready, false);

    // A helper whose read of the half is refused (a changed block in river's list): the caller searches it.
    const failing = SearchHelper.start(changedRiver())!;
    await failing.whenSettled();
    assert.ok(failing.ready);
    let here = 0;
    const searchHere = () => (here++, [{ doc: 1, score: 1 }]);
    assert.deepEqual(failing.split(rowsOf("river"), 3, 0, W, untilTaken, searchHere), [{ doc: 1, score: 1 }]);
    assert.equal(here, 1);
    assert.deepEqual(failing.counts, { split: 1, byHelper: 0 });
    failing.close();
    index.close();
  });

  it("with a helper asked for, searches split between the threads rank as on one thread; close stops it", async function () {
    this.timeout(30_000);
    const index = openIndex(built, { helper: true, splitPostings: 0 });
    assert.equal((await index.filled).helper, true);
    const oneThread = openIndex(built, { fill: false, helper: false });
    for (const q of QUERIES)
      for (const k of [1, 3, 200]) {
        assertTop(index.search(q, k), expectedTop(rows, q, k), `${q} (k ${k})`);
        assert.deepEqual(index.search(q, k), oneThread.search(q, k));
      }
    const { split } = index.helperCounts;
    assert.ok(split >= 2 * QUERIES.length * 3, `${split} searches split`);
    assert.equal((await openIndex(built, { helper: false }).filled).helper, false);
    assert.equal((await openIndex(built).filled).helper, false, "no helper where nothing is mapped");
    index.close();
    assert.throws(() => index.search("harbor", 3), /was closed/);
    oneThread.close();
  });

  it("close lets go of the pages and the files; closing again is quiet; a closed index refuses to search", () => {
    const index = openIndex(built, { fill: false });
    index.search("river mountain", 3);
    index.paragraph(5);
    assert.ok(index.cache.bytes > 0);
    index.close();
    assert.equal(index.cache.bytes, 0);
    index.close();
    assert.throws(() => index.search("harbor", 3), /was closed/);
  });

  it("refuses a folder without meta.json, or with one that is unreadable, foreign or of another version", () => {
    const dir = copy();
    const meta = readMeta(dir);
    writeFileSync(join(dir, META_FILE), "{ not json");
    assert.throws(
      () => openIndex(dir),
      (e: unknown) =>
        e instanceof UserError &&
        e.message.startsWith(`search index file ${join(dir, META_FILE)} is unreadable (`) &&
        e.message.endsWith(`): ${REBUILD_AGAIN}`),
    );
    writeMeta(dir, { ...meta, format: "other" as IndexMeta["format"] });
    refused(dir, `${dir} is not an Agent Lab search index: run "agent-lab index" to build it`);
    writeFileSync(join(dir, META_FILE), "null");
    refused(dir, `${dir} is not an Agent Lab search index: run "agent-lab index" to build it`);
    writeMeta(dir, { ...meta, version: 4 });
    refused(dir, `search index ${dir} has format version 4, this Agent Lab reads version 7: ${REBUILD_AGAIN}`);
    rmSync(join(dir, META_FILE));
    refused(dir, `no search index in ${dir} (meta.json is missing): run "agent-lab index" to build it`);
  });

  it("meta.json checks itself: a changed value or a changed layout byte is refused; windows of another size too", () => {
    const dir = copy();
    const text = readFileSync(join(dir, META_FILE), "utf8");
    const meta = readMeta(dir);
    const corrupt = corruptFileMessage(join(dir, META_FILE));
    // A value changed, the CRC not: refused.
    writeFileSync(join(dir, META_FILE), text.replace(`"k1": 1.5`, `"k1": 1.2`));
    refused(dir, corrupt);
    // The same fields, laid out otherwise (the CRC of the fields matches): refused.
    writeFileSync(join(dir, META_FILE), JSON.stringify(meta));
    refused(dir, corrupt);
    // Consistent, with windows of 2^7 documents: this reader's search is written for 2^6.
    writeMeta(dir, { ...meta, windowShift: WINDOW_SHIFT + 1 });
    refused(
      dir,
      `search index ${dir} has windows of 2^${WINDOW_SHIFT + 1} documents, this Agent Lab reads 2^${WINDOW_SHIFT}: ${REBUILD_AGAIN}`,
    );
    writeMeta(dir, meta);
    assert.equal(readFileSync(join(dir, META_FILE), "utf8"), text, "writeMeta writes what the builder wrote");
    openIndex(dir, { fill: false }).close();
  });

  it("refuses a data file that is missing, or whose size differs from what meta.json's counts give or records", () => {
    const dir = copy();
    const clean = new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
    for (const key of INDEX_FILES) {
      const file = join(dir, FILES[key]);
      const bytes = clean.get(FILES[key])!;
      rmSync(file);
      refused(dir, `search index ${dir} is incomplete (${FILES[key]}: ENOENT): ${REBUILD_AGAIN}`);
      // Four bytes more, sealed and recorded in meta.json: the size meta.json's counts give differs.
      const longer = Buffer.concat([bytes, Buffer.alloc(4)]);
      replaceData(dir, key, longer);
      if (key === "windowRows") {
        // Its size is not derived: it gives the window files' sizes, which now differ.
        const windowMax = statSync(join(dir, FILES.windowMax)).size;
        refused(
          dir,
          `search index file ${join(dir, FILES.windowMax)} is corrupt (${windowMax} bytes, expected ${windowMax + windowCount(rows.length)}): ${REBUILD_AGAIN}`,
        );
      } else if (key === "vocab" || key === "texts") {
        // Recorded only in meta.json: the offsets' last entry no longer matches it.
        refused(dir, `search index ${dir} is corrupt (offsets do not match the data files): ${REBUILD_AGAIN}`);
      } else
        refused(
          dir,
          `search index file ${file} is corrupt (${longer.length} bytes, expected ${bytes.length}): ${REBUILD_AGAIN}`,
        );
      for (const [f, b] of clean) writeFileSync(join(dir, f), b);
    }
    openIndex(dir, { fill: false }).close();
  });

  it("refuses a data file whose size is right but not what meta.json records", () => {
    const dir = copy();
    const meta = readMeta(dir);
    const file = join(dir, FILES.postingScores);
    writeMeta(dir, { ...meta, bytes: { ...meta.bytes, postingScores: meta.bytes.postingScores + 4 } });
    refused(
      dir,
      `search index file ${file} is corrupt (${meta.bytes.postingScores} bytes, expected ${meta.bytes.postingScores}): ${REBUILD_AGAIN}`,
    );
  });

  it("refuses a block table that is missing, of another length, or changed", () => {
    for (const key of ["windowRows", "postingDocs", "texts"] as const) {
      const dir = copy();
      const table = join(dir, blockTableName(key));
      const bytes = readFileSync(table);
      rmSync(table);
      refused(dir, `search index ${dir} is incomplete (${blockTableName(key)}: ENOENT): ${REBUILD_AGAIN}`);
      // Four bytes more, its CRC recorded in meta.json: the length does not match the file's blocks.
      const longer = Buffer.concat([bytes, Buffer.alloc(4)]);
      writeFileSync(table, longer);
      const meta = readMeta(dir);
      writeMeta(dir, { ...meta, blockCrc32: { ...meta.blockCrc32, [key]: crcHex(crc32(longer)) } });
      refused(dir, corruptFileMessage(table));
      // The right length, another CRC.
      const changed = Buffer.from(bytes);
      changed[0] ^= 1;
      writeFileSync(table, changed);
      writeMeta(dir, meta);
      refused(dir, corruptFileMessage(table));
      writeFileSync(table, bytes);
      openIndex(dir, { fill: false }).close();
    }
  });

  it("refuses offsets files whose last entry does not match the data files", () => {
    for (const key of ["postingOffsets", "vocabOffsets", "textOffsets"] as const) {
      const dir = copy();
      const bytes = Buffer.from(readFileSync(join(dir, FILES[key])));
      // The last entry one more (a u32, or the f64 of text-offsets.f64), sealed: sizes and CRCs agree.
      if (key === "textOffsets") bytes.writeDoubleLE(bytes.readDoubleLE(bytes.length - 8) + 1, bytes.length - 8);
      else bytes.writeUInt32LE(bytes.readUInt32LE(bytes.length - 4) + 1, bytes.length - 4);
      replaceData(dir, key, bytes);
      refused(dir, `search index ${dir} is corrupt (offsets do not match the data files): ${REBUILD_AGAIN}`);
    }
  });

  it("an index whose every paragraph is in one window, and one with no term in any window row, still search", async () => {
    for (const n of [1, 3, 64]) {
      const dir = join(root, `n${n}`);
      const few = rows.slice(0, n);
      writeCorpus(few, join(root, `n${n}.jsonl`));
      await buildIndex(join(root, `n${n}.jsonl`), dir, { workers: 0 });
      const index = openIndex(dir);
      await index.filled;
      for (const q of ["river", "quartz harbor lantern", "title"])
        assertTop(index.search(q, 2), expectedTop(few, q, 2), `${q} (${n} paragraphs)`);
      index.close();
    }
  });
});
