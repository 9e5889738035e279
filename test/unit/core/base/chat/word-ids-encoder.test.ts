import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Xoshiro128 } from "../../../../../src/core/base/stats/prng";
import { offlineTokenizer, qwen3TokenizerFolder } from "../../../../../src/core/base/chat/offline-tokenizer";
import { MAX_WORDS, wordIdsEncoder } from "../../../../../src/core/base/chat/word-ids-encoder";
import { requireSharedData } from "../../../../helpers/shared-data";

interface LibraryTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  _tokenizer: { pre_tokenizer: { tokenizers: { pre_tokenize_text(text: string): string[] }[] } };
  _tokenizerJSON: Record<string, unknown>;
}

/** A fresh transformers.js tokenizer of Qwen3's vocabulary: its own encode is the reference. */
async function libraryTokenizer(): Promise<LibraryTokenizer> {
  const { AutoTokenizer } = await import("@huggingface/transformers");
  return (await AutoTokenizer.from_pretrained(qwen3TokenizerFolder(), {
    local_files_only: true,
  })) as unknown as LibraryTokenizer;
}

/** More distinct words than transformers.js' LRU holds (10,000), each seen twice, spread apart. */
function manyWords(): string {
  const rng = new Xoshiro128(7);
  const letters = "abcdefghijklmnopqrstuvwxyzéü";
  const words = Array.from({ length: 12_000 }, () =>
    Array.from(
      { length: 4 + Math.floor(rng.nextFloat() * 8) },
      () => letters[Math.floor(rng.nextFloat() * letters.length)],
    ).join(""),
  );
  return [...words, ...words].map((w, i) => (i % 17 === 0 ? `${w},\n` : `${w} `)).join("");
}

/** Text each step of the library's encode treats specially: added tokens, normalizing, the split regex. */
const HOSTILE = [
  "",
  "<|im_start|>user\nWho?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n<search>x</search>",
  "<|im_end|><|im_end|>text<|endoftext|>", // added tokens back to back and inside words
  "<|im_end <|im_end| |im_end|> <tool_call></tool_call> <tool_response>", // almost added tokens
  "Cafe\u0301 vs Café, \u212Aelvin, \u2126hm, ﬁ ligature", // NFC composes, a singleton decomposes
  "I'M HE'S they'Re we'VE you'd 'll 's", // the regex's case-insensitive contractions
  "1844–1846 3.14159 1,000,000 ١٢٣ ½ ²", // digits one by one, other scripts' numerals
  "北京市 東京 서울 Москва العربية हिन्दी", // scripts without spaces, and right-to-left
  "🙂👩‍👩‍👧 🏳️‍🌈 \u{1F600}\u{1F600}", // emoji, joiners, astral code points
  "tab\there  \n\n\r\n   \t\n  end   ", // whitespace runs the regex splits in its own ways
  " ".repeat(600) + "x" + "a".repeat(700), // words longer than the memo keeps
  "aaaaaaa bbbbbb !!!!!!! ======== ---------- ababababab ....... ééééé 北北北北 0000", // equal-rank pairs side by side
  ["z".repeat(63), "z".repeat(64), "z".repeat(65), "é".repeat(32), "é".repeat(33)].join(" "), // around the 64 bytes merged here
  "\u0000\u0001\u007F \uFFFD \uD800 lone \uDC00 surrogates",
];

describe("chat: the word-ids encoder", () => {
  let library: LibraryTokenizer;
  before(async () => {
    library = await libraryTokenizer();
  });

  it("gives the ids of transformers.js' own encode on text that exercises each step", () => {
    const encode = wordIdsEncoder(library)!;
    assert.ok(encode, "the installed transformers.js tokenizer has the shape the encoder was written for");
    for (const text of [...HOSTILE, HOSTILE.join("\n"), manyWords()]) {
      const expected = library.encode(text, { add_special_tokens: false });
      assert.deepEqual(encode(text), expected, JSON.stringify(text.slice(0, 60)));
      assert.deepEqual(encode(text), expected, `again, from the memo: ${JSON.stringify(text.slice(0, 60))}`);
    }
  });

  it("gives the library's ids on every HotpotQA dev paragraph, as the harness's result turns hold them", function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    const encode = wordIdsEncoder(library)!;
    const rows = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { context: [string, string[]][] });
    const paragraphs = rows.flatMap((row) =>
      row.context.map(([title, sentences]) => `${title}\n${sentences.join("")}`),
    );
    for (let i = 0; i + 3 <= paragraphs.length; i += 3) {
      const turn = `<result>\n1. ${paragraphs[i]}\n\n2. ${paragraphs[i + 1]}\n\n3. ${paragraphs[i + 2]}\n</result><|im_end|>\n<|im_start|>assistant\n`;
      assert.deepEqual(encode(turn), library.encode(turn, { add_special_tokens: false }), `paragraphs ${i}–${i + 2}`);
    }
  });

  it("memoizes each word's ids: a word the library merges (over 64 bytes) reaches it once, one over 256 characters each time", () => {
    const byteLevel = library._tokenizer.pre_tokenizer.tokenizers[1];
    const seen: string[] = [];
    const original = byteLevel.pre_tokenize_text.bind(byteLevel);
    byteLevel.pre_tokenize_text = (text) => (seen.push(text), original(text));
    try {
      const encode = wordIdsEncoder(library)!;
      const long = "x".repeat(100);
      const tooLong = "y".repeat(300);
      encode(`the ${long} cat ${tooLong}`);
      encode(`${long} ${tooLong} the cat`);
      assert.deepEqual(seen, [` ${long}`, ` ${tooLong}`, long, ` ${tooLong}`]);
      encode(`the ${long} cat ${tooLong}`);
      assert.equal(seen.length, 5, "only the word too long to keep");
    } finally {
      byteLevel.pre_tokenize_text = original;
    }
    assert.ok(MAX_WORDS >= 100_000);
  });

  it("leaves a tokenizer of another shape to the library's encode", () => {
    assert.equal(wordIdsEncoder({}), undefined);
    // GPT-2's shape: ByteLevel with a regex of its own and no Split.
    const gpt2Like = {
      ...library._tokenizerJSON,
      pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, use_regex: true },
    };
    assert.equal(wordIdsEncoder({ _tokenizer: library._tokenizer, _tokenizerJSON: gpt2Like }), undefined);
    const withDropout = {
      ...library._tokenizerJSON,
      model: { ...(library._tokenizerJSON.model as object), dropout: 0.1 },
    };
    assert.equal(wordIdsEncoder({ _tokenizer: library._tokenizer, _tokenizerJSON: withDropout }), undefined);
  });

  it("is what the offline tokenizer encodes with: the library's encode is never called", async () => {
    const tok = await offlineTokenizer("qwen3");
    const internals = Object.getPrototypeOf(library._tokenizer) as { encode: (...args: unknown[]) => unknown };
    const original = internals.encode;
    let calls = 0;
    internals.encode = function (this: unknown, ...args: unknown[]) {
      calls++;
      return original.apply(this, args);
    };
    try {
      const text = HOSTILE.join(" ");
      assert.deepEqual(tok.encode(text), library.encode(text, { add_special_tokens: false }));
      assert.equal(calls, 1, "only the reference's own call");
    } finally {
      internals.encode = original;
    }
  });
});
