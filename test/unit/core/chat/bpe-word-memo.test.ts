import assert from "node:assert/strict";
import { MAX_WORDS, useWordMemo } from "../../../../src/core/chat/bpe-word-memo";
import { offlineTokenizer, qwen3TokenizerFolder } from "../../../../src/core/chat/offline-tokenizer";
import { Xoshiro128 } from "../../../../src/core/analysis/prng";

/** Text with more distinct words than transformers.js' LRU holds (10,000), each seen twice, spread apart. */
function manyWords(): string {
  const rng = new Xoshiro128(7);
  const letters = "abcdefghijklmnopqrstuvwxyzéü";
  const words = Array.from({ length: 12_000 }, () => Array.from({ length: 4 + Math.floor(rng.nextFloat() * 8) }, () => letters[Math.floor(rng.nextFloat() * letters.length)]).join(""));
  return [...words, ...words].map((w, i) => (i % 17 === 0 ? `${w},\n` : `${w} `)).join("") + "Arthur's 1844–1846 北京 🙂";
}

describe("chat: the BPE word memo", () => {
  it("gives the ids transformers.js' own tokenizer gives, on a text whose words overflow its LRU", async () => {
    const { AutoTokenizer } = await import("@huggingface/transformers");
    const reference = (await AutoTokenizer.from_pretrained(qwen3TokenizerFolder(), { local_files_only: true })) as unknown as { encode(t: string, o: { add_special_tokens: boolean }): number[] };
    const tok = await offlineTokenizer("qwen3");
    const text = manyWords();
    const ids = tok.encode(text);
    assert.deepEqual(ids, reference.encode(text, { add_special_tokens: false }));
    assert.deepEqual(tok.encode(text), ids, "and the same again from the memo");
  });

  it("is in place for the installed transformers.js (a version that moved its BPE cache fails here)", async () => {
    const { AutoTokenizer } = await import("@huggingface/transformers");
    const fresh = await AutoTokenizer.from_pretrained(qwen3TokenizerFolder(), { local_files_only: true });
    assert.equal(useWordMemo(fresh), true);
    assert.equal(useWordMemo({}), false, "a tokenizer of another shape is left alone");
    assert.ok(MAX_WORDS >= 100_000);
  });
});
