import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { stemEnglish } from "../../../../../src/core/base/search/english-stemmer";
import {
  ENGLISH_STOPWORDS,
  forEachWordSpan,
  splitWords,
  TermTokenizer,
} from "../../../../../src/core/base/search/tokenizer";

// Fixtures come from the real libraries (bench/search/make-fixtures.py): PyStemmer 3.1 and bm25s 0.3.
const FIXTURES = join(__dirname, "fixtures");

describe("search tokenizer: parity with bm25s + PyStemmer", () => {
  it("stems like PyStemmer's english stemmer on ~9,000 real and rule-exercising words", () => {
    const lines = readFileSync(join(FIXTURES, "pystemmer-english.tsv"), "utf8").trim().split("\n");
    assert.ok(lines.length > 8000);
    const wrong = lines
      .map((l) => l.split("\t"))
      .filter(([word, stem]) => stemEnglish(word) !== stem)
      .map(([word, stem]) => `${word}: got ${stemEnglish(word)}, PyStemmer ${stem}`);
    assert.deepEqual(wrong.slice(0, 20), []);
  });

  it("applies the Snowball 3 rules older npm ports miss", () => {
    // Each of these differs in snowball-stemmers@0.6 (older Porter2); values from PyStemmer.
    assert.equal(stemEnglish("added"), "add");
    assert.equal(stemEnglish("biologist"), "biolog");
    assert.equal(stemEnglish("emergency"), "emergenc");
    assert.equal(stemEnglish("evening"), "evening");
    assert.equal(stemEnglish("international"), "internat");
    assert.equal(stemEnglish("dying"), "die");
    assert.equal(stemEnglish("boxed"), "box");
  });

  it("tokenizes tricky text exactly like bm25s.tokenize (case, unicode, combining marks, stopwords)", () => {
    const cases = JSON.parse(readFileSync(join(FIXTURES, "bm25s-tokens.json"), "utf8")) as {
      text: string;
      tokens: string[];
    }[];
    const tok = new TermTokenizer();
    for (const c of cases) assert.deepEqual(tok.terms(c.text), c.tokens, c.text);
  });

  it("uses bm25s's 33 English stopwords, removed before stemming", () => {
    assert.equal(ENGLISH_STOPWORDS.size, 33);
    for (const w of ["the", "such", "their", "will", "with", "into"]) assert.ok(ENGLISH_STOPWORDS.has(w), w);
    assert.ok(!ENGLISH_STOPWORDS.has("were"));
    // Stopwords match whole lower-cased words only: "thes" is kept (and stemmed), "these"/"The"/"THEIR" go.
    assert.deepEqual(new TermTokenizer().terms("these thes The THEIR"), ["thes"]);
  });

  it("splits like (?u)\\b\\w\\w+\\b: one-letter words and punctuation go, underscores and digits stay", () => {
    assert.deepEqual(splitWords("A b_c x 42 I-95 don't 😀"), ["b_c", "42", "95", "don"]);
    assert.deepEqual(splitWords("𠀀 𠀀𠀁"), ["𠀀𠀁"]); // one astral character is one character, not two
  });

  it("finds the same word ranges as the (?u)\\w\\w+ definition, on the fixtures and on surrogates, marks and digits", () => {
    const definition = (lower: string): [number, number][] =>
      [...lower.matchAll(/[\p{L}\p{N}_]+/gu)]
        .filter((m) => [...m[0]].length >= 2)
        .map((m) => [m.index, m.index + m[0].length]);
    const spans = (lower: string): [number, number][] => {
      const out: [number, number][] = [];
      forEachWordSpan(lower, (start, end) => out.push([start, end]));
      return out;
    };
    const cases = JSON.parse(readFileSync(join(FIXTURES, "bm25s-tokens.json"), "utf8")) as { text: string }[];
    const tricky = [
      "\ud835\udc9c\ud835\udcb7 \ud835\udc9c x\ud83d\ude00y \ud800ab \udc00cd e\u0301f \u0660\u0661 ٣x \u00b2\u00b3 a_ _ \u2160\u2161",
      "𠀀 𠀀𠀁 𠀀a a𠀀 ab\ud800", // an astral letter alone, two of them, mixed, and a lone surrogate at the end
    ];
    for (const text of [...cases.map((c) => c.text), ...tricky]) {
      const lower = text.toLowerCase();
      assert.deepEqual(spans(lower), definition(lower), text);
    }
  });
});
