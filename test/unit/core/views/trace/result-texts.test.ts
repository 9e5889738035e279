/**
 * An episode's result texts from its tokens' own texts (a tokenizer that decodes piecewise) are
 * exactly what decoding each result slice gives: on real HotpotQA episodes of the harness, on results
 * with accents, CJK and emoji, and where a character's bytes cross a slice's edge.
 */
import { strict as assert } from "node:assert";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { goldInResults, resultTexts } from "../../../../../src/core/views/trace/gold-in-results";
import { decodePerToken } from "../../../../../src/core/views/trace/token-text";
import { requireSharedData } from "../../../../helpers/shared-data";
import { readHotpot, realEpisode, twoSearchEpisodes, type HotpotRow } from "./real-episodes";

/** The same tokenizer without piecewiseSpecialIds: every slice decoded (the reference). */
const decodingOnly = (tok: ChatTokenizer) => ({ decode: tok.decode.bind(tok), tokenId: tok.tokenId.bind(tok) });

describe("trace: result texts from the tokens' own texts", function () {
  this.timeout(60_000);
  let tok: ChatTokenizer;
  before(async () => {
    tok = await offlineTokenizer("qwen3");
  });

  it("the offline Qwen3 tokenizer decodes piecewise, and names its special tokens", () => {
    const specials = tok.piecewiseSpecialIds?.();
    assert.ok(specials, "a byte-level decoder with no clean-up");
    assert.ok(specials.has(tok.tokenId("<|im_end|>")) && specials.has(tok.tokenId("<|im_start|>")));
    assert.ok(!specials.has(tok.encode("Paris")[0]));
  });

  it("equals decoding each result slice on real HotpotQA episodes (texts and gold-in-results)", async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).slice(0, 40);
    const episodes = await twoSearchEpisodes(tok, rows);
    let slices = 0;
    for (const e of episodes) {
      const reference = resultTexts(e, decodingOnly(tok));
      slices += reference.length;
      assert.deepEqual(resultTexts(e, tok), reference, e.id);
      assert.deepEqual(resultTexts(e, tok, decodePerToken(tok, e.tokens)), reference, e.id);
      assert.equal(goldInResults(e, tok), goldInResults(e, decodingOnly(tok)), e.id);
    }
    assert.ok(slices >= 80, `${slices} result slices compared`);
  });

  it("equals decoding on results with accents, CJK and emoji, and where a character crosses a slice's edge", async () => {
    const row: HotpotRow = {
      id: "unicode-1",
      question: "Which café in 東京 hosts the 🎉 festival?",
      answer: "Café Ōmori",
      context: [
        ["Café Ōmori", ["Café Ōmori (大森) is in 東京. ", "It hosts the 🎉 festival every 𠀀 year."]],
        ["Zoë Ångström", ["Zoë Ångström wrote «Ελληνικά» and 한국어 notes. 🧪🧬"]],
      ],
    };
    const e = await realEpisode(tok, row, ["<search>Café Ōmori</search>", "<answer>Café Ōmori</answer>"]);
    assert.deepEqual(resultTexts(e, tok), resultTexts(e, decodingOnly(tok)));
    assert.match(resultTexts(e, tok).join(""), /東京/);

    // A character whose bytes are several tokens, cut by a turn's edge on either side.
    const char = ["𠀀", "🧬", "𝔘", "ǅ"].find((c) => decodePerToken(tok, tok.encode(c)).includes(""));
    assert.ok(char, "some character spans several tokens");
    const ids = tok.encode(`<search>x</search><result>a${char}b</result>`);
    const texts = decodePerToken(tok, ids);
    const inside = texts.indexOf("", 1); // a continuation token of the character
    for (const [replyEnd, end] of [
      [inside, ids.length],
      [1, inside],
    ]) {
      const record = {
        tokens: ids,
        sampled: ids.map((_, i) => (i < replyEnd ? 1 : 0)),
        turns: [{ action: "search", start: 0, reply_end: replyEnd, end }],
      } as unknown as EpisodeRecord;
      assert.deepEqual(resultTexts(record, tok), resultTexts(record, decodingOnly(tok)), `slice [${replyEnd}, ${end})`);
    }
    // Results cut inside a character: the bytes F0 A0 (the start of U+20000) as two byte tokens
    // ("ð" and "ł" in the byte-level alphabet), which decoding together makes one U+FFFD, and each
    // token alone one apiece.
    const head = tok.encode("<search>x</search>");
    const stray = [tok.tokenId("ð"), tok.tokenId("ł")];
    const cut = [...head, ...tok.encode("<result>a"), ...stray, ...tok.encode("b</result>")];
    const record = {
      tokens: cut,
      sampled: cut.map((_, i) => (i < head.length ? 1 : 0)),
      turns: [{ action: "search", start: 0, reply_end: head.length, end: cut.length }],
    } as unknown as EpisodeRecord;
    assert.deepEqual(resultTexts(record, tok), resultTexts(record, decodingOnly(tok)), "stray bytes");
  });
});
