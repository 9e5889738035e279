/**
 * The index format's small contracts, each pinned by values worked out by hand: the scoring
 * formula's parts (bm25s's lucene variant, float32), the window and block-table sizes, the
 * vocabulary hash (FNV-1a's published values), and the file names and block sizes an index built
 * by an earlier build is read with.
 */
import { strict as assert } from "node:assert";
import {
  CRC_BLOCK_SHIFT,
  PAGE_SHIFTS,
  FILES,
  INDEX_FILES,
  blockTableBytes,
  blockTableName,
  crcHex,
  hasWindows,
  idfLucene,
  lengthNorm,
  metaText,
  termHash,
  termScore,
  vocabHashSlots,
  windowCount,
  windowedRows,
} from "../../../../../src/core/base/search/bm25-format";

describe("search: the index format", () => {
  it("scores with bm25s's lucene idf, length norm and term score, rounded to float32", () => {
    const f = Math.fround;
    // ln(1 + (N − df + 0.5) / (df + 0.5)): N = 3, df = 1 gives ln(1 + 2.5 / 1.5) = ln(8/3).
    assert.equal(idfLucene(1, 3), f(Math.log(8 / 3)));
    assert.equal(idfLucene(3, 3), f(Math.log(1 + 0.5 / 3.5)));
    assert.equal(idfLucene(0, 0), f(Math.log(2)));
    // k1 · (1 − b + b · |d| / avgdl): the average length gives k1; twice it k1 · (1 + b).
    assert.equal(lengthNorm(10, 10, 1.5, 0.75), 1.5);
    assert.equal(lengthNorm(20, 10, 1.5, 0.75), 2.625);
    assert.equal(lengthNorm(0, 10, 1.5, 0.75), 0.375);
    assert.equal(lengthNorm(5, 10, 2, 0.5), 1.5);
    // idf · tf / (tf + norm).
    assert.equal(termScore(2, 1, 1), 1);
    assert.equal(termScore(2, 3, 1), 1.5);
    assert.equal(termScore(1, 1, 2), f(1 / 3));
    assert.equal(termScore(0.1, 1, 0), f(0.1));
  });

  it("cuts documents into windows of 64 and gives window rows to lists of at least one posting per window", () => {
    assert.deepEqual([0, 1, 63, 64, 65, 128, 129].map(windowCount), [0, 1, 1, 1, 2, 2, 3]);
    assert.equal(hasWindows(3, 3), true);
    assert.equal(hasWindows(2, 3), false);
    // 130 documents: 3 windows. Lists of 3, 2, 0, 5 and 3 postings.
    const offsets = Uint32Array.from([0, 3, 5, 5, 10, 13]);
    assert.deepEqual([...windowedRows(offsets, 130)], [0, 3, 4]);
    assert.deepEqual([...windowedRows(offsets, 64)], [0, 1, 3, 4]);
    assert.deepEqual([...windowedRows(Uint32Array.from([0]), 10)], []);
  });

  it("sizes block tables and hash tables, and names block tables after their files", () => {
    assert.equal(CRC_BLOCK_SHIFT, 12);
    assert.deepEqual(
      [0, 1, 4096, 4097, 65_536, 3 * 65_536].map((n) => blockTableBytes(n)),
      [0, 4, 4, 8, 64, 192],
    );
    assert.equal(blockTableName("postingScores"), "postings-scores.f32.crc32");
    assert.deepEqual([0, 1, 2, 3, 4, 5, 8, 9].map(vocabHashSlots), [2, 2, 4, 8, 8, 16, 16, 32]);
  });

  it("hashes a term's bytes with 32-bit FNV-1a, from start to end only", () => {
    const bytes = new TextEncoder().encode("xfoobary");
    assert.equal(termHash(bytes, 0, 0), 0x811c9dc5);
    assert.equal(termHash(new TextEncoder().encode("a"), 0, 1), 0xe40c292c);
    assert.equal(termHash(bytes, 1, 7), 0xbf9cf968); // "foobar"
  });

  it("writes CRCs as 8 lowercase hex digits and meta.json as 2-space JSON ending in a newline", () => {
    assert.equal(crcHex(1), "00000001");
    assert.equal(crcHex(0xdeadbeef), "deadbeef");
    assert.equal(crcHex(-1), "ffffffff");
    const meta = { format: "agent-lab-bm25", version: 5 } as unknown as Parameters<typeof metaText>[0];
    assert.equal(metaText(meta), '{\n  "format": "agent-lab-bm25",\n  "version": 5\n}\n');
  });

  it("keeps the file names and block sizes earlier builds wrote (their indexes must still open)", () => {
    assert.deepEqual(FILES, {
      vocab: "vocab.bin",
      vocabOffsets: "vocab-offsets.u32",
      vocabHash: "vocab-hash.u32",
      postingOffsets: "postings-offsets.u32",
      postingDocs: "postings-docs.u32",
      postingScores: "postings-scores.f32",
      termMax: "term-max.f32",
      windowMax: "window-max.u8",
      windowStart: "window-start.u32",
      windowBits: "window-bits.u32",
      docIds: "doc-ids.f64",
      windowRows: "window-rows.u32",
      textOffsets: "text-offsets.f64",
      texts: "texts.bin",
    });
    assert.deepEqual(INDEX_FILES, Object.keys(FILES));
    // Pages hold whole CRC blocks, at most 32 of them (a page's checked blocks are one 32-bit number).
    for (const shift of Object.values(PAGE_SHIFTS)) assert.ok(shift >= CRC_BLOCK_SHIFT && shift <= CRC_BLOCK_SHIFT + 5);
    assert.deepEqual(PAGE_SHIFTS, {
      vocab: 14,
      vocabOffsets: 14,
      vocabHash: 14,
      postingOffsets: 14,
      postingDocs: 16,
      postingScores: 16,
      termMax: 14,
      windowMax: 16,
      windowStart: 16,
      windowBits: 16,
      windowRows: 14,
      docIds: 14,
      textOffsets: 14,
      texts: 12,
    });
  });
});
