/**
 * A hash table from words to integers for the index builder's hot loop, where a corpus's tens of
 * millions of words are looked up in a table of about a million. A word is looked up by its range
 * in a text, so no substring is made for a word seen before, and each slot holds the word's hash,
 * where its characters are and its value side by side: a probe reads one slot and, when the hashes
 * agree, the characters. (A Map of strings costs a fresh string, its hash and several dependent
 * memory reads per lookup: most of the tokenizers' time before this table.)
 */

/** What `get` returns for a word that is not in the table. */
export const MISSING = -0x80000000;

/** Int32s per slot: hash, offset of the characters, their count (0 = empty slot), value. */
const SLOT = 4;

/**
 * The front table: direct-mapped by hash, each entry holding a short word's characters inline
 * (hash, length, value, then 2 UTF-16 units per int32). A corpus's frequent words are few and fill
 * it, and it is small enough to stay in the CPU caches, so most lookups read no slot of the main
 * table, whose reads miss the caches and the TLB.
 */
const FRONT = 8;
const FRONT_UNITS = 2 * (FRONT - 3);
const FRONT_BITS = 15;

export class WordTable {
  /** Open addressing, linear probing, at most half full. */
  private slots = new Int32Array(SLOT << 16);
  private mask = (1 << 16) - 1;
  private chars = new Uint16Array(1 << 19);
  private readonly front = new Int32Array(FRONT << FRONT_BITS);
  private charsUsed = 0;
  /** Where the last missed `get` ended and what it looked for, so `add` neither hashes nor probes again. */
  private lastSlot = -1;
  private lastHash = 0;
  private lastWord = "";
  private lastStart = 0;
  private lastEnd = 0;
  size = 0;
  /** Lookups answered by the front table (the speed it is for: tests and benchmarks read it). */
  frontHits = 0;

  /** The value of text[start, end) (a non-empty range), or MISSING (and `add` may then insert that word). */
  get(text: string, start: number, end: number): number {
    const h = wordHash(text, start, end);
    const length = end - start;
    const front = this.front;
    const f = FRONT * ((h >>> 8) & ((1 << FRONT_BITS) - 1));
    if (front[f] === h && front[f + 1] === length && sameInline(front, f + 3, text, start, end)) {
      this.frontHits++;
      return front[f + 2];
    }
    const slots = this.slots;
    const mask = this.mask;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const at = SLOT * s;
      const n = slots[at + 2];
      if (n === 0) {
        this.lastSlot = s;
        this.lastHash = h;
        this.lastWord = text;
        this.lastStart = start;
        this.lastEnd = end;
        return MISSING;
      }
      if (slots[at] === h && n === length && this.sameChars(slots[at + 1], text, start, end)) {
        if (length <= FRONT_UNITS) this.toFront(f, h, slots[at + 3], text, start, end);
        return slots[at + 3];
      }
    }
  }

  /** Inserts the word of the last `get` that returned MISSING, with this value. */
  add(value: number): void {
    if (this.lastSlot < 0) throw new Error("WordTable.add without a missed get");
    const length = this.lastEnd - this.lastStart;
    if (this.charsUsed + length > this.chars.length) {
      const chars = new Uint16Array(2 * Math.max(this.chars.length, this.charsUsed + length));
      chars.set(this.chars);
      this.chars = chars;
    }
    for (let i = 0; i < length; i++) this.chars[this.charsUsed + i] = this.lastWord.charCodeAt(this.lastStart + i);
    const at = SLOT * this.lastSlot;
    this.slots[at] = this.lastHash;
    this.slots[at + 1] = this.charsUsed;
    this.slots[at + 2] = length;
    this.slots[at + 3] = value;
    this.charsUsed += length;
    this.size++;
    this.lastSlot = -1;
    this.lastWord = "";
    if (2 * this.size > this.mask) this.rehash();
  }

  private toFront(f: number, h: number, value: number, text: string, start: number, end: number): void {
    const front = this.front;
    front[f] = h;
    front[f + 1] = end - start;
    front[f + 2] = value;
    for (let i = start, at = f + 3; i < end; i += 2, at++)
      front[at] = text.charCodeAt(i) | (i + 1 < end ? text.charCodeAt(i + 1) << 16 : 0);
  }

  private sameChars(from: number, text: string, start: number, end: number): boolean {
    const chars = this.chars;
    for (let i = start, j = from; i < end; i++, j++) if (chars[j] !== text.charCodeAt(i)) return false;
    return true;
  }

  private rehash(): void {
    const old = this.slots;
    const capacity = 2 * (this.mask + 1);
    const mask = capacity - 1;
    const slots = new Int32Array(SLOT * capacity);
    for (let from = 0; from < old.length; from += SLOT) {
      if (old[from + 2] === 0) continue;
      let s = old[from] & mask;
      while (slots[SLOT * s + 2] !== 0) s = (s + 1) & mask;
      for (let i = 0; i < SLOT; i++) slots[SLOT * s + i] = old[from + i];
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** FNV-1a over the UTF-16 units, then a final mix so the low bits (the slot) depend on every unit. */
export function wordHash(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}

/** Whether text[start, end) equals the units packed two per int32 from packed[at]. */
function sameInline(packed: Int32Array, at: number, text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 2, at++) {
    const pair = packed[at];
    if ((pair & 0xffff) !== text.charCodeAt(i)) return false;
    if (i + 1 < end && pair >>> 16 !== text.charCodeAt(i + 1)) return false;
  }
  return true;
}
