/**
 * The order of an index's vocabulary: UTF-8 byte order of the terms (the searcher binary-searches
 * vocab.bin by bytes). Each build worker sorts the terms it has seen, in parallel, and the builder
 * merges those sorted lists, which costs a comparison per term instead of a sort of them all.
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

/**
 * One byte-ordered list of term ids from several, each in byte order of terms[id] and together
 * covering the vocabulary (a term may be in several lists; it is taken once).
 */
export function mergeTermOrders(
  lists: readonly Uint32Array[],
  terms: readonly string[],
  surrogates: boolean,
): Uint32Array {
  let merged: Uint32Array = lists[0] ?? new Uint32Array(0);
  for (let k = 1; k < lists.length; k++) merged = mergeTwo(merged, lists[k], terms, surrogates);
  if (merged.length !== terms.length) throw new Error(`term lists cover ${merged.length} of ${terms.length} terms`);
  return merged;
}

function mergeTwo(a: Uint32Array, b: Uint32Array, terms: readonly string[], surrogates: boolean): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i];
    const y = b[j];
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
      continue;
    }
    const before = surrogates ? byCodePoint(terms[x], terms[y]) < 0 : terms[x] < terms[y];
    if (before) {
      out[n++] = x;
      i++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++];
  while (j < b.length) out[n++] = b[j++];
  return out.slice(0, n);
}
