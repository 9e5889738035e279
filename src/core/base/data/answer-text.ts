/**
 * The official SQuAD answer normalisation (the recipe's score.py): lower-case, drop ASCII
 * punctuation, drop the articles a/an/the as whole words, collapse whitespace, each step as Python
 * does it. A scorer compares answers through it; the SFT held-out check compares questions through it
 * (case, punctuation, articles and spacing do not make a question new), for every environment.
 */
import { PY_WORD_CLASS, pyLower, pySplit } from "./python-text";

/** Python's `string.punctuation`. */
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** `\b(a|an|the)\b` with Python's Unicode-aware `\b`, spelled as lookarounds. */
const ARTICLES = new RegExp(`(?<!${PY_WORD_CLASS})(?:a|an|the)(?!${PY_WORD_CLASS})`, "gu");

export function normalizeAnswer(s: string): string {
  let text = pyLower(s);
  let kept = "";
  for (const ch of text) if (!PUNCTUATION.has(ch)) kept += ch;
  text = kept.replace(ARTICLES, " ");
  return pySplit(text).join(" ");
}

/**
 * Whether `answer` occurs, as whole normalised words, in `text`: its normalised tokens in order and
 * contiguous inside the normalised text (an empty answer never does).
 */
export function containsAnswer(text: string, answer: string): boolean {
  const needle = normalizeAnswer(answer);
  if (!needle) return false;
  return ` ${normalizeAnswer(text)} `.includes(` ${needle} `);
}
