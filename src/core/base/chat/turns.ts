/**
 * The token ids a multi-turn episode is made of, built the way the sampler sees them.
 *
 * The first prompt comes from the chat template. Every later turn is stitched by hand: the model's
 * own tokens stay exactly as sampled, and `userTurn` appends the tokens that close its turn and
 * open the next. Re-rendering the whole chat instead would be wrong: Qwen's template drops the
 * empty `<think>\n\n</think>\n\n` block from earlier assistant turns, so the tokens the model was
 * conditioned on (and that RL assigns logprobs to) would silently change.
 */
import { UserError } from "../errors";
import type { ChatTokenizer } from "./tokenizer";

/** What a Qwen generation prompt ends with when thinking is disabled. */
export const EMPTY_THINK = "<think>\n\n</think>\n\n";
export const END_OF_TURN = "<|im_end|>";

/** Token ids of system + user question, followed by the generation prompt (thinking disabled). */
export function chatPrompt(tok: ChatTokenizer, system: string, question: string): number[] {
  const text = tok.renderChat(
    [
      { role: "system", content: system },
      { role: "user", content: question },
    ],
    { addGenerationPrompt: true },
  );
  // Every episode starts with the same system block: encode it once per tokenizer and prompt. The
  // split is exact because the tokenizer encodes the text between special tokens independently, and
  // the block ends with the special token <|im_end|> (the template-equivalence test checks the ids).
  const cut = text.indexOf(END_OF_TURN) + END_OF_TURN.length;
  if (cut < END_OF_TURN.length || !text.slice(0, cut).includes(system)) return tok.encode(text);
  const head = text.slice(0, cut);
  let byHead = systemBlockCache.get(tok);
  if (!byHead) systemBlockCache.set(tok, (byHead = new Map()));
  let headIds = byHead.get(head);
  if (!headIds) {
    headIds = tok.encode(head);
    if (byHead.size > 16) byHead.clear(); // a few prompts at a time, not one per edit forever
    byHead.set(head, headIds);
  }
  return [...headIds, ...tok.encode(text.slice(cut))];
}

const systemBlockCache = new WeakMap<ChatTokenizer, Map<string, number[]>>();

/**
 * Tokens of a reply given as text (a scripted or teacher reply), as a sampler would have emitted
 * them: the reply encoded on its own, then the end-of-turn token. Never re-tokenize a whole rendered
 * conversation instead: a reply that starts with "\n" merges with the "\n\n" closing the think
 * block ("\n\n" + "\n" becomes one "\n\n\n" token), so the ids would differ from the sampler's.
 */
export function replyTokens(tok: ChatTokenizer, text: string): number[] {
  return [...tok.encode(text), tok.tokenId(END_OF_TURN)];
}

/** The text `userTurn` encodes: after the model's `<|im_end|>`, a user message, then a fresh assistant turn. */
export function userTurnText(content: string): string {
  return `\n<|im_start|>user\n${content}${END_OF_TURN}\n<|im_start|>assistant\n${EMPTY_THINK}`;
}

/**
 * Tokens that follow the model's end-of-turn token: a user message with `content` and the opening
 * of the next assistant turn, with the same empty think block the first prompt had. Encoded as one
 * piece, exactly as the sampler will see it after the model's tokens.
 */
export function userTurn(tok: ChatTokenizer, content: string): number[] {
  return tok.encode(userTurnText(content));
}

const verified = new WeakSet<ChatTokenizer>();

/**
 * Refuses a tokenizer whose chat template is not Qwen's non-thinking format, for which `userTurn`
 * would stitch the wrong text (the recipe's "switched to a model whose template differs" failure).
 * Checked once per tokenizer object: a two-turn chat, stitched vs rendered by the template.
 */
export function assertQwenStitching(tok: ChatTokenizer): void {
  if (verified.has(tok)) return;
  const system = "S";
  const reply = "<search>q</search>";
  const content = "<result>\nR\n</result>";
  const stitched = tok.decode([
    ...chatPrompt(tok, system, "Q"),
    ...tok.encode(reply + END_OF_TURN),
    ...userTurn(tok, content),
  ]);
  const rendered = tok.renderChat(
    [
      { role: "system", content: system },
      { role: "user", content: "Q" },
      { role: "assistant", content: reply },
      { role: "user", content },
    ],
    { addGenerationPrompt: true },
  );
  // The template drops the earlier turn's empty think block; we keep it (what the model saw).
  const expected = rendered.replace(`<|im_start|>assistant\n${reply}`, `<|im_start|>assistant\n${EMPTY_THINK}${reply}`);
  if (stitched !== expected) {
    throw new UserError(
      `the chat template of ${tok.name} is not Qwen's non-thinking format, so the harness cannot stitch turns for it; ` +
        `userTurn (src/core/base/chat/turns.ts) must be rewritten for this template.\n` +
        `stitched: ${JSON.stringify(stitched)}\ntemplate: ${JSON.stringify(expected)}`,
    );
  }
  verified.add(tok);
}
