/**
 * The on-disk reader (index format 7): an open reads meta.json, the block tables and a few pages,
 * not the data; every other page is read and checked when a search first needs it, through a
 * bounded cache whose evictions change no result; pruned search equals exhaustive scoring on a
 * corpus full of ties.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeCorpus, type Paragraph } from "../../../../../bench/search/real-paragraphs";
import { makeQueries, queryParagraphIds, SyntheticCorpus } from "../../../../../bench/search/synthetic-corpus";
import { UserError } from "../../../../../src/core/base/errors";
import { buildIndex, openIndex } from "../../../../../src/core/base/search";
import {
  CRC_BLOCK_SHIFT,
  PAGE_SHIFTS,
  FILES,
  INDEX_FILES,
  META_FILE,
  blockTableName,
  type IndexFile,
} from "../../../../../src/core/base/search/bm25-format";
import { corruptFileMessage, type Bm25Searcher } from "../../../../../src/core/base/search/bm25-index";
import { fileMapper, NO_FILE_MAP_ENV } from "../../../../../src/core/base/search/file-map";
import { PageCache } from "../../../../../src/core/base/search/paged-file";
import { TermTokenizer } from "../../../../../src/core/base/search/tokenizer";

/**
 * Terms of an index by where their lists lie: rowIn(p) is a row whose list lies inside page p of
 * postings-docs.u32 (or inside its p-th piece of `page` bytes) and whose term is a query of its own
 * (the tokenizer gives the term back).
 */
function listsByPage(index: string, page = 2 ** PAGE_SHIFTS.postingDocs) {
  const vocab = readFileSync(join(index, FILES.vocab));
  const u32 = (file: string) => new Uint32Array(new Uint8Array(readFileSync(join(index, file))).buffer);
  const words = u32(FILES.vocabOffsets);
  const postings = u32(FILES.postingOffsets);
  const term = (row: number) => vocab.toString("utf8", words[row], words[row + 1]);
  const tokenizer = new TermTokenizer();
  const rowIn = (p: number) => {
    for (let r = 0; r + 1 < postings.length; r++) {
      const from = 4 * postings[r];
      const to = 4 * postings[r + 1];
      if (from < p * page || to > (p + 1) * page || to - from < 8) continue;
      const terms = tokenizer.terms(term(r));
      if (terms.length === 1 && terms[0] === term(r)) return r;
    }
    throw new Error(`no term inside page ${p}`);
  };
  return { term, rowIn, postings };
}

/** The read is refused with the one-line message that names `file` as corrupt. */
const refusedAsCorrupt = (read: () => unknown, file: string) =>
  assert.throws(read, (e: unknown) => e instanceof UserError && e.message === corruptFileMessage(file));

const same = (a: { id: number; score: number }[], b: { id: number; score: number }[]) =>
  assert.deepEqual(
    a.map((h) => [h.id, h.score]),
    b.map((h) => [h.id, h.score]),
  );

