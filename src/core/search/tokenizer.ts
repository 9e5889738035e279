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
  "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
  "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
  "will", "with",
]);

export const TOKENIZER_NAME = "bm25s-default: lower, (?u)\\b\\w\\w+\\b, stopwords en (33)";
export const STEMMER_NAME = "snowball-english (PyStemmer 3.1 / Snowball 3.1)";

const WORD_RUN = /[\p{L}\p{N}_]+/gu;

/** Lower-cased words of at least 2 code points, stopwords included (bm25s's split step). */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  forEachWord(text, (w) => out.push(w));
  return out;
}

/** Calls `visit` with each word splitWords would return, without building the array. */
export function forEachWord(text: string, visit: (word: string) => void): void {
  for (const m of text.toLowerCase().matchAll(WORD_RUN)) {
    const w = m[0];
    // One astral code point is 2 UTF-16 units but only 1 character for Python.
    if (w.length >= 3 || (w.length === 2 && !isSurrogatePair(w))) visit(w);
  }
}

function isSurrogatePair(w: string): boolean {
  const c = w.charCodeAt(0);
  return c >= 0xd800 && c <= 0xdbff;
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
        if (this.cache.size < 2_000_000) this.cache.set(w, s);
      }
      out.push(s);
    }
    return out;
  }
}
