import { strict as assert } from "node:assert";
import { MISSING, WordTable, wordHash } from "../../../../../src/core/base/search/word-table";

/** Deterministic words of 1–24 UTF-16 units from a small alphabet (many share prefixes, lengths and front slots), some non-ASCII and astral. */
function words(count: number, seed: number): string[] {
  const alphabet = ["a", "b", "e", "s", "é", "ж", "東", "𝒜", "1", "_"];
  let x = seed;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8;
  const out = new Set<string>();
  while (out.size < count) {
    let w = "";
    const n = 1 + (next() % 12);
    for (let i = 0; i < n; i++) w += alphabet[next() % alphabet.length];
    out.add(w);
  }
  return [...out];
}

describe("search build: word table", () => {
  it("maps words looked up by their range in a text like a Map does, through growth and repeated lookups", () => {
    const table = new WordTable();
    const oracle = new Map<string, number>();
    const vocab = words(60_000, 7);
    // Each word is looked up inside a longer text, so a range, not a whole string, is the key.
    const texts = vocab.map((w, i) => ({ text: `${i} ${w}.`, start: `${i} `.length }));
    let x = 1;
    for (let round = 0; round < 4; round++) {
      for (let k = 0; k < vocab.length; k++) {
        x = (Math.imul(x, 48271) + 11) >>> 0;
        const i = round === 0 ? k : x % vocab.length; // first in order, then in random order (front table hits and evictions)
        const { text, start } = texts[i];
        const end = start + vocab[i].length;
        const got = table.get(text, start, end);
        const want = oracle.get(vocab[i]);
        if (want === undefined) {
          assert.equal(got, MISSING, vocab[i]);
          table.add(-i); // values may be negative (stopwords are -1)
          oracle.set(vocab[i], -i);
        } else assert.equal(got, want, vocab[i]);
      }
    }
    assert.equal(table.size, vocab.length);
    for (const w of words(2_000, 99)) if (!oracle.has(w)) assert.equal(table.get(w, 0, w.length), MISSING, w);
  });

  it("tells apart words that differ only in length or in one unit, and prefixes of a stored word", () => {
    const table = new WordTable();
    for (const [i, w] of ["abcdefghij", "abcdefghijk", "abcdefghiJ", "ab"].entries()) {
      assert.equal(table.get(w, 0, w.length), MISSING);
      table.add(i);
    }
    for (let pass = 0; pass < 2; pass++) {
      assert.equal(table.get("abcdefghij", 0, 10), 0);
      assert.equal(table.get("abcdefghijk", 0, 11), 1);
      assert.equal(table.get("abcdefghiJ", 0, 10), 2);
      assert.equal(table.get("xxabxx", 2, 4), 3);
      assert.equal(table.get("abcdefghij", 0, 9), MISSING);
      assert.equal(table.get("abc", 0, 3), MISSING);
    }
  });

  it("keeps apart words whose hashes are equal (same slot, same front entry), long and short", () => {
    // Birthday search for 32-bit collisions among generated words of equal length.
    const collisions = (length: number): [string, string][] => {
      const byHash = new Map<number, string>();
      const found: [string, string][] = [];
      for (let i = 0; found.length < 2; i++) {
        const w = i.toString(36).padStart(length, "_");
        const h = wordHash(w, 0, w.length);
        const other = byHash.get(h);
        if (other !== undefined) found.push([other, w]);
        else byHash.set(h, w);
      }
      return found;
    };
    for (const length of [6, 14]) {
      const table = new WordTable();
      const pairs = collisions(length);
      pairs.forEach(([a, b], i) => {
        assert.equal(table.get(a, 0, a.length), MISSING);
        table.add(2 * i);
        assert.equal(table.get(b, 0, b.length), MISSING, `${b} collides with ${a} but is another word`);
        table.add(2 * i + 1);
      });
      // Repeated, alternating lookups go through the front table for the short words.
      for (let pass = 0; pass < 3; pass++) {
        pairs.forEach(([a, b], i) => {
          assert.equal(table.get(a, 0, a.length), 2 * i);
          assert.equal(table.get(b, 0, b.length), 2 * i + 1);
        });
      }
    }
  });

  it("refuses add without a missed get before it", () => {
    const table = new WordTable();
    assert.throws(() => table.add(1), /without a missed get/);
    assert.equal(table.get("word", 0, 4), MISSING);
    table.add(1);
    assert.throws(() => table.add(2), /without a missed get/);
  });
});
