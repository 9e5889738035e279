/**
 * The most important test of the chat layer: the tokens the harness stitches by hand (prompt from
 * the template, the model's reply tokens, end token, userTurn, …) must be exactly what the chat
 * template renders for the same conversation — modulo the one documented difference: the template
 * drops the empty `<think>\n\n</think>\n\n` block of earlier assistant turns, which the model did
 * see (it was in the generation prompt), so the stitched sequence keeps it.
 *
 * Compared twice: as text (decode(stitched) vs rendering), and as token ids (stitched vs the
 * rendering re-tokenized as one string), for (a) the Qwen3 tokenizer with its own template and
 * (b) the same tokenizer with the real Qwen3.5 template from ../shared/data/qwen3_5/ (and its
 * 0.8B variant).
 *
 * Text is compared after Unicode NFC: Qwen's tokenizer normalizes its input to NFC, so a decoded
 * sequence is always NFC (e.g. "e" + U+0301 comes back as "é") whatever the pieces were.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { chatPrompt, EMPTY_THINK, END_OF_TURN, replyTokens, userTurn } from "../../../../../src/core/base/chat/turns";
import { loadTokenizer } from "../../../../../src/core/base/chat/hf-tokenizer";
import { offlineTokenizer, qwen3TokenizerFolder } from "../../../../../src/core/base/chat/offline-tokenizer";
import type { ChatMessage, ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { loadSystemPrompt } from "../../../../../src/core/harness/prompts";
import { requireSharedData, sharedDataPath } from "../../../../helpers/shared-data";
import { loadPools, randomChat, rng, type RandomChat } from "./random-chats";

const CONVERSATIONS = 30;

/** What the sampler sees: the prompt, then per turn the model's tokens, its end token, the harness's user turn. */
function stitch(tok: ChatTokenizer, chat: RandomChat): number[] {
  const end = tok.tokenId(END_OF_TURN);
  const ids = chatPrompt(tok, chat.system, chat.question);
  chat.replies.forEach((reply, i) => ids.push(...tok.encode(reply), end, ...userTurn(tok, chat.contents[i])));
  return ids;
}

function messages(chat: RandomChat): ChatMessage[] {
  const msgs: ChatMessage[] = [
    { role: "system", content: chat.system },
    { role: "user", content: chat.question },
  ];
  chat.replies.forEach((reply, i) =>
    msgs.push({ role: "assistant", content: reply }, { role: "user", content: chat.contents[i] }),
  );
  return msgs;
}

/** The template's rendering with each earlier assistant turn's empty think block put back. */
function expectedText(tok: ChatTokenizer, chat: RandomChat): string {
  const rendered = tok.renderChat(messages(chat), { addGenerationPrompt: true });
  let out = "";
  let cursor = 0;
  for (const reply of chat.replies) {
    const header = `<|im_start|>assistant\n${reply}${END_OF_TURN}`;
    const at = rendered.indexOf(header, cursor);
    assert.ok(at >= 0, `assistant turn ${JSON.stringify(reply.slice(0, 60))} not found in the rendering`);
    const split = at + "<|im_start|>assistant\n".length;
    out += rendered.slice(cursor, split) + EMPTY_THINK;
    cursor = split;
  }
  return out + rendered.slice(cursor);
}

/** A readable account of where two id sequences part. */
function firstDifference(tok: ChatTokenizer, a: number[], b: number[]): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (xs: number[]) => JSON.stringify(tok.decode(xs.slice(Math.max(0, i - 3), i + 4)));
  return `ids part at ${i}: stitched ${JSON.stringify(a.slice(i, i + 4))} ${show(a)} vs re-tokenized ${JSON.stringify(b.slice(i, i + 4))} ${show(b)}`;
}

