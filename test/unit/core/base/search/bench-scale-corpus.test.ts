import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureScaleCorpus } from "../../../../../bench/search/scale-corpus";
import type { Scale } from "../../../../../bench/search/scales";
import { PASSAGE_WORDS, queryParagraphIds, SyntheticCorpus } from "../../../../../bench/search/synthetic-corpus";

/** The bench's scale corpora: wiki-18-shaped passages, and a corpus written once and reused only when whole. */
describe("bench/search scale corpora", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "bench-scale-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const read = (file: string) =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; title: string; text: string });

  it("writes passages of 100 words that share their article's title, only an article's last one shorter", async () => {
    const file = join(dir, "passages.jsonl");
    await new SyntheticCorpus({ docs: 2000, vocabulary: 250_000, shape: "passages" }).write(file, new Set());
    const docs = read(file);
    const words = docs.map((d) => d.text.split(" ").length);
    let articles = 0;
    docs.forEach((d, i) => {
      const last = i === docs.length - 1 || docs[i + 1].title !== d.title;
      if (last) articles++;
      else assert.equal(words[i], PASSAGE_WORDS, `passage ${i} is not an article's last and has ${words[i]} words`);
      assert.ok(words[i] <= PASSAGE_WORDS);
    });
    assert.ok(articles > 300 && articles < 1000, `${articles} articles in 2,000 passages`);
  });

  it("counts the words and word types it wrote", async () => {
    const file = join(dir, "abstracts.jsonl");
    const generator = new SyntheticCorpus({ docs: 500, vocabulary: 250_000 });
    await generator.write(file, new Set());
    const docs = read(file);
    const all = docs.flatMap((d) => `${d.title} ${d.text}`.split(" ").filter(Boolean));
    const stats = generator.stats(500);
    assert.equal(stats.words, all.length);
    const types = new Set(all.map((w) => w.toLowerCase().replace(/[.()]/g, "")));
    assert.equal(stats.types, types.size);
  });

  it("gives the same bytes for the same seed", async () => {
    const a = join(dir, "a.jsonl");
    const b = join(dir, "b.jsonl");
    await new SyntheticCorpus({ docs: 300, vocabulary: 250_000 }).write(a, queryParagraphIds(300, 5));
    await new SyntheticCorpus({ docs: 300, vocabulary: 250_000 }).write(b, queryParagraphIds(300, 5));
    const hash = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");
    assert.equal(hash(a), hash(b));
  });

  it("reuses a written corpus while its record matches, and writes it again when the file was cut short", async () => {
    const scale: Scale = { name: "tiny", docs: 400, shape: "passages", vocabulary: 250_000, like: "a test" };
    const logs: string[] = [];
    const first = await ensureScaleCorpus(dir, scale, 10, (m) => logs.push(m));
    assert.equal(first.reused, false);
    assert.equal(first.record.docs, 400);
    assert.equal(read(first.corpus).length, 400);
    const again = await ensureScaleCorpus(dir, scale, 10, (m) => logs.push(m));
    assert.equal(again.reused, true);
    truncateSync(first.corpus, 1000);
    const rewritten = await ensureScaleCorpus(dir, scale, 10, (m) => logs.push(m));
    assert.equal(rewritten.reused, false);
    assert.equal(statSync(rewritten.corpus).size, first.record.bytes);
    const otherQueries = await ensureScaleCorpus(dir, scale, 12, (m) => logs.push(m));
    assert.equal(otherQueries.reused, false, "a different query count makes other queries: written again");
  });
});
