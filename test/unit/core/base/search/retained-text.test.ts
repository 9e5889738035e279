import assert from "node:assert/strict";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { CorpusBatcher } from "../../../../../src/core/base/search/corpus-batch";
import { TermTokenizer } from "../../../../../src/core/base/search/tokenizer";

/** A full garbage collection (the flag can be set at run time; `gc` then exists in a new context). */
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
const heapAfterGc = () => {
  collect();
  return process.memoryUsage().heapUsed;
};

/**
 * Paragraph i of 200, 100,000 characters with a long word no other has, whose stem is a slice of
 * it ("…ing" cut off; no "y", for which the stemmer rebuilds the word). Made one at a time, so
 * what is still on the heap afterwards is what the tokenizer kept.
 */
const PARAGRAPHS = 200;
function bigParagraph(i: number): string {
  const letter = (n: number) => String.fromCharCode(97 + (n % 26));
  return `${"filler ".repeat(14_000)} distinctiveword${letter(i)}${letter(Math.floor(i / 26))}ing`;
}

describe("search: what the tokenizers keep does not keep its text alive", () => {
  it("the build's batcher keeps its new stems, not the 20 MB of paragraphs they were sliced from", () => {
    const batcher = new CorpusBatcher();
    const before = heapAfterGc();
    for (let i = 0; i < PARAGRAPHS; i++) {
      const line = JSON.stringify({ id: i, title: "Title", text: bigParagraph(i) });
      batcher.tokenize({ seq: i, firstLine: i + 1, bytes: new TextEncoder().encode(line) });
    }
    const kept = heapAfterGc() - before;
    assert.ok(
      kept < 5 * 2 ** 20,
      `the batcher kept ${(kept / 2 ** 20).toFixed(1)} MiB after 200 paragraphs of 100,000 characters`,
    );
  });

  it("the query tokenizer's word → stem cache keeps the words, not the queries", () => {
    const tokenizer = new TermTokenizer();
    const before = heapAfterGc();
    for (let i = 0; i < PARAGRAPHS; i++) tokenizer.terms(bigParagraph(i));
    const kept = heapAfterGc() - before;
    assert.ok(
      kept < 5 * 2 ** 20,
      `the cache kept ${(kept / 2 ** 20).toFixed(1)} MiB after 200 texts of 100,000 characters`,
    );
  });
});
