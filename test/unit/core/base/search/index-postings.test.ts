import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildIndex, openIndex, type BuildProgress } from "../../../../../src/core/base/search";
import {
  DEFAULT_B,
  DEFAULT_K1,
  FILES,
  META_FILE,
  WINDOW_SHIFT,
  hasWindows,
  idfLucene,
  lengthNorm,
  termScore,
  windowCount,
  type IndexMeta,
} from "../../../../../src/core/base/search/bm25-format";
import type { BatchResult } from "../../../../../src/core/base/search/corpus-batch";
import { ChunkPostings, PartialReader } from "../../../../../src/core/base/search/partial-index";
import { TermTokenizer } from "../../../../../src/core/base/search/tokenizer";

/**
 * What a streaming build writes, checked against the index written out from its definition: every
 * term (in UTF-8 byte order) with its postings (document numbers ascending) and their BM25
 * contributions (bm25-format.ts's float32 formula with the whole corpus's N, average length and
 * df), the term maxima, window bounds and starts, the corpus ids and the texts. A lost, moved or
 * mis-scored posting is a wrong search result; these tests name the term and posting it is in.
 */

interface Row {
  id?: number;
  title: string;
  text: string;
}

/** A deterministic corpus: skewed word frequencies, repeated words, rows with and without ids, term-less rows, blank lines. */
function corpusRows(count: number, seed = 7): Row[] {
  let s = seed;
  const rand = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  // Words whose UTF-16 and UTF-8 orders differ (astral vs fullwidth), stems shared by two words, long words.
  const words = ["film", "films", "filmed", "𠀀𠀁", "ｆｕｌｌ", "𝒜𝒷", "東京", "café", "cafe", "zz", "tie", "river"];
  for (let i = 0; i < 40; i++) words.push(`w${i}x${"q".repeat(i % 5)}`);
  const rows: Row[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 23 === 11) {
      rows.push({ title: "A", text: "the of and" }); // no terms
      continue;
    }
    const n = 1 + Math.floor(rand() * 12);
    const text: string[] = [];
    for (let j = 0; j < n; j++) text.push(words[Math.floor(rand() ** 2.5 * words.length)]);
    if (i % 4 === 1) text.push(`rare${i % 37}`); // in a few documents: no window row
    const row: Row = { title: `T${i % 6}`, text: text.join(" ") };
    // Some ids beyond 2^32, so a u32 in place of the f64 shows.
    if (i % 3 !== 0) row.id = i % 5 === 0 ? 2 ** 40 + i : 9000 - 7 * i;
    rows.push(row);
  }
  return rows;
}

function writeCorpus(rows: readonly Row[], file: string): void {
  const lines: string[] = [];
  rows.forEach((r, i) => {
    lines.push(JSON.stringify(r));
    if (i % 17 === 5) lines.push(""); // blank lines are no documents
  });
  writeFileSync(file, lines.join("\n") + "\n");
}

interface TermPostings {
  term: string;
  docs: number[];
  scores: number[];
}

/** The index written out from its definition: terms in UTF-8 byte order, postings by document, BM25 (lucene) scores. */
function expectedIndex(rows: readonly Row[], k1 = DEFAULT_K1, b = DEFAULT_B) {
  const tok = new TermTokenizer();
  const docTerms = rows.map((r) => tok.terms(`${r.title}. ${r.text}`));
  const N = rows.length;
  const avgDocLength = docTerms.reduce((a, d) => a + d.length, 0) / N;
  const tfs = new Map<string, Map<number, number>>();
  docTerms.forEach((terms, d) => {
    for (const t of terms) {
      const m = tfs.get(t) ?? new Map<number, number>();
      m.set(d, (m.get(d) ?? 0) + 1);
      tfs.set(t, m);
    }
  });
  const terms = [...tfs.keys()].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  const postings: TermPostings[] = terms.map((term) => {
    const m = tfs.get(term)!;
    const docs = [...m.keys()].sort((x, y) => x - y);
    const idf = idfLucene(docs.length, N);
    const scores = docs.map((d) => termScore(idf, m.get(d)!, lengthNorm(docTerms[d].length, avgDocLength, k1, b)));
    return { term, docs, scores };
  });
  return { N, avgDocLength, postings, docIds: rows.map((r, d) => r.id ?? d) };
}

