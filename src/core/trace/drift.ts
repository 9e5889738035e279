/**
 * The drift check: does the recorded token stream say what the chat template says it should?
 *
 * The episode's messages are read back out of its own tokens, rendered again with the tokenizer's
 * chat template, and compared with the record — first as text (a stitching bug: a missing newline,
 * a wrong role header, a lost think block), then token by token (the same text split into other
 * ids, which is what re-tokenizing a conversation does and why RL data must never be rebuilt that
 * way). Both kinds silently corrupt RL data, so the trace viewer marks where they occur.
 *
 * Qwen's template drops the empty `<think>\n\n</think>\n\n` block from earlier assistant turns while
 * the sampler saw it (see src/core/chat/turns.ts); the expected text puts it back, as the harness
 * tests do, so that known and intended difference is not reported.
 */
import type { ChatMessage, ChatTokenizer } from "../chat/tokenizer";
import { EMPTY_THINK, END_OF_TURN } from "../chat/turns";
import { decodePerToken } from "./token-text";

const START_OF_TURN = "<|im_start|>";
const ASSISTANT_HEADER = `${START_OF_TURN}assistant\n`;

export interface DriftReport {
  /** False when the check could not run (then `problem` says why). */
  checked: boolean;
  problem?: string;
  /** Messages read back from the tokens. */
  messages: number;
  /** True when the template renders exactly the recorded text. */
  textMatches: boolean;
  /** Where the text first differs: an index into prompt+tokens, with both sides' text from there. */
  firstTextDifference?: { tokenIndex: number; expected: string; recorded: string };
  /**
   * Recorded tokens the template's own tokenization would not produce at that place, as
   * [start, end) ranges over prompt+tokens.
   */
  tokenDifferences: [number, number][];
  /** Tokens the ranges cover. */
  differingTokens: number;
}

interface ParsedChat {
  messages: ChatMessage[];
  addGenerationPrompt: boolean;
}

/** Messages as the recorded text spells them; assistant content without the empty think block. */
export function messagesFromText(text: string): ParsedChat {
  const messages: ChatMessage[] = [];
  const turn = /<\|im_start\|>(system|user|assistant)\n([\s\S]*?)(<\|im_end\|>|(?=<\|im_start\|>)|$)/g;
  let addGenerationPrompt = false;
  for (let m = turn.exec(text); m; m = turn.exec(text)) {
    const role = m[1] as ChatMessage["role"];
    let content = m[2];
    const closed = m[3] === END_OF_TURN;
    if (role === "assistant" && content.startsWith(EMPTY_THINK)) content = content.slice(EMPTY_THINK.length);
    // An open assistant turn with nothing in it is the generation prompt the sampler was handed.
    if (role === "assistant" && !closed && content === "" && turn.lastIndex >= text.length) {
      addGenerationPrompt = true;
      break;
    }
    messages.push({ role, content });
    if (m[0].length === 0) turn.lastIndex++;
  }
  return { messages, addGenerationPrompt };
}

/** The template's text with the empty think block restored in every assistant turn (what was sampled). */
export function expectedText(tok: Pick<ChatTokenizer, "renderChat">, chat: ParsedChat): string {
  const rendered = tok.renderChat(chat.messages, { addGenerationPrompt: chat.addGenerationPrompt });
  return rendered
    .split(ASSISTANT_HEADER)
    .map((part, i) => (i === 0 || part.startsWith("<think>") ? part : EMPTY_THINK + part))
    .join(ASSISTANT_HEADER);
}

/** Character offset where each token starts, plus the total length at the end. */
function offsets(texts: readonly string[]): number[] {
  const out = new Array<number>(texts.length + 1);
  let at = 0;
  texts.forEach((t, i) => {
    out[i] = at;
    at += t.length;
  });
  out[texts.length] = at;
  return out;
}

function tokenAt(starts: readonly number[], char: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= char) lo = mid;
    else hi = mid - 1;
  }
  return Math.max(0, lo);
}

export function checkDrift(tok: ChatTokenizer, prompt: readonly number[], tokens: readonly number[]): DriftReport {
  const ids = [...prompt, ...tokens];
  const base: DriftReport = { checked: false, messages: 0, textMatches: false, tokenDifferences: [], differingTokens: 0 };
  if (ids.length === 0) return { ...base, problem: "the episode has no tokens" };
  let recordedTexts: string[];
  let expected: string;
  let chat: ParsedChat;
  try {
    recordedTexts = decodePerToken(tok, ids);
    chat = messagesFromText(recordedTexts.join(""));
    if (chat.messages.length === 0) return { ...base, problem: "no chat turns found in the tokens (not a chat-template episode)" };
    expected = expectedText(tok, chat);
  } catch (e) {
    return { ...base, problem: `the chat template could not render this episode: ${(e as Error).message}` };
  }
  const recorded = recordedTexts.join("");
  const starts = offsets(recordedTexts);

  // The recording may stop where the template goes on: after the final <|im_end|> (the template adds
  // "\n"), or in the middle of a reply cut off by the token limit (the template closes it).
  let compared = expected;
  const tail = expected.slice(recorded.length);
  if (expected.startsWith(recorded) && /^(<\|im_end\|>)?\s*$/.test(tail)) compared = recorded;

  const report: DriftReport = { ...base, checked: true, messages: chat.messages.length, textMatches: compared === recorded };
  if (!report.textMatches) {
    let at = 0;
    while (at < recorded.length && at < compared.length && recorded[at] === compared[at]) at++;
    report.firstTextDifference = {
      tokenIndex: tokenAt(starts, at),
      expected: compared.slice(at, at + 80),
      recorded: recorded.slice(at, at + 80),
    };
  }

  // Token level: a recorded token is "the same" when the template's tokenization has a token with
  // the same id covering the same characters.
  const expectedIds = tok.encode(compared);
  const expectedStarts = offsets(decodePerToken(tok, expectedIds));
  const same = new Set<string>();
  expectedIds.forEach((id, i) => same.add(`${expectedStarts[i]}:${expectedStarts[i + 1]}:${id}`));
  let open = -1;
  ids.forEach((id, i) => {
    const ok = same.has(`${starts[i]}:${starts[i + 1]}:${id}`);
    if (!ok && open < 0) open = i;
    if (ok && open >= 0) {
      report.tokenDifferences.push([open, i]);
      open = -1;
    }
  });
  if (open >= 0) report.tokenDifferences.push([open, ids.length]);
  report.differingTokens = report.tokenDifferences.reduce((s, [a, b]) => s + (b - a), 0);
  return report;
}