function equivalenceSuite(label: string, getTokenizer: (ctx: Mocha.Context) => Promise<ChatTokenizer>): void {
  describe(`template equivalence: ${label}`, function () {
    let tok: ChatTokenizer;
    let chats: RandomChat[];
    /** Per conversation: the stitched ids and the template's text (think blocks put back). */
    let cases: { chat: RandomChat; ours: number[]; expected: string }[];

    before(async function () {
      tok = await getTokenizer(this);
      const pools = loadPools(sharedDataPath("hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
      const next = rng(20260601);
      const system = loadSystemPrompt().text;
      chats = Array.from({ length: CONVERSATIONS }, () => randomChat(next, pools, system));
      cases = chats.map((chat) => ({ chat, ours: stitch(tok, chat), expected: expectedText(tok, chat) }));
    });

    it("the recipe's case: one search, then the next turn opens", () => {
      const chat: RandomChat = {
        system: loadSystemPrompt().text,
        question: "Q",
        replies: ["<search>x</search>"],
        contents: ["<result>R</result>"],
      };
      const expected = tok
        .renderChat(messages(chat), { addGenerationPrompt: true })
        .replace("<|im_start|>assistant\n<search>", `<|im_start|>assistant\n${EMPTY_THINK}<search>`);
      assert.equal(tok.decode(stitch(tok, chat)), expected.normalize("NFC"));
    });

    it(`stitched text equals the rendering on ${CONVERSATIONS} random conversations`, () => {
      let turns = 0;
      for (const { chat, ours, expected } of cases) {
        assert.equal(tok.decode(ours), expected.normalize("NFC"));
        turns += chat.replies.length;
      }
      assert.ok(turns >= CONVERSATIONS * 2, `only ${turns} turns generated`);
    });

    it("stitched ids equal the rendering re-tokenized as one string", () => {
      for (const { ours, expected } of cases) {
        const theirs = tok.encode(expected);
        if (ours.length !== theirs.length || ours.some((t, i) => t !== theirs[i]))
          assert.fail(firstDifference(tok, ours, theirs));
      }
    });

    it("the generation prompt ends in the empty think block and each turn stays a prefix of the next", () => {
      const chat = chats.find((c) => c.replies.length >= 3)!;
      const prompt = chatPrompt(tok, chat.system, chat.question);
      assert.ok(tok.decode(prompt).endsWith(`<|im_start|>assistant\n${EMPTY_THINK}`));
      // What the model is asked to continue at turn t+1 extends what it saw at turn t, token for token.
      for (let t = 1; t < chat.replies.length; t++) {
        const before = stitch(tok, { ...chat, replies: chat.replies.slice(0, t), contents: chat.contents.slice(0, t) });
        const after = stitch(tok, {
          ...chat,
          replies: chat.replies.slice(0, t + 1),
          contents: chat.contents.slice(0, t + 1),
        });
        assert.deepEqual(after.slice(0, before.length), before);
      }
    });

    it("BPE across the stitch: a reply opening with a newline re-tokenizes differently (documented)", () => {
      // The only boundary where pieces meet without a special token between them is "</think>\n\n"
      // followed by the model's first token. "\n\n" + "\n…" re-tokenizes as one "\n\n\n" token, so
      // ids rebuilt from rendered text would not be what the sampler emitted. The harness never
      // re-tokenizes: it keeps sampled ids, and text replies go through replyTokens (encoded alone).
      const chat: RandomChat = {
        system: "S",
        question: "Q",
        replies: ["\n<search>x</search>"],
        contents: ["<result>\nR\n</result>"],
      };
      const ours = [
        ...chatPrompt(tok, "S", "Q"),
        ...replyTokens(tok, chat.replies[0]),
        ...userTurn(tok, chat.contents[0]),
      ];
      assert.deepEqual(ours, stitch(tok, chat));
      const retokenized = tok.encode(tok.decode(ours));
      assert.equal(tok.decode(retokenized), tok.decode(ours), "same text");
      const at = chatPrompt(tok, "S", "Q").length;
      assert.deepEqual(ours.slice(at, at + 2), [tok.encode("\n")[0], tok.encode("<")[0]]);
      assert.deepEqual(retokenized.slice(0, at - 1), ours.slice(0, at - 1));
      assert.deepEqual(tok.decode(retokenized.slice(at - 1, at)), "\n\n\n", "merged across the boundary");
      // Leading spaces and trailing whitespace do not merge across it.
      for (const reply of [" <search>x</search>", "<search>x</search>\n", "x\n\n"]) {
        const ids = [...chatPrompt(tok, "S", "Q"), ...replyTokens(tok, reply), ...userTurn(tok, "R")];
        assert.deepEqual(tok.encode(tok.decode(ids)), ids, JSON.stringify(reply));
      }
    });

    it("re-rendering the chat instead would change tokens the model already produced (why we stitch)", () => {
      const chat = chats.find((c) => c.replies.length >= 2)!;
      const rerendered = tok.encode(tok.renderChat(messages(chat), { addGenerationPrompt: true }));
      const ours = stitch(tok, chat);
      assert.notDeepEqual(rerendered, ours);
      assert.ok(rerendered.length < ours.length, "the template dropped the earlier think blocks");
    });
  });
}

equivalenceSuite("Qwen3 tokenizer, Qwen3 template", () => offlineTokenizer("qwen3"));

describe("template equivalence: edge whitespace under Qwen3.5 (documented)", function () {
  it("Qwen3.5 trims message contents; the stitched turns keep what the model wrote", async function () {
    const file = requireSharedData(this, "qwen3_5", "qwen3_5_chat_template.jinja");
    const tok = await loadTokenizer(qwen3TokenizerFolder(), { chatTemplate: readFileSync(file, "utf8") });
    const chat: RandomChat = {
      system: "S",
      question: "Q",
      replies: ["<search>x</search>\n"],
      contents: ["<result>\nR\n</result>"],
    };
    // The re-rendered history would lose the model's trailing newline: one more reason to stitch.
    assert.match(tok.decode(stitch(tok, chat)), /<search>x<\/search>\n<\|im_end\|>/);
    assert.match(tok.renderChat(messages(chat), { addGenerationPrompt: true }), /<search>x<\/search><\|im_end\|>/);
    // Harness contents never have edge whitespace (result blocks open with <result> and close with
    // </result> or the last-search line), so userTurn never disagrees with Qwen3.5's trimming.
  });
});
equivalenceSuite("Qwen3 tokenizer, Qwen3.5 template", async (ctx) => {
  const file = requireSharedData(ctx, "qwen3_5", "qwen3_5_chat_template.jinja");
  return loadTokenizer(qwen3TokenizerFolder(), { chatTemplate: readFileSync(file, "utf8") });
});
// The 0.8B model (the config's free local model) ships a template whose thinking is off by default.
equivalenceSuite("Qwen3 tokenizer, Qwen3.5-0.8B template", async (ctx) => {
  const file = requireSharedData(ctx, "qwen3_5", "qwen3_5_0.8B_chat_template.jinja");
  return loadTokenizer(qwen3TokenizerFolder(), { chatTemplate: readFileSync(file, "utf8") });
});