const bytesOf = (dir: string, file: string) => new Uint8Array(readFileSync(join(dir, file))).buffer;
const u32 = (dir: string, file: string) => new Uint32Array(bytesOf(dir, file));
const f32 = (dir: string, file: string) => new Float32Array(bytesOf(dir, file));
const f64 = (dir: string, file: string) => new Float64Array(bytesOf(dir, file));

/** Asserts every index file of `dir` against the index written out from `rows`. */
function assertIndexMatches(dir: string, rows: readonly Row[], k1 = DEFAULT_K1, b = DEFAULT_B): void {
  const want = expectedIndex(rows, k1, b);
  const vocab = readFileSync(join(dir, FILES.vocab));
  const vocabOffsets = u32(dir, FILES.vocabOffsets);
  const offsets = u32(dir, FILES.postingOffsets);
  const docs = u32(dir, FILES.postingDocs);
  const scores = f32(dir, FILES.postingScores);
  const termMax = f32(dir, FILES.termMax);
  const V = want.postings.length;
  assert.equal(vocabOffsets.length, V + 1, "terms");
  assert.equal(offsets.length, V + 1, "posting offsets");
  assert.equal(termMax.length, V, "term maxima");
  assert.equal(offsets[0], 0);
  assert.equal(vocabOffsets[0], 0);
  const P = want.postings.reduce((a, t) => a + t.docs.length, 0);
  assert.equal(docs.length, P, "postings");
  assert.equal(scores.length, P, "scores");
  want.postings.forEach((t, r) => {
    assert.equal(vocab.toString("utf8", vocabOffsets[r], vocabOffsets[r + 1]), t.term, `term ${r}`);
    assert.deepEqual([...docs.subarray(offsets[r], offsets[r + 1])], t.docs, `postings of ${t.term}`);
    assert.deepEqual([...scores.subarray(offsets[r], offsets[r + 1])], t.scores, `scores of ${t.term}`);
    assert.equal(termMax[r], Math.max(...t.scores), `maximum of ${t.term}`);
  });

  // Window rows: for each term with at least W postings, each window's largest contribution rounded
  // up to a byte of the term's maximum (at least 1 where the window has a posting), and where each
  // window's postings start in the postings file.
  const W = windowCount(want.N);
  const windowRows = u32(dir, FILES.windowRows);
  const windowMax = new Uint8Array(bytesOf(dir, FILES.windowMax));
  const windowStart = u32(dir, FILES.windowStart);
  const windowed = want.postings.flatMap((t, r) => (hasWindows(t.docs.length, W) ? [r] : []));
  assert.ok(windowed.length >= 3 && windowed.length < V, `${windowed.length} windowed terms of ${V}`);
  assert.deepEqual([...windowRows], windowed);
  assert.equal(windowMax.length, windowed.length * W);
  assert.equal(windowStart.length, windowed.length * (W + 1));
  windowed.forEach((r, slot) => {
    const t = want.postings[r];
    const top = Math.max(...t.scores);
    const best = new Array<number>(W).fill(0);
    t.docs.forEach((d, p) => (best[d >>> WINDOW_SHIFT] = Math.max(best[d >>> WINDOW_SHIFT], t.scores[p])));
    const quantized = best.map((s) => (s > 0 ? Math.max(1, Math.ceil((s / top) * 255)) : 0));
    assert.deepEqual([...windowMax.subarray(slot * W, (slot + 1) * W)], quantized, `window maxima of ${t.term}`);
    const starts = Array.from({ length: W + 1 }, (_, w) => {
      const p = t.docs.findIndex((d) => d >= w << WINDOW_SHIFT);
      return offsets[r] + (p < 0 ? t.docs.length : p);
    });
    assert.deepEqual([...windowStart.subarray(slot * (W + 1), (slot + 1) * (W + 1))], starts, `starts of ${t.term}`);
  });

  assert.deepEqual([...f64(dir, FILES.docIds)], want.docIds, "corpus ids");
  const textOffsets = f64(dir, FILES.textOffsets);
  assert.equal(textOffsets.length, 2 * want.N + 1);
  assert.equal(textOffsets[2 * want.N], statSync(join(dir, FILES.texts)).size, "the texts end at texts.bin's end");

  const index = openIndex(dir);
  try {
    const meta = JSON.parse(readFileSync(join(dir, META_FILE), "utf8")) as IndexMeta;
    assert.equal(meta.documents, want.N);
    assert.equal(meta.terms, V);
    assert.equal(meta.postings, P);
    assert.equal(meta.avgDocLength, want.avgDocLength);
    assert.deepEqual([meta.k1, meta.b], [k1, b]);
    rows.forEach((row, d) =>
      assert.deepEqual(index.paragraph(d), { id: row.id ?? d, title: row.title, text: row.text }, `paragraph ${d}`),
    );
    want.postings.forEach((t, r) => assert.equal(index.termRow(t.term), r, `row of ${t.term}`));
    for (const absent of ["", "filmx", "fil", "w1xqq", "𠀀", "zzz"]) assert.equal(index.termRow(absent), -1, absent);
  } finally {
    index.close();
  }
}

