/**
 * Problem text as the duplicate and eval-overlap filters compare it: Unicode-folded (NFKC, so curly
 * quotes and full-width digits match their plain forms), lower case, every run of non-letters and
 * non-digits one space. "Janet’s ducks lay 16 eggs." and "janet s ducks lay 16 eggs" are the same.
 */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The word n-grams of normalised text, each joined by single spaces. */
export function wordNgrams(normalized: string, n: number): string[] {
  const words = normalized ? normalized.split(" ") : [];
  const grams: string[] = [];
  for (let i = 0; i + n <= words.length; i++) grams.push(words.slice(i, i + n).join(" "));
  return grams;
}