describe("search: the on-disk reader", () => {
  let dir: string;
  let index: string;
  let queries: string[];
  before(async function () {
    this.timeout(120_000);
    dir = mkdtempSync(join(tmpdir(), "agent-lab-disk-reader-"));
    const docs = 12_000;
    const kept = await new SyntheticCorpus({ docs, seed: 7, vocabulary: 250_000 }).write(
      join(dir, "corpus.jsonl"),
      queryParagraphIds(docs, 100),
    );
    const { short, long } = makeQueries(kept, 100, 5);
    queries = [...short, ...long];
    index = join(dir, "bm25");
    await buildIndex(join(dir, "corpus.jsonl"), index, { workers: 0 });
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("opens without reading the data: meta.json, the block tables, window-rows.u32 and one page of each offsets file", () => {
    const searcher = openIndex(index);
    const total = INDEX_FILES.reduce((n, key) => n + statSync(join(index, FILES[key])).size, 0);
    const windowRows = statSync(join(index, FILES.windowRows)).size;
    const pages = 3 * 2 ** PAGE_SHIFTS.postingOffsets;
    assert.ok(searcher.cache.bytesRead <= pages + windowRows, `${searcher.cache.bytesRead} bytes read at open`);
    assert.ok(total > 20 * (pages + windowRows), `the data is ${total} bytes`);
    // What a search reads is bounded by the cache, not by the index.
    for (const q of queries) searcher.search(q, 10);
    assert.ok(searcher.cache.bytesRead > pages + windowRows);
    searcher.close();
  });

  it("a closed searcher holds no pages, closes again quietly, and refuses to search", () => {
    const searcher = openIndex(index);
    searcher.search(queries[0], 3);
    assert.ok(searcher.cache.bytes > 0);
    searcher.close();
    assert.equal(searcher.cache.bytes, 0);
    searcher.close();
    assert.throws(() => searcher.search(queries[1], 3), /was closed/);
  });

  it("a data file cut short after open is refused by the read that reaches its end, in one line", () => {
    const copy = join(dir, "cut");
    execFileSync("cp", ["-r", index, copy]);
    const searcher = openIndex(copy);
    const docs = join(copy, FILES.postingDocs);
    writeFileSync(docs, readFileSync(docs).subarray(0, 1024));
    try {
      assert.throws(
        () => queries.forEach((q) => searcher.search(q, 10)),
        (e: unknown) =>
          e instanceof UserError &&
          e.message === `search index ${copy} is corrupt (${docs} ends early): rebuild it with "agent-lab index"`,
      );
    } finally {
      searcher.close();
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("a cache of one page (an eviction on nearly every read) returns the same results as the default one", function () {
    this.timeout(120_000);
    const roomy = openIndex(index);
    const tiny = openIndex(index, { cacheBytes: 2 ** 16 });
    for (const [i, q] of queries.entries()) {
      const k = [1, 3, 10, 50][i % 4];
      same(tiny.search(q, k), roomy.search(q, k));
      assert.ok(tiny.cache.bytes <= 2 ** 16, `${tiny.cache.bytes} bytes held`);
    }
    assert.ok(tiny.cache.misses > 4 * roomy.cache.misses, `${tiny.cache.misses} vs ${roomy.cache.misses} pages read`);
    // And against exhaustive scoring, through the tiny cache too.
    for (const q of queries.slice(0, 40)) same(tiny.search(q, 10), tiny.searchExhaustive(q, 10));
    tiny.close();
    roomy.close();
  });

  it("a byte changed in the middle of a long file is refused by the search that reads its block, and only by it", function () {
    this.timeout(60_000);
    const { term, rowIn, postings } = listsByPage(index);
    const docsFile = join(index, FILES.postingDocs);
    const clean = readFileSync(docsFile);
    const page = 2 ** PAGE_SHIFTS.postingDocs;
    assert.ok(clean.length > 4 * page, `${clean.length} bytes of postings`);
    const hit = rowIn(2);
    const missed = rowIn(3);
    const bad = Buffer.from(clean);
    bad[4 * postings[hit] + 1] ^= 0x40;
    writeFileSync(docsFile, bad);
    try {
      const searcher = openIndex(index);
      assert.ok(searcher.searchExhaustive(term(missed), 3).length > 0, "a list in an unchanged page still reads");
      refusedAsCorrupt(() => searcher.searchExhaustive(term(hit), 3), docsFile);
      // Never cached as good: the next read is refused too.
      refusedAsCorrupt(() => searcher.search(term(hit), 3), docsFile);
    } finally {
      writeFileSync(docsFile, clean);
    }
  });

  it("a changed long list's bits (window-bits.u32) are refused by the searches that probe them, and never read by exhaustive scoring", function () {
    this.timeout(60_000);
    const bitsFile = join(index, FILES.windowBits);
    const clean = readFileSync(bitsFile);
    // A bit changed in every 4 KiB block: any search that reads bits reads a changed block.
    const bad = Buffer.from(clean);
    for (let at = 0; at < bad.length; at += 2 ** CRC_BLOCK_SHIFT) bad[at] ^= 0x01;
    writeFileSync(bitsFile, bad);
    try {
      const searcher = openIndex(index, { fill: false });
      let refused = 0;
      for (const q of queries) {
        searcher.searchExhaustive(q, 10);
        try {
          searcher.search(q, 3);
        } catch (e) {
          assert.ok(e instanceof UserError && e.message === corruptFileMessage(bitsFile), String(e));
          refused++;
        }
      }
      assert.ok(refused > 0 && refused < queries.length, `${refused} of ${queries.length} searches refused`);
      searcher.close();
    } finally {
      writeFileSync(bitsFile, clean);
    }
  });

  it("a page's blocks are checked as they are used: a changed byte refuses the search that uses its 4 KiB block, not one that uses another block of the same page", function () {
    this.timeout(60_000);
    const block = 2 ** CRC_BLOCK_SHIFT;
    const { term, rowIn, postings } = listsByPage(index, block);
    const docsFile = join(index, FILES.postingDocs);
    const clean = readFileSync(docsFile);
    const page = 2 ** PAGE_SHIFTS.postingDocs;
    // Two lists in different blocks of the second page.
    const hit = rowIn(page / block + 1);
    const missed = rowIn(page / block + 3);
    assert.equal(Math.floor((4 * postings[hit]) / page), Math.floor((4 * postings[missed]) / page));
    const bad = Buffer.from(clean);
    bad[4 * postings[hit] + 1] ^= 0x40;
    writeFileSync(docsFile, bad);
    try {
      const searcher = openIndex(index, { fill: false });
      const misses = searcher.cache.misses;
      assert.ok(searcher.searchExhaustive(term(missed), 3).length > 0, "a list in an unchanged block reads");
      assert.ok(searcher.cache.misses > misses, "its page was read");
      refusedAsCorrupt(() => searcher.searchExhaustive(term(hit), 3), docsFile);
      // The page stays cached, its bad block unchecked: every later use is refused too.
      refusedAsCorrupt(() => searcher.search(term(hit), 3), docsFile);
      assert.ok(searcher.searchExhaustive(term(missed), 3).length > 0);
      searcher.close();
    } finally {
      writeFileSync(docsFile, clean);
    }
  });

  it("reads the index into memory in the background after open: results before, during and after the fill equal exhaustive scoring, and afterwards no search reads a page", async function () {
    this.timeout(120_000);
    const reference = openIndex(index, { fill: false });
    const expected = queries.map((q) => reference.searchExhaustive(q, 10));
    assert.equal(reference.cache.filledBytes, 0, "fill: false reads nothing ahead");
    reference.close();
    const searcher = openIndex(index);
    let done = false;
    void searcher.filled.then(() => (done = true));
    same(searcher.search(queries[0], 10), expected[0]); // before the fill has read anything
    let during = 0;
    for (const [i, q] of queries.entries()) {
      await new Promise<void>((resolve) => setImmediate(resolve)); // the fill's reads and checks go on in between
      if (!done) during++;
      same(searcher.search(q, 10), expected[i]);
    }
    assert.ok(during > 0, "some searches ran while the fill was under way");
    const report = await searcher.filled;
    const cached = INDEX_FILES; // texts.bin too: the whole index fits the default budget
    assert.deepEqual([...report.filled].sort(), [...cached].sort());
    assert.deepEqual(report.left, []);
    assert.equal(report.stopped, undefined);
    const bytes = cached.reduce((n, key) => n + statSync(join(index, FILES[key])).size, 0);
    assert.equal(report.bytes, bytes);
    assert.equal(
      searcher.cache.bytes,
      bytes,
      "only the resident files are held: the pages searches read before are let go",
    );
    const misses = searcher.cache.misses;
    for (const [i, q] of queries.entries()) same(searcher.search(q, 10), expected[i]);
    for (const [i, q] of queries.entries()) same(searcher.searchExhaustive(q, 10), expected[i]);
    assert.equal(searcher.cache.misses, misses, "no page read once the files are resident");
    searcher.close();
    assert.equal(searcher.cache.bytes, 0);
    assert.throws(() => searcher.search(queries[1], 3), /was closed/);
  });

  it("a byte changed in a file the fill reads is refused, with the same one-line message, by the search that needs it", async function () {
    this.timeout(60_000);
    const copy = join(dir, "changed-before-fill");
    execFileSync("cp", ["-r", index, copy]);
    const { term, rowIn, postings } = listsByPage(copy);
    const hit = rowIn(2);
    const docsFile = join(copy, FILES.postingDocs);
    const bad = readFileSync(docsFile);
    bad[4 * postings[hit] + 1] ^= 0x40;
    writeFileSync(docsFile, bad);
    const searcher = openIndex(copy);
    const report = await searcher.filled;
    assert.equal(report.stopped, "refused");
    assert.ok(report.left.includes("postingDocs") && !report.filled.includes("postingDocs"), JSON.stringify(report));
    for (const search of [() => searcher.searchExhaustive(term(hit), 3), () => searcher.search(term(hit), 3)])
      assert.throws(search, (e: unknown) => e instanceof UserError && e.message === corruptFileMessage(docsFile));
    searcher.close();
    rmSync(copy, { recursive: true, force: true });
  });

  /** Room for the vocabulary's lookups, not for the lists. */
  const smallBudget = () => {
    const size = (key: IndexFile) => statSync(join(index, FILES[key])).size;
    const budget = size("vocabHash") + size("vocabOffsets") + size("vocab") + 2 ** 17;
    assert.ok(budget < size("postingDocs") + size("postingScores"), "the lists do not fit");
    return budget;
  };

  it("an index larger than the cache's budget is read into memory only as far as the budget: the rest keeps paging, with the same results", async function () {
    this.timeout(120_000);
    const budget = smallBudget();
    process.env[NO_FILE_MAP_ENV] = "1"; // paging, where the mmap addon is built too
    let small: Bm25Searcher;
    try {
      small = openIndex(index, { cacheBytes: budget });
      await small.filled;
    } finally {
      delete process.env[NO_FILE_MAP_ENV];
    }
    const report = await small.filled;
    assert.deepEqual(report.mapped, []);
    assert.ok(report.filled.includes("vocabHash") && report.left.includes("postingDocs"), JSON.stringify(report));
    assert.ok(report.bytes <= budget && small.cache.bytes <= budget, `${small.cache.bytes} bytes held`);
    const page = 2 ** PAGE_SHIFTS.postingDocs;
    assert.ok(
      small.cache.spareBytes > budget - small.cache.bytes - page &&
        small.cache.bytes + small.cache.spareBytes <= budget,
      `the budget's room for pages made into buffers ahead (${small.cache.spareBytes} of ${budget - small.cache.bytes} bytes)`,
    );
    const roomy = openIndex(index, { fill: false });
    for (const q of queries) {
      same(small.search(q, 10), roomy.search(q, 10));
      assert.ok(small.cache.bytes <= budget, `${small.cache.bytes} bytes held`);
    }
    assert.ok(small.cache.misses > 0, "the lists were read page by page");
    small.close();
    roomy.close();
  });

  describe("with the mmap addon (dist/native/file-map.node, built by npm run build)", () => {
    before(function () {
      if (fileMapper() === undefined) {
        console.log("    (skipped: no mmap addon; `npm run build` builds it where c++ and Node's headers are)");
        this.skip();
      }
    });

    it("the lists of an index larger than the budget are mapped, not paged: the same results as exhaustive scoring, and the lists' pages are not read", async function () {
      this.timeout(120_000);
      const budget = smallBudget();
      const small = openIndex(index, { cacheBytes: budget });
      const report = await small.filled;
      const lists: IndexFile[] = ["windowMax", "windowStart", "windowBits", "postingDocs", "postingScores"];
      // Every list file the budget leaves out is mapped (the small window maxima may fit).
      assert.deepEqual(
        report.mapped,
        lists.filter((key) => !report.filled.includes(key)),
        JSON.stringify(report),
      );
      assert.ok(report.mapped.includes("postingDocs") && report.mapped.includes("postingScores"));
      process.env[NO_FILE_MAP_ENV] = "1";
      const paged = openIndex(index, { cacheBytes: budget });
      delete process.env[NO_FILE_MAP_ENV];
      assert.deepEqual((await paged.filled).mapped, []);
      const reference = openIndex(index, { fill: false });
      const [mappedRead, pagedRead] = [small.cache.bytesRead, paged.cache.bytesRead];
      for (const q of queries) {
        const expected = reference.searchExhaustive(q, 10);
        for (const searcher of [small, paged]) {
          same(searcher.search(q, 10), expected);
          same(searcher.searchExhaustive(q, 10), expected);
        }
      }
      // What still pages is what neither fits nor is mapped: the offsets, and the hits' ids and texts.
      const mappedBytes = small.cache.bytesRead - mappedRead;
      const pagedBytes = paged.cache.bytesRead - pagedRead;
      assert.ok(mappedBytes < pagedBytes / 2, `${mappedBytes} bytes of pages read mapped, ${pagedBytes} paged`);
      assert.ok(small.cache.bytes <= budget, `${small.cache.bytes} bytes held`);
      for (const searcher of [small, paged, reference]) searcher.close();
      assert.throws(() => small.search(queries[1], 3), /was closed/);
    });

    it("a byte changed in a mapped list is refused by the search that reads its block, and only by it, every time", async function () {
      this.timeout(60_000);
      const copy = join(dir, "changed-mapped");
      execFileSync("cp", ["-r", index, copy]);
      const { term, rowIn, postings } = listsByPage(copy);
      const hit = rowIn(2);
      const missed = rowIn(3);
      const docsFile = join(copy, FILES.postingDocs);
      const bad = readFileSync(docsFile);
      bad[4 * postings[hit] + 1] ^= 0x40;
      writeFileSync(docsFile, bad);
      const searcher = openIndex(copy, { cacheBytes: smallBudget() });
      try {
        const report = await searcher.filled;
        assert.ok(report.mapped.includes("postingDocs"), JSON.stringify(report));
        assert.ok(searcher.search(term(missed), 3).length > 0, "a list in unchanged blocks still reads");
        for (const search of [() => searcher.search(term(hit), 3), () => searcher.searchExhaustive(term(hit), 3)])
          refusedAsCorrupt(search, docsFile);
        refusedAsCorrupt(() => searcher.search(term(hit), 3), docsFile); // never marked as checked
      } finally {
        searcher.close();
        rmSync(copy, { recursive: true, force: true });
      }
    });

    for (const key of ["windowStart", "windowBits", "postingScores"] as const) {
      it(`a mapped ${FILES[key]} with a byte changed in every 4 KiB block is refused by the searches that read it`, async function () {
        this.timeout(60_000);
        const copy = join(dir, `changed-mapped-${key}`);
        execFileSync("cp", ["-r", index, copy]);
        const file = join(copy, FILES[key]);
        const bad = readFileSync(file);
        for (let at = 0; at < bad.length; at += 2 ** CRC_BLOCK_SHIFT) bad[at] ^= 0x01;
        writeFileSync(file, bad);
        const searcher = openIndex(copy, { cacheBytes: smallBudget() });
        try {
          assert.ok((await searcher.filled).mapped.includes(key));
          let refused = 0;
          for (const q of queries) {
            try {
              searcher.search(q, 3);
            } catch (e) {
              assert.ok(e instanceof UserError && e.message === corruptFileMessage(file), String(e));
              refused++;
            }
          }
          assert.ok(refused > 0, `${refused} of ${queries.length} searches refused`);
        } finally {
          searcher.close();
          rmSync(copy, { recursive: true, force: true });
        }
      });
    }
  });

  it("a searcher closed while its fill runs stops the fill and holds nothing", async () => {
    const searcher = openIndex(index);
    searcher.close();
    const report = await searcher.filled;
    assert.equal(report.stopped, "closed");
    assert.deepEqual(report.filled, []);
    assert.equal(searcher.cache.bytes, 0);
  });

  it("a searcher nobody closed gives its files back once it is garbage collected", function () {
    this.timeout(60_000);
    // In a child with --expose-gc: 50 searchers opened, searched and dropped; their descriptors
    // are closed after a collection.
    const script = join(dir, "unclosed.ts");
    const reader = join(__dirname, "../../../../../src/core/base/search/bm25-index");
    writeFileSync(
      script,
      `import { readdirSync } from "node:fs";
import { openIndex } from ${JSON.stringify(reader)};
const fds = () => readdirSync("/proc/self/fd").length;
const before = fds();
for (let i = 0; i < 50; i++) openIndex(${JSON.stringify(index)}).search("history", 3);
const opened = fds();
const gc = (globalThis as { gc?: () => void }).gc!;
// A collection, then up to 2 s for the descriptors to go: each searcher's background fill holds
// one of its own until it sees its files closed (at its next read, within milliseconds).
let tries = 0;
const check = () => {
  gc();
  const after = fds();
  if (after <= before + ${INDEX_FILES.length} || ++tries === 40) console.log(JSON.stringify({ before, opened, after }));
  else setTimeout(check, 50);
};
gc();
setTimeout(check, 50);
`,
    );
    const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", script], { encoding: "utf8" });
    const { before, opened, after } = JSON.parse(out.trim().split("\n").pop()!) as Record<string, number>;
    assert.ok(opened >= before + 50 * INDEX_FILES.length, `${opened} descriptors open after 50 opens`);
    assert.ok(after <= before + INDEX_FILES.length, `${after} descriptors open after a collection (${before} before)`);
  });

  it("a block table that does not belong to meta.json is refused at open, a newer version too", () => {
    const table = join(index, blockTableName("postingScores"));
    const clean = readFileSync(table);
    writeFileSync(table, clean.subarray(4));
    try {
      assert.throws(
        () => openIndex(index),
        (e: unknown) => e instanceof UserError && e.message === corruptFileMessage(table),
      );
    } finally {
      writeFileSync(table, clean);
    }
    const metaFile = join(index, META_FILE);
    const meta = readFileSync(metaFile, "utf8");
    writeFileSync(metaFile, meta.replace('"version": 7', '"version": 8'));
    try {
      assert.throws(
        () => openIndex(index),
        (e: unknown) =>
          e instanceof UserError && e.message.includes("has format version 8, this Agent Lab reads version 7"),
      );
    } finally {
      writeFileSync(metaFile, meta);
    }
    openIndex(index).close();
  });
});

describe("search: the page cache", () => {
  it("holds at most its budget and evicts the least recently used page", () => {
    const cache = new PageCache(3 * 100);
    const page = () => new Uint8Array(100);
    for (const key of [1, 2, 3]) cache.put(key, page());
    assert.ok(cache.get(1), "1 used: now the most recent");
    cache.put(4, page());
    assert.equal(cache.bytes, 300);
    assert.equal(cache.get(2), undefined, "2, the least recently used, went");
    for (const key of [1, 3, 4]) assert.ok(cache.get(key), `${key} stays`);
    cache.get(3);
    cache.get(4);
    cache.put(5, page()); // 1 is now the least recently used
    assert.equal(cache.get(1), undefined);
    assert.deepEqual(
      [3, 4, 5].map((key) => cache.get(key) !== undefined),
      [true, true, true],
    );
    // A page larger than the budget is kept alone (the read that needs it gets it).
    cache.put(6, new Uint8Array(1000));
    assert.equal(cache.bytes, 1000);
    assert.ok(cache.get(6));
  });
});

describe("search: the page cache's room for resident files", () => {
  it("a file's reservation evicts pages to make room, one past the budget is refused, and one from before a clear() is not given back after it", () => {
    const cache = new PageCache(1000);
    for (const key of [1, 2, 3]) cache.put(key, new Uint8Array(200));
    const ticket = cache.reserve(700);
    assert.notEqual(ticket, undefined);
    assert.equal(cache.bytes, 900, "700 reserved, one page of 200 left");
    assert.equal(cache.get(1), undefined, "the least recently used pages went");
    assert.ok(cache.get(3));
    assert.equal(cache.reserve(400), undefined, "resident files never pass the budget together");
    cache.release(700, ticket!);
    assert.equal(cache.bytes, 200);
    const again = cache.reserve(800)!;
    cache.clear();
    cache.release(800, again);
    assert.equal(cache.bytes, 0, "a reservation cleared with the cache is not given back twice");
    assert.notEqual(cache.reserve(1000), undefined);
  });
});

describe("search: pruned = exhaustive with ties", () => {
  let dir: string;
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("on random queries over a corpus of repeated paragraphs (many equal scores), k = 1, 3, 10, 50", async function () {
    this.timeout(120_000);
    dir = mkdtempSync(join(tmpdir(), "agent-lab-ties-"));
    let seed = 4242;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const common = Array.from({ length: 30 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`);
    const rare = Array.from({ length: 400 }, (_, i) => `rare${i}x`);
    // 40 distinct paragraphs, each repeated many times across the corpus: equal length and words,
    // so equal scores for every query, and the order among them is decided by document number.
    const templates = Array.from({ length: 40 }, () =>
      Array.from({ length: 4 + Math.floor(rand() * 8) }, () =>
        rand() < 0.8 ? common[Math.floor(rand() * common.length)] : rare[Math.floor(rand() * rare.length)],
      ).join(" "),
    );
    const rows: Paragraph[] = Array.from({ length: 6000 }, (_, i) => ({
      id: i,
      title: "t",
      text: templates[Math.floor(rand() * templates.length)],
    }));
    writeCorpus(rows, join(dir, "corpus.jsonl"));
    await buildIndex(join(dir, "corpus.jsonl"), join(dir, "bm25"), { workers: 0 });
    const searcher = openIndex(join(dir, "bm25"), { cacheBytes: 2 ** 17 });
    let ties = 0;
    for (let q = 0; q < 300; q++) {
      const words = Array.from({ length: 1 + Math.floor(rand() * 8) }, () =>
        rand() < 0.7 ? common[Math.floor(rand() * common.length)] : rare[Math.floor(rand() * rare.length)],
      );
      const k = [1, 3, 10, 50][q % 4];
      const fast = searcher.search(words.join(" "), k);
      same(fast, searcher.searchExhaustive(words.join(" "), k));
      for (let i = 1; i < fast.length; i++) if (fast[i].score === fast[i - 1].score) ties++;
    }
    assert.ok(ties > 500, `${ties} tied neighbours in the results`);
    // The same queries once the index is resident (the lists searched where they lie in memory).
    const resident = openIndex(join(dir, "bm25"));
    assert.ok((await resident.filled).filled.includes("postingDocs"));
    seed = 99;
    for (let q = 0; q < 300; q++) {
      const words = Array.from({ length: 1 + Math.floor(rand() * 8) }, () =>
        rand() < 0.7 ? common[Math.floor(rand() * common.length)] : rare[Math.floor(rand() * rare.length)],
      );
      const k = [1, 3, 10, 50][q % 4];
      same(resident.search(words.join(" "), k), searcher.searchExhaustive(words.join(" "), k));
    }
    resident.close();
    searcher.close();
  });
});