let tmp: string;
beforeEach(() => (tmp = mkdtempSync(join(tmpdir(), "agent-lab-postings-"))));
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe("search build: the index's postings equal the BM25 definition", () => {
  const rows = corpusRows(300);

  for (const [chunkDocuments, batchBytes] of [
    [100_000, 4 << 20], // one chunk, one batch
    [64, 4 << 20], // chunks of one window
    [7, 300], // many chunks of several small batches; terms in some chunks and not others
  ] as const) {
    it(`chunks of ${chunkDocuments} documents, batches of ${batchBytes} bytes: every term, posting, score, bound, id and text`, async () => {
      const corpus = join(tmp, "corpus.jsonl");
      writeCorpus(rows, corpus);
      const merged: number[] = [];
      const summary = await buildIndex(corpus, join(tmp, "bm25"), {
        workers: 0,
        chunkDocuments,
        batchBytes,
        mergeReportPostings: 50,
        onProgress: (_, p: BuildProgress) => {
          if (p.phase === "merge") merged.push(p.postingsMerged);
        },
      });
      assertIndexMatches(join(tmp, "bm25"), rows);
      const want = expectedIndex(rows);
      assert.equal(summary.documents, rows.length);
      // A chunk is a number of corpus lines, blank ones included.
      const lines = readFileSync(corpus, "utf8").split("\n").length - 1;
      assert.equal(summary.chunks, Math.ceil(lines / chunkDocuments));
      assert.equal(
        summary.postings,
        want.postings.reduce((a, t) => a + t.docs.length, 0),
      );
      assert.equal(summary.terms, want.postings.length);
      // The merge reports as it goes (after 50 postings or more: a term's postings are not split), then all of them.
      const longest = Math.max(...want.postings.map((t) => t.docs.length));
      assert.ok(merged.length > 10, `${merged.length} merge reports`);
      assert.equal(merged.at(-1), summary.postings);
      for (let i = 1; i < merged.length; i++) {
        const step = merged[i] - (merged[i - 1] ?? 0);
        assert.ok(step <= 50 + longest && (i === merged.length - 1 || step >= 50), `merge reports ${merged.join(" ")}`);
      }
    });
  }

  it("uses the k1 and b it is given", async () => {
    const corpus = join(tmp, "corpus.jsonl");
    const few = rows.slice(0, 200);
    writeCorpus(few, corpus);
    await buildIndex(corpus, join(tmp, "bm25"), { workers: 0, chunkDocuments: 50, k1: 0.9, b: 0.4 });
    assertIndexMatches(join(tmp, "bm25"), few, 0.9, 0.4);
  });

  it("a term in more documents than the merge's first buffer holds (65,536) keeps every posting", async function () {
    this.timeout(60_000);
    const n = 70_000;
    const corpus = join(tmp, "corpus.jsonl");
    const line = (i: number) => JSON.stringify({ title: "x", text: i % 2 ? "common odd" : "common even" });
    writeFileSync(corpus, Array.from({ length: n }, (_, i) => line(i)).join("\n"));
    await buildIndex(corpus, join(tmp, "bm25"), { workers: 0, chunkDocuments: 40_000 });
    const dir = join(tmp, "bm25");
    const vocab = readFileSync(join(dir, FILES.vocab)).toString("utf8");
    assert.equal(vocab, "commonevenodd");
    const offsets = u32(dir, FILES.postingOffsets);
    assert.deepEqual([...offsets], [0, n, n + n / 2, 2 * n]);
    const docs = u32(dir, FILES.postingDocs);
    for (let d = 0; d < n; d++) if (docs[d] !== d) assert.fail(`posting ${d} of "common" is document ${docs[d]}`);
    for (let j = 0; j < n / 2; j++) {
      if (docs[n + j] !== 2 * j) assert.fail(`posting ${j} of "even" is document ${docs[n + j]}`);
      if (docs[n + n / 2 + j] !== 2 * j + 1) assert.fail(`posting ${j} of "odd" is document ${docs[n + n / 2 + j]}`);
    }
    const scores = f32(dir, FILES.postingScores);
    const common = termScore(idfLucene(n, n), 1, lengthNorm(2, 2, DEFAULT_K1, DEFAULT_B));
    for (let p = 0; p < n; p++) if (scores[p] !== common) assert.fail(`score ${p} of "common" is ${scores[p]}`);
  });
});

