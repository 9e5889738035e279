import { strict as assert } from "node:assert";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { realParagraphs, writeCorpus, type Paragraph } from "../../../../bench/search/real-paragraphs";
import { FileFormatError, UserError } from "../../../../src/core/errors";
import { buildIndex, openIndex, type Bm25Searcher } from "../../../../src/core/search";
import { TermTokenizer } from "../../../../src/core/search/tokenizer";
import { requireSharedData } from "../../../helpers/shared-data";

const TOY: Paragraph[] = [
  { id: 0, title: "Ed Wood", text: "Edward Davis Wood Jr. was an American filmmaker, actor and author." },
  { id: 1, title: "Scott Derrickson", text: "Scott Derrickson is an American director, screenwriter and producer. He directed Sinister." },
  { id: 2, title: "Sinister (film)", text: "Sinister is a 2012 supernatural horror film directed by Scott Derrickson." },
  { id: 3, title: "Doctor Strange", text: "Doctor Strange is a 2016 American superhero film directed by Scott Derrickson. Films, films, films." },
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
  return docs.map((d) =>
    tok.terms(query).reduce((sum, term) => {
      const df = docs.filter((x) => x.includes(term)).length;
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
      for (const h of hits) assert.ok(Math.abs(h.score - expected[h.id]) < 1e-5 * expected[h.id], `${q} doc ${h.id}: ${h.score} vs ${expected[h.id]}`);
      // Best first, and every document with a positive score is returned when k allows.
      assert.deepEqual(hits.map((h) => h.score), [...hits.map((h) => h.score)].sort((a, b) => b - a));
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
    for (const word of ["𠀀𠀁", "ｆｕｌｌ", "𝒜𝒷", "ｗｉｄｅ"]) assert.equal(index.search(word, 1)[0]?.title, "Scripts", word);
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
    writeFileSync(corpus, JSON.stringify({ id: 907, title: "A", text: "alpha beta" }) + "\n\n" + JSON.stringify({ title: "B", text: "beta gamma" }) + "\n");
    await buildIndex(corpus, join(tmp, "bm25"), { workers: 0 });
    const index = openIndex(join(tmp, "bm25"));
    assert.deepEqual(index.search("gamma", 1)[0].id, 1);
    assert.deepEqual(index.search("alpha", 1)[0].id, 907);
  });

  it("builds the same index with worker threads as on one thread", async function () {
    const corpus = join(tmp, "corpus.jsonl");
    const rows = Array.from({ length: 400 }, (_, i) => ({ ...TOY[i % TOY.length], id: i, text: `${TOY[i % TOY.length].text} row${i} w${i % 17}` }));
    writeCorpus(rows, corpus);
    const one = await buildIndex(corpus, join(tmp, "one"), { workers: 0 });
    const two = await buildIndex(corpus, join(tmp, "two"), { workers: 2, batchBytes: 2048 }); // many small batches
    assert.equal(two.documents, 400);
    assert.equal(two.contentHash, one.contentHash);
  });

  it("a corrupt, incomplete, foreign or old-version folder is refused with the folder and what to run", async () => {
    await toyIndex();
    const dir = join(tmp, "bm25");
    const expectRefusal = (pattern: RegExp) =>
      assert.throws(
        () => openIndex(dir),
        (e: unknown) => e instanceof UserError && e.message.includes(dir) && e.message.includes("agent-lab index") && pattern.test(e.message),
      );
    truncateSync(join(dir, "texts.bin"), 10);
    expectRefusal(/corrupt.*texts\.bin/);
    truncateSync(join(dir, "postings-docs.u32"), 8);
    expectRefusal(/corrupt.*postings-docs\.u32/);
    rmSync(join(dir, "postings-docs.u32"));
    expectRefusal(/incomplete.*postings-docs\.u32/);
    const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8"));
    writeFileSync(join(dir, "meta.json"), JSON.stringify({ ...meta, version: 0 }));
    expectRefusal(/version 0/);
    writeFileSync(join(dir, "meta.json"), "{ not json");
    expectRefusal(/unreadable/);
    rmSync(join(dir, "meta.json"));
    expectRefusal(/no search index/);
  });

  it("a bad corpus line is a FileFormatError naming file:line, and the previous index survives", async () => {
    await toyIndex();
    const corpus = join(tmp, "corpus.jsonl");
    appendFileSync(corpus, '{"id": 5, "title": "Broken", "text": 12}\n');
    await assert.rejects(buildIndex(corpus, join(tmp, "bm25"), { workers: 0 }), (e: unknown) => e instanceof FileFormatError && e.message.startsWith(`${corpus}:${TOY.length + 1}:`) && /"text"/.test(e.message));
    await assert.rejects(buildIndex(corpus, join(tmp, "bm25"), { workers: 2 }), (e: unknown) => e instanceof FileFormatError && e.message.startsWith(`${corpus}:${TOY.length + 1}:`));
    assert.equal(openIndex(join(tmp, "bm25")).search("Derrickson", 1)[0].title, "Scott Derrickson");
    assert.ok(!existsSync(join(dirname(corpus), ".bm25.partial-" + process.pid)));
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
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
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
      assert.deepEqual(fast.map((h) => [h.id, h.score]), slow.map((h) => [h.id, h.score]), query);
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
