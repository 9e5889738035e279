/**
 * The tokenizer's fixed parts, each whole (the parity tests in tokenizer.test.ts sample them through
 * real text): bm25s's 33 English stopwords, the stemmer's whole-word exceptions (Snowball 3.1's
 * exception1 list, values from PyStemmer), and the word-to-stem cache, which must give
 * the same terms the second time a word is seen as the first.
 */
import { strict as assert } from "node:assert";
import { stemEnglish } from "../../../../../src/core/base/search/english-stemmer";
import { ENGLISH_STOPWORDS, forEachWord, ownCopy, TermTokenizer } from "../../../../../src/core/base/search/tokenizer";

describe("search tokenizer: fixed rules", () => {
  it("drops exactly bm25s's 33 English stopwords", () => {
    assert.deepEqual([...ENGLISH_STOPWORDS].sort(), [
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
    const tok = new TermTokenizer();
    assert.deepEqual(tok.terms([...ENGLISH_STOPWORDS].join(" ")), []);
  });

  it("stems Snowball's whole-word exceptions to their fixed stems", () => {
    const exceptions: Record<string, string> = {
      skis: "ski",
      skies: "sky",
      idly: "idl",
      gently: "gentl",
      ugly: "ugli",
      early: "earli",
      only: "onli",
      singly: "singl",
      sky: "sky",
      news: "news",
      howe: "howe",
      atlas: "atlas",
      cosmos: "cosmos",
      bias: "bias",
      andes: "andes",
    };
    for (const [word, stem] of Object.entries(exceptions)) assert.equal(stemEnglish(word), stem, word);
  });

  it("keeps words under 3 characters whole, counting an astral character as one", () => {
    assert.equal(stemEnglish("is"), "is");
    assert.equal(stemEnglish("as"), "as");
    assert.equal(stemEnglish("𝒜s"), "𝒜s", "two characters, three UTF-16 units");
  });

  it("gives the same terms for a word the second time (from the cache) as the first", () => {
    const tok = new TermTokenizer();
    const text = "Running runners ran; RUNNING runs running generously";
    const first = tok.terms(text);
    assert.deepEqual(first, ["run", "runner", "ran", "run", "run", "run", "generous"]);
    assert.deepEqual(tok.terms(text), first);
    assert.deepEqual(tok.fromWords(["running", "the", "generously"]), ["run", "generous"]);
    // A high surrogate before a unit above the low-surrogate range is a lone one: no letter, and no pair.
    assert.deepEqual(tok.terms("\ud800\uff41\uff42 x"), ["ａｂ"]);
    const seen: string[] = [];
    forEachWord("Ab CD e", (w) => seen.push(w));
    assert.deepEqual(seen, ["ab", "cd"]);
    assert.equal(ownCopy("abcdefghijklmnop"), "abcdefghijklmnop");
  });
});