/** A BatchResult as the tokenizers give it: per document, its (local term id, tf) pairs. */
function batch(docs: { id: number; terms: [number, number][]; title: number; text: number }[]): BatchResult {
  return {
    seq: 0,
    newTerms: [],
    docs: docs.length,
    docIds: Float64Array.from(docs.map((d) => d.id)),
    docLengths: Uint32Array.from(docs.map((d) => d.terms.reduce((a, [, tf]) => a + tf, 0))),
    distinct: Uint32Array.from(docs.map((d) => d.terms.length)),
    termIds: Uint32Array.from(docs.flatMap((d) => d.terms.map(([t]) => t))),
    tfs: Uint16Array.from(docs.flatMap((d) => d.terms.map(([, tf]) => tf))),
    textLengths: Uint32Array.from(docs.flatMap((d) => [d.title, d.text])),
    textBytes: new Uint8Array(0),
  };
}

/** Every term of a partial index file, as its reader gives them. */
function readAll(file: string, docCount: number) {
  const r = new PartialReader(file, docCount);
  try {
    const docs = r.readDocs();
    const terms: { term: string; docs: number[]; tfs: number[] }[] = [];
    while (r.next()) {
      terms.push({
        term: r.term!.toString("utf8"),
        docs: [...r.docs.subarray(0, r.count)],
        tfs: [...r.tfs.subarray(0, r.count)],
      });
    }
    assert.equal(r.term, undefined, "no term after the last");
    assert.equal(r.next(), false, "the end stays the end");
    return { docs, terms };
  } finally {
    r.close();
  }
}

