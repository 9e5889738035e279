/**
 * The order of an index's vocabulary: UTF-8 byte order of the terms (the searcher binary-searches
 * vocab.bin by bytes). Each chunk of a build sorts its own terms (partial-index.ts); the merge
 * then joins the chunks' lists by comparing bytes.
 */

/** Whether a term has a surrogate: only then does UTF-16 order (JS's) differ from UTF-8 byte order. */
export function hasSurrogates(term: string): boolean {
  return /[\uD800-\uDFFF]/.test(term);
}

/** Code-point order, which is UTF-8 byte order. */
export function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Terms sorted in byte order, and whether any had a surrogate (then byte order needed byCodePoint). */
export function sortTerms(terms: readonly string[]): { sorted: string[]; surrogates: boolean } {
  // Sorting the strings natively (UTF-16 order) and mapping back is much faster than sorting ids with a comparator.
  const sorted = [...terms].sort();
  const surrogates = sorted.some(hasSurrogates);
  if (surrogates) sorted.sort(byCodePoint);
  return { sorted, surrogates };
}
