import { strict as assert } from "node:assert";
import { MISSING, WordTable, wordHash } from "../../../../../src/core/base/search/word-table";

/**
 * The word table's behaviours on inputs small enough to run in a few milliseconds (word-table.test.ts
 * holds the 60,000-word and birthday-search versions): growth of its slots and its character store,
 * lookups by a range inside a longer text, and words whose hashes collide.
 */

/** Words of 1–30 UTF-16 units, every one distinct (a number in base 36 with a varying tail), some non-ASCII. */
function distinctWords(count: number): string[] {
  const tails = ["-the-river-bank", "é", "ж東-mountain-side", "𝒜", "_long_tail_of_units_and_more", "x"];
  return Array.from({ length: count }, (_, i) => `${i.toString(36)}${tails[i % tails.length]}`);
}

/** 32-bit wordHash collisions of equal length (found once by a birthday search; word-table.test.ts searches them). */
const COLLIDING: [string, string][] = [
  ["__7pfs", "__ovja"],
  ["__7pfp", "__ovjb"],
  ["__________7vl8", "__________opd6"],
  ["__________7vl9", "__________opd7"],
];

describe("search build: word table (small)", () => {
  it("maps ranges of texts to values through the slots' growth (past 32,768 and 65,536 words) and the characters' (past 2^19 units)", () => {
    const table = new WordTable();
    const vocab = distinctWords(70_000);
    const units = vocab.reduce((a, w) => a + w.length, 0);
    assert.ok(units > 1 << 19, `${units} units`);
    vocab.forEach((w, i) => {
      const text = `<${w}>`;
      assert.equal(table.get(text, 1, 1 + w.length), MISSING, w);
      table.add(i - 3); // values may be negative
    });
    assert.equal(table.size, vocab.length);
    // Twice: from the main table, then (short words) from the front table.
    for (let pass = 0; pass < 2; pass++)
      for (let i = 0; i < vocab.length; i++) {
        const w = vocab[i];
        if (table.get(`..${w}`, 2, 2 + w.length) !== i - 3) assert.fail(`${w} (pass ${pass})`);
      }
    // A stored word's prefix, the word plus one unit, and the word with its last unit changed are other words.
    for (const w of vocab.slice(0, 3000)) {
      const longer = `${w}~`;
      const changed = w.slice(0, -1) + String.fromCharCode(w.charCodeAt(w.length - 1) ^ 0x100);
      for (const other of [longer, changed])
        if (table.get(other, 0, other.length) !== MISSING) assert.fail(`${JSON.stringify(other)} was found`);
    }
  });

  it("keeps apart words whose hashes collide (same slot, same front entry), short and long, from either table", () => {
    for (const [a, b] of COLLIDING) assert.equal(wordHash(a, 0, a.length), wordHash(b, 0, b.length), `${a} ${b}`);
    const table = new WordTable();
    COLLIDING.forEach(([a, b], i) => {
      assert.equal(table.get(a, 0, a.length), MISSING);
      table.add(10 * i);
      assert.equal(table.get(b, 0, b.length), MISSING, `${b} collides with ${a} but is another word`);
      table.add(10 * i + 1);
    });
    for (let pass = 0; pass < 3; pass++)
      COLLIDING.forEach(([a, b], i) => {
        assert.equal(table.get(` ${a}`, 1, 1 + a.length), 10 * i, a);
        assert.equal(table.get(b, 0, b.length), 10 * i + 1, b);
      });
  });

  it("a short word in the front table is not found for another word of its length or shape", () => {
    const table = new WordTable();
    for (const [i, w] of ["abcd", "abc", "abcdefghij", "x"].entries()) {
      assert.equal(table.get(w, 0, w.length), MISSING);
      table.add(i);
    }
    for (let pass = 0; pass < 2; pass++) {
      assert.equal(table.get("abcd", 0, 4), 0);
      assert.equal(table.get("abc", 0, 3), 1);
      assert.equal(table.get("abcdefghij", 0, 10), 2);
      assert.equal(table.get("x", 0, 1), 3);
      for (const other of ["abce", "abcD", "bbcd", "abcdefghiJ", "Abcdefghij", "ab", "y", "abcde"])
        assert.equal(table.get(other, 0, other.length), MISSING, other);
    }
  });

  it("adds a word whose search ends at slot 0", () => {
    const table = new WordTable();
    const w = "s1jad"; // wordHash(w) & 0xffff === 0: the first free slot of an empty table is slot 0
    assert.equal(wordHash(w, 0, w.length) & 0xffff, 0);
    assert.equal(table.get(w, 0, w.length), MISSING);
    table.add(5);
    assert.equal(table.get(w, 0, w.length), 5);
    assert.equal(table.get(`${w}x`, 0, w.length + 1), MISSING);
  });

  it("refuses add without a missed get before it, and after a hit", () => {
    const table = new WordTable();
    assert.throws(() => table.add(1), /without a missed get/);
    assert.equal(table.get("word", 0, 4), MISSING);
    table.add(1);
    assert.throws(() => table.add(2), /without a missed get/);
    assert.equal(table.get("word", 0, 4), 1);
    assert.throws(() => table.add(3), /without a missed get/);
    assert.equal(table.size, 1);
  });
});
