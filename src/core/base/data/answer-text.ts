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

/** `[…]*` of the characters normalizeAnswer drops, for the pre-check below. */
const DROPPED = `[${[...PUNCTUATION].map((c) => ("\\]^-".includes(c) ? `\\${c}` : c)).join("")}]*`;
const firstTokenPatterns = new Map<string, RegExp>();

/**
 * A quick necessary condition for `needle` (normalised) to occur in `text` normalised: its first
 * token's characters, in order, with only dropped punctuation between them, in the lower-cased
 * text (normalising deletes punctuation and articles and collapses spaces; it never joins letters
 * otherwise). Normalising a paragraph costs ~40 µs; this check ~1 µs, and most paragraphs fail it.
 */
function mayContain(loweredText: string, needle: string): boolean {
  const first = needle.split(" ", 1)[0];
  let re = firstTokenPatterns.get(first);
  if (!re) {
    if (firstTokenPatterns.size > 4096) firstTokenPatterns.clear();
    re = new RegExp([...first].map((c) => c.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")).join(DROPPED), "u");
    firstTokenPatterns.set(first, re);
  }
  return re.test(loweredText);
}

/**
 * Whether `answer` occurs, as whole normalised words, in `text`: its normalised tokens in order and
 * contiguous inside the normalised text (an empty answer never does).
 */
export function containsAnswer(text: string, answer: string): boolean {
  return containsNormalised(text, normalizeAnswer(answer));
}

/** containsAnswer with the answer already normalised (a caller that checks many texts for one answer). */
export function containsNormalised(text: string, needle: string): boolean {
  if (!needle) return false;
  if (!mayContain(pyLower(text), needle)) return false;
  return ` ${normalizeAnswer(text)} `.includes(` ${needle} `);
}
