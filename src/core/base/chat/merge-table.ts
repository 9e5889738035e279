/**
 * The merges of a BPE vocabulary as an open-addressing hash table over typed arrays: (left id,
 * right id) → (rank, merged id). A Map keyed by a number packing both ids needs keys above 2^31,
 * which V8 boxes: filling one with Qwen's 151,387 merges took 220–340 ms and every lookup hashed a
 * heap number; here both are plain integer work.
 */
export class MergeTable {
  private readonly mask: number;
  private readonly lefts: Int32Array;
  private readonly rights: Int32Array;
  private readonly ranks: Int32Array;
  private readonly merged: Int32Array;

  constructor(expected: number) {
    let capacity = 1024;
    while (capacity < expected * 2) capacity *= 2; // at most half full: short probe runs
    this.mask = capacity - 1;
    this.lefts = new Int32Array(capacity).fill(-1);
    this.rights = new Int32Array(capacity);
    this.ranks = new Int32Array(capacity);
    this.merged = new Int32Array(capacity);
  }

  private slot(left: number, right: number): number {
    return ((Math.imul(left, 0x9e3779b1) ^ Math.imul(right, 0x85ebca6b)) >>> 0) & this.mask;
  }

  /** Adds a merge; a pair added again takes the later rank, as transformers.js' rank map does. */
  add(left: number, right: number, rank: number, merged: number): void {
    let i = this.slot(left, right);
    while (this.lefts[i] !== -1 && !(this.lefts[i] === left && this.rights[i] === right)) i = (i + 1) & this.mask;
    this.lefts[i] = left;
    this.rights[i] = right;
    this.ranks[i] = rank;
    this.merged[i] = merged;
  }

  /** The slot holding the pair's merge, or -1; read it with rankAt and mergedAt. */
  find(left: number, right: number): number {
    for (let i = this.slot(left, right); this.lefts[i] !== -1; i = (i + 1) & this.mask) {
      if (this.lefts[i] === left && this.rights[i] === right) return i;
    }
    return -1;
  }

  rankAt(slot: number): number {
    return this.ranks[slot];
  }

  mergedAt(slot: number): number {
    return this.merged[slot];
  }
}