describe("search build: a chunk's partial index", () => {
  it("holds the chunk's documents and, per term in UTF-8 byte order, its documents (numbered in the corpus) and frequencies", () => {
    const vocabTerms = ["zeta", "𝒜𝒷", "ｆｕｌｌ", "alpha", "beta"];
    const vocab = { terms: vocabTerms, idOf: (t: string) => vocabTerms.indexOf(t) };
    const chunk = new ChunkPostings();
    chunk.reset(1000);
    // Local ids of each batch mapped to global ones, as the builder does.
    chunk.add(
      batch([
        {
          id: -1,
          terms: [
            [0, 2],
            [1, 1],
          ],
          title: 3,
          text: 10,
        },
        { id: 0, terms: [], title: 1, text: 0 }, // a corpus id of 0 is an id, not a missing one
      ]),
      Uint32Array.from([3, 0]),
    );
    chunk.add(
      batch([
        {
          id: 2 ** 40,
          terms: [
            [1, 3],
            [0, 1],
            [2, 5],
          ],
          title: 4,
          text: 7,
        },
        { id: -1, terms: [[2, 1]], title: 2, text: 2 },
      ]),
      Uint32Array.from([1, 3, 2]),
    );
    assert.equal(chunk.docs, 4);
    assert.equal(chunk.postings, 6);
    const file = join(tmp, "chunk-0");
    const summary = chunk.write(file, vocab);
    assert.deepEqual(summary, { docs: 4, terms: 4, postings: 6, bytes: statSync(file).size });
    const { docs, terms } = readAll(file, 4);
    assert.deepEqual([...docs.docIds], [1000, 0, 2 ** 40, 1003]);
    assert.deepEqual([...docs.docLengths], [3, 0, 9, 1]);
    assert.deepEqual([...docs.textLengths], [3, 10, 1, 0, 4, 7, 2, 2]);
    assert.deepEqual(terms, [
      { term: "alpha", docs: [1000, 1002], tfs: [2, 3] },
      { term: "zeta", docs: [1000], tfs: [1] },
      { term: "ｆｕｌｌ", docs: [1002, 1003], tfs: [5, 1] },
      { term: "𝒜𝒷", docs: [1002], tfs: [1] },
    ]);

    // Reset starts the next chunk empty, at its own first document.
    chunk.reset(1004);
    assert.equal(chunk.docs, 0);
    assert.equal(chunk.postings, 0);
    chunk.add(batch([{ id: -1, terms: [[0, 1]], title: 1, text: 1 }]), Uint32Array.from([4]));
    chunk.write(join(tmp, "chunk-1"), vocab);
    assert.deepEqual(readAll(join(tmp, "chunk-1"), 1).terms, [{ term: "beta", docs: [1004], tfs: [1] }]);
    assert.deepEqual([...readAll(join(tmp, "chunk-1"), 1).docs.docIds], [1004]);
  });

  /** A partial index file written by hand in its documented layout. */
  function handWritten(file: string, docCount: number, terms: { term: string; docs: number[]; tfs: number[] }[]) {
    const parts: Buffer[] = [
      Buffer.from(Float64Array.from({ length: docCount }, (_, i) => i + 0.5).buffer),
      Buffer.from(Uint32Array.from({ length: docCount }, (_, i) => 10 + i).buffer),
      Buffer.from(Uint32Array.from({ length: 2 * docCount }, (_, i) => 20 + i).buffer),
    ];
    for (const t of terms) {
      const bytes = Buffer.from(t.term, "utf8");
      parts.push(Buffer.from(Uint32Array.from([bytes.length, t.docs.length]).buffer), bytes);
      parts.push(Buffer.from(Uint32Array.from(t.docs).buffer), Buffer.from(Uint16Array.from(t.tfs).buffer));
    }
    writeFileSync(file, Buffer.concat(parts));
  }

  it("reads terms across its buffer's refills, and a term bigger than its buffer (1 MiB)", () => {
    const terms: { term: string; docs: number[]; tfs: number[] }[] = [];
    // Small terms until past the first buffer, so terms straddle a refill, then one of 1.2 MB that
    // ends the file (its last read ends exactly where the term does).
    for (let i = 0; i < 1300; i++) {
      const n = 1 + ((i * 37) % 300);
      terms.push({
        term: `t${String(i).padStart(4, "0")}`,
        docs: Array.from({ length: n }, (_, j) => i + 3 * j),
        tfs: Array.from({ length: n }, (_, j) => 1 + ((i + j) % 7)),
      });
    }
    const big = 200_000;
    terms.push({
      term: "ubig",
      docs: Array.from({ length: big }, (_, j) => j),
      tfs: Array.from({ length: big }, (_, j) => j % 65_536),
    });
    const file = join(tmp, "chunk");
    handWritten(file, 3, terms);
    assert.ok(statSync(file).size > 2.2 * 2 ** 20);
    const got = readAll(file, 3);
    assert.deepEqual([...got.docs.docIds], [0.5, 1.5, 2.5]);
    assert.deepEqual([...got.docs.docLengths], [10, 11, 12]);
    assert.deepEqual([...got.docs.textLengths], [20, 21, 22, 23, 24, 25]);
    assert.equal(got.terms.length, terms.length);
    got.terms.forEach((t, i) => {
      if (t.term !== terms[i].term) assert.fail(`term ${i} is ${t.term}, not ${terms[i].term}`);
      if (t.docs.length !== terms[i].docs.length || t.docs.some((d, j) => d !== terms[i].docs[j]))
        assert.fail(`documents of ${t.term}`);
      if (t.tfs.some((f, j) => f !== terms[i].tfs[j])) assert.fail(`frequencies of ${t.term}`);
    });
  });

  it("a file cut short is refused, naming it: inside the documents, inside a term, inside a term's header", () => {
    const file = join(tmp, "chunk");
    handWritten(file, 2, [
      { term: "alpha", docs: [0, 1], tfs: [1, 2] },
      { term: "beta", docs: [1], tfs: [4] },
    ]);
    const size = statSync(file).size;
    const header = 40; // 2 × (8 + 4 + 8)

    truncateSync(file, header - 3);
    const early = new PartialReader(file, 2);
    assert.throws(
      () => early.readDocs(),
      (e: Error) => e.message === `${file} ends early`,
    );
    early.close();

    for (const cut of [size - 1, size - 4 - 6, size - 10 - 2]) {
      handWritten(file, 2, [
        { term: "alpha", docs: [0, 1], tfs: [1, 2] },
        { term: "beta", docs: [1], tfs: [4] },
      ]);
      truncateSync(file, cut);
      const r = new PartialReader(file, 2);
      try {
        assert.equal(r.next(), true);
        assert.equal(r.term!.toString(), "alpha");
        assert.throws(
          () => r.next(),
          (e: Error) => e.message === `${file} ends inside a term`,
          `cut at ${cut}`,
        );
      } finally {
        r.close();
      }
    }
  });
});
