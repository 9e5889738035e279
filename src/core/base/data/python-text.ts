/**
 * The few pieces of Python's `str` semantics that the recipe's scripts depend on, so the TypeScript
 * port produces the same bytes and the same scores. JavaScript differs from Python here:
 * - whitespace: Python's `str.split()`/`str.strip()` treat \x1c–\x1f and \x85 as whitespace and
 *   U+FEFF as not; JavaScript's `\s` and `trim()` do the opposite.
 * - word characters for `re`'s `\b`: Python uses Unicode alphanumerics (`str.isalnum()`) plus `_`;
 *   JavaScript's `\b` is ASCII-only even with the `u` flag.
 * Checked against python3 3.11 (Unicode 14) over every code point: the only differences are code
 * points unassigned in Unicode 14 (JavaScript's tables are newer), which Python itself treats
 * differently from version to version.
 */

/** Python's `str.isspace()` set (bidi class WS/B/S or category Zs). */
export const PY_WHITESPACE_CHARS =
  "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

const WHITESPACE_RUN = new RegExp(`[${PY_WHITESPACE_CHARS}]+`, "u");
const WHITESPACE_SET = new Set(PY_WHITESPACE_CHARS);

/** A character class (for a `u` regex) of Python's `re` word characters: isalnum() or `_`. */
export const PY_WORD_CLASS = "[\\p{L}\\p{N}_]";

/** Python's `s.split()` with no arguments: split on whitespace runs, no empty strings. */
export function pySplit(s: string): string[] {
  return s.split(WHITESPACE_RUN).filter((part) => part !== "");
}

/** Python's `s.strip()` with no arguments. A loop, not a regex: paragraphs can be long. */
export function pyStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && WHITESPACE_SET.has(s[start])) start++;
  while (end > start && WHITESPACE_SET.has(s[end - 1])) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/**
 * Python's `str.lower()`. JavaScript's locale-independent `toLowerCase()` applies the same full
 * Unicode mappings (İ → i̇, final sigma in context), so it is used as is; the parity test checks it.
 */
export function pyLower(s: string): string {
  return s.toLowerCase();
}
