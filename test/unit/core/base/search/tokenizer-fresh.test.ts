/**
 * The tokenizer's word-character tables start empty in each module instance and fill as units are
 * first seen, so in a long-lived process (a mutation test runner's, which keeps its modules between
 * runs) the classification of a unit is decided once, by whichever test sees it first. These tests
 * load a fresh instance of tokenizer.ts each time, so the classification runs again on every unit of
 * the texts below: the same word ranges as the (?u)\w\w+ definition, and the same terms as bm25s.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as Tokenizer from "../../../../../src/core/base/search/tokenizer";

const load = createRequire(__filename);
const TOKENIZER = load.resolve("../../../../../src/core/base/search/tokenizer");
const FIXTURES = join(__dirname, "fixtures");

/** tokenizer.ts loaded again: empty unit-class table and astral map. */
function freshTokenizer(): typeof Tokenizer {
  delete load.cache[TOKENIZER];
  return load(TOKENIZER) as typeof Tokenizer;
}

/** Word ranges by bm25s's definition: maximal runs of letters, numbers and "_", at least 2 code points. */
const definition = (lower: string): [number, number][] =>
  [...lower.matchAll(/[\p{L}\p{N}_]+/gu)]
    .filter((m) => [...m[0]].length >= 2)
    .map((m) => [m.index, m.index + m[0].length]);

const spans = (tokenizer: typeof Tokenizer, lower: string): [number, number][] => {
  const out: [number, number][] = [];
  tokenizer.forEachWordSpan(lower, (start, end) => out.push([start, end]));
  return out;
};

const fixture = () =>
  JSON.parse(readFileSync(join(FIXTURES, "bm25s-tokens.json"), "utf8")) as { text: string; tokens: string[] }[];

/**
 * Units at the edges of the surrogate ranges, alone and in pairs, with letters and non-letters
 * around them: U+10000 (d800 dc00) and U+1D49C (𝒜) are letters, U+1D7FF (d835 dfff, 𝟿) a digit, U+1F600 (😀) and the private-use
 * U+10FFFF (dbff dfff) are not, a lone surrogate is no character of a word.
 */
const SURROGATES = [
  "ab\ud800\udc00 \ud800\udc00\ud800\udc01 x\ud800\udc00",
  "\ud835\udc9c\ud835\udcb7 \ud835\udc9c x\ud83d\ude00y \ud83d\ude00\ud83d\ude00",
  "ab\udbff\udfffcd \udbff\udfff\udbff\udfff ab\ud7ffcd ab\ue000cd",
  "ab\ud800cd ab\udbffcd ab\udc00cd ab\udfffcd \ud800\ud800ab \udc00\udc00ab",
  "ab\ud800", // a lone high surrogate at the very end
  "\ud835\udfff\ud835\udfff x\ud835\udfff \ud835\udfffa",
  "𠀀 𠀀𠀁 𠀀a a𠀀",
];

describe("search tokenizer: a fresh module instance classifies every unit again", () => {
  it("finds the (?u)\\w\\w+ word ranges on surrogates, astral letters and symbols, and the fixtures", () => {
    for (const text of SURROGATES) {
      const lower = text.toLowerCase();
      assert.deepEqual(spans(freshTokenizer(), lower), definition(lower), JSON.stringify(text));
    }
    const tokenizer = freshTokenizer();
    for (const { text } of fixture()) {
      const lower = text.toLowerCase();
      assert.deepEqual(spans(tokenizer, lower), definition(lower), text);
    }
  });

  it("gives bm25s's terms on its fixture texts, each from a fresh instance", () => {
    for (const { text, tokens } of fixture())
      assert.deepEqual(new (freshTokenizer().TermTokenizer)().terms(text), tokens, text);
  });

  it("classifies a sample of units across the BMP, alone between letters, like the definition", () => {
    const tokenizer = freshTokenizer();
    let text = "";
    for (let unit = 0x20; unit < 0x10000; unit += 97) text += `a${String.fromCharCode(unit)}b `;
    const lower = text.toLowerCase();
    assert.deepEqual(spans(tokenizer, lower), definition(lower));
  });
});
