/**
 * Text → index terms, the way the recipe's `bm25s.tokenize(texts, stopwords="en", stemmer=english)`
 * does it, so an index built here ranks like the Python one:
 *   1. lower-case (Python str.lower and JS toLowerCase agree outside a few exotic code points);
 *   2. split with bm25s's default pattern `(?u)\b\w\w+\b`: maximal runs of word characters
 *      (Python's \w = Unicode letters, numbers and "_"; combining marks are *not* word characters),
 *      kept when at least 2 code points long;
 *   3. drop bm25s's English stopwords (checked before stemming, as bm25s does);
 *   4. Snowball English stem.
 */
import { stemEnglish } from "./english-stemmer";

/** bm25s's STOPWORDS_EN (the Lucene/NLTK-derived 33-word list). */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "but",
  "by",
  "for",
  "if",
  "in",
  "into",
  "is",
  "it",
  "no",
  "not",
  "of",
  "on",
  "or",
  "such",
  "that",
  "the",
  "their",
  "then",
  "there",
  "these",
  "they",
  "this",
  "to",
  "was",
  "will",
  "with",
]);

export const TOKENIZER_NAME = "bm25s-default: lower, (?u)\\b\\w\\w+\\b, stopwords en (33)";
export const STEMMER_NAME = "snowball-english (PyStemmer 3.1 / Snowball 3.1)";

/** One word character of bm25s's \w under (?u): a Unicode letter or number, or "_" (one code point). */
const WORD_CHAR = /^[\p{L}\p{N}_]$/u;

/**
 * Word-character class of every UTF-16 unit, filled on first sight (the regex is asked once per
 * distinct unit, not once per character): 0 unknown, 1 word character, 2 not one, 3 high surrogate
 * (a word character only together with the low surrogate after it, decided per code point).
 */
const unitClass = new Uint8Array(0x10000);
const astralIsWord = new Map<number, boolean>();

function classOf(unit: number): number {
  const c = unitClass[unit];
  if (c !== 0) return c;
  const k = unit >= 0xd800 && unit <= 0xdbff ? 3 : WORD_CHAR.test(String.fromCharCode(unit)) ? 1 : 2;
  unitClass[unit] = k;
  return k;
}

/** UTF-16 units of the word character at text[i]: 1 or 2 (an astral one), 0 when it is not a word character. */
function wordCharAt(text: string, i: number): number {
  const k = classOf(text.charCodeAt(i));
  if (k !== 3) return k === 1 ? 1 : 0;
  const low = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
  if (low < 0xdc00 || low > 0xdfff) return 0; // a lone surrogate is no letter
  const cp = ((text.charCodeAt(i) - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  let word = astralIsWord.get(cp);
  if (word === undefined) {
    word = WORD_CHAR.test(String.fromCodePoint(cp));
    astralIsWord.set(cp, word);
  }
  return word ? 2 : 0;
}

/** Lower-cased words of at least 2 code points, stopwords included (bm25s's split step). */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  forEachWord(text, (w) => out.push(w));
  return out;
}

/** Calls `visit` with each word splitWords would return, without building the array. */
export function forEachWord(text: string, visit: (word: string) => void): void {
  const lower = text.toLowerCase();
  forEachWordSpan(lower, (start, end) => visit(lower.slice(start, end)));
}

/**
 * The words of an already lower-cased text as [start, end) ranges of UTF-16 units: maximal runs of
 * word characters at least 2 code points long. The index builder looks words up by range, so the
 * hot loop creates no substring for a word it has seen before.
 */
export function forEachWordSpan(lower: string, visit: (start: number, end: number) => void): void {
  const n = lower.length;
  let i = 0;
  while (i < n) {
    let step = wordCharAt(lower, i);
    if (step === 0) {
      i++;
      continue;
    }
    const start = i;
    do i += step;
    while (i < n && (step = wordCharAt(lower, i)) !== 0);
    const units = i - start;
    // One astral code point is 2 UTF-16 units but only 1 character for Python.
    if (units >= 3 || (units === 2 && classOf(lower.charCodeAt(start)) !== 3)) visit(start, i);
  }
}

/**
 * A string that holds its own characters. A word of 13 or more characters sliced out of a text
 * (and a stem sliced out of that) is, in V8, a view that keeps the whole text alive: kept for the
 * build, every long new stem kept its paragraph (about 0.15 GiB of peak RSS on 507k paragraphs).
 * Joining with a character and slicing it off again makes a flat copy.
 */
export function ownCopy(s: string): string {
  return ` ${s}`.slice(1);
}

/**
 * Tokenizer with a word → stem cache: a corpus repeats the same few hundred thousand words
 * millions of times, and stemming is the costly step.
 */
export class TermTokenizer {
  private readonly cache = new Map<string, string>();

  /** Index terms of a text in order, duplicates kept (their count is the term frequency). */
  terms(text: string): string[] {
    return this.fromWords(splitWords(text));
  }

  /** The terms of already split words (see splitWords). */
  fromWords(words: readonly string[]): string[] {
    const out: string[] = [];
    for (const w of words) {
      if (ENGLISH_STOPWORDS.has(w)) continue;
      let s = this.cache.get(w);
      if (s === undefined) {
        s = stemEnglish(w);
        // Bounded so a long-running searcher's memory cannot grow without limit.
        if (this.cache.size < 2_000_000) this.cache.set(ownCopy(w), ownCopy(s));
      }
      out.push(s);
    }
    return out;
  }
}
