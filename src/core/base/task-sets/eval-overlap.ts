/**
 * Whether a generated problem is one of the eval items in disguise: the same normalised text, or a
 * long run of the same words (a shared 13-gram, the contamination test of the GPT-3 and later
 * reports: long enough that ordinary phrasing does not collide, short enough to catch a copy with
 * the numbers or the names changed at one end).
 */
import { normalizeText, wordNgrams } from "./text";
import type { EvalItem } from "./candidates";

export const OVERLAP_NGRAM = 13;

export interface Overlap {
  kind: "exact" | "ngram";
  /** Line of the eval item in its file. */
  evalLine: number;
}

export class EvalOverlapIndex {
  private readonly exact = new Map<string, number>();
  private readonly grams = new Map<string, number>();

  constructor(
    items: EvalItem[],
    readonly n = OVERLAP_NGRAM,
  ) {
    for (const item of items) {
      const text = normalizeText(item.question);
      if (!this.exact.has(text)) this.exact.set(text, item.line);
      for (const g of wordNgrams(text, n)) if (!this.grams.has(g)) this.grams.set(g, item.line);
    }
  }

  get size(): number {
    return this.exact.size;
  }

  find(problem: string): Overlap | undefined {
    const text = normalizeText(problem);
    const line = this.exact.get(text);
    if (line !== undefined) return { kind: "exact", evalLine: line };
    for (const g of wordNgrams(text, this.n)) {
      const hit = this.grams.get(g);
      if (hit !== undefined) return { kind: "ngram", evalLine: hit };
    }
    return undefined;
  }
}
