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

/**
 * Equal-hash pairs that differ in as little as a collision allows. FNV-1a's step is a bijection of its
 * state for a given unit, so words that differ in one unit never collide; these were found by trying
 * the first differing units until the state difference fitted in the second's 16 bits.
 *  - a word and itself plus one unit (its FNV state is a fixed point of that unit);
 *  - two words that differ only at units 0 and 4 (the low halves of the front table's packed pairs);
 *  - two words that differ only at units 1 and 5 (the high halves).
 */
const ONE_UNIT_LONGER: [string, string] = ["w11vi", "w11vi\uf022"];
const LOW_HALVES_DIFFER: [string, string] = ["cfnba", "rfnb\u1698"];
const HIGH_HALVES_DIFFER: [string, string] = ["abnula", "acnul\u94fc"];

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

  it("a word and the same word plus one unit, of equal hash, are two words in either table", () => {
    const [short, long] = ONE_UNIT_LONGER;
    assert.equal(wordHash(short, 0, short.length), wordHash(long, 0, long.length));
    const table = new WordTable();
    assert.equal(table.get(long, 0, long.length), MISSING);
    table.add(1);
    assert.equal(table.get(long, 0, long.length), 1); // now also in the front table
    // The front entry and the main table's first slot for this hash both hold the longer word, whose
    // first units are the shorter one.
    assert.equal(table.get(short, 0, short.length), MISSING, "a stored word's prefix of equal hash was found");
    table.add(2);
    // Alternating, so each is looked up while the front entry holds the other.
    for (let pass = 0; pass < 3; pass++) {
      assert.equal(table.get(short, 0, short.length), 2);
      assert.equal(table.get(long, 0, long.length), 1);
    }
  });

  it("words of equal hash and length that differ only in the low, or only in the high, halves of their packed pairs stay apart", () => {
    for (const [a, b] of [LOW_HALVES_DIFFER, HIGH_HALVES_DIFFER]) {
      assert.equal(a.length, b.length);
      assert.equal(wordHash(a, 0, a.length), wordHash(b, 0, b.length), `${a} ${b}`);
      const table = new WordTable();
      assert.equal(table.get(a, 0, a.length), MISSING);
      table.add(1);
      assert.equal(table.get(a, 0, a.length), 1); // now in the front table
      assert.equal(table.get(b, 0, b.length), MISSING, `${JSON.stringify(b)} was taken for ${a}`);
      table.add(2);
      for (let pass = 0; pass < 3; pass++) {
        assert.equal(table.get(b, 0, b.length), 2, JSON.stringify(b));
        assert.equal(table.get(a, 0, a.length), 1, a);
      }
    }
  });

  it("a long word looked up often does not change the value of a short word next to it in the front table", () => {
    // The front table holds words of up to 10 units inline, 8 int32s per entry: hash, length, value,
    // 5 pairs. A longer word written there would run into the next entry; this one's units 10–17
    // would make that entry read as "ox" (its hash, length 2) with the value 99.
    const short = "ox";
    const h = wordHash(short, 0, short.length);
    const long = `long9q----${String.fromCharCode(h & 0xffff, h >>> 16, short.length, 0, 99, 0)}${short}`;
    const entry = (w: string) => (wordHash(w, 0, w.length) >>> 8) & 0x7fff;
    assert.equal(entry(long) + 1, entry(short), "the long word's front entry is right before the short one's");
    const table = new WordTable();
    assert.equal(table.get(short, 0, short.length), MISSING);
    table.add(7);
    assert.equal(table.get(short, 0, short.length), 7); // now in the front table
    assert.equal(table.get(long, 0, long.length), MISSING);
    table.add(8);
    for (let pass = 0; pass < 3; pass++) {
      assert.equal(table.get(long, 0, long.length), 8);
      assert.equal(table.get(short, 0, short.length), 7);
    }
  });

  it("a word of up to 10 units found in the main table is answered from the front table next time; a longer one never is", () => {
    const table = new WordTable();
    // 1–12 units (the length independent of the tail distinctWords picks by i % 6), non-ASCII and surrogates included.
    const words = distinctWords(4000).map((w, i) => w.slice(0, 1 + (Math.floor(i / 6) % 12)));
    const unique = [...new Set(words)];
    for (let n = 1; n <= 12; n++)
      assert.ok(
        unique.some((w) => w.length === n),
        `a word of ${n} units`,
      );
    for (const [i, w] of unique.entries()) {
      const text = `<${w}>`; // a unit on either side: a compare that reads past the word sees it
      if (table.get(text, 1, 1 + w.length) !== MISSING) assert.fail(`${w} before it was added`);
      table.add(i);
    }
    for (const [i, w] of unique.entries()) {
      const text = `<${w}>`;
      const before = table.frontHits;
      assert.equal(table.get(text, 1, 1 + w.length), i); // from the main table: moves a short word to the front
      assert.equal(table.frontHits, before, w);
      assert.equal(table.get(text, 1, 1 + w.length), i);
      assert.equal(table.frontHits - before, w.length <= 10 ? 1 : 0, `${JSON.stringify(w)} (${w.length} units)`);
    }
  });

  it("a word longer than the whole character store is kept whole", () => {
    // 1.2 million units (a corpus may hold a long run of letters or digits): more than twice the
    // store's first 2^19 units, so the store must grow to the word, not just double.
    const giant = Array.from({ length: 1_200_000 }, (_, i) =>
      String.fromCharCode(0x61 + ((i * 7 + (i >> 10)) % 26)),
    ).join("");
    const table = new WordTable();
    assert.equal(table.get("ab", 0, 2), MISSING);
    table.add(1);
    assert.equal(table.get(giant, 0, giant.length), MISSING);
    table.add(2);
    assert.equal(table.get(giant, 0, giant.length), 2);
    assert.equal(table.get(`${giant.slice(0, -1)}z`, 0, giant.length), MISSING);
    assert.equal(table.get("ab", 0, 2), 1);
  });
});
