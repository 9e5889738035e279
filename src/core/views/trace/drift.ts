/**
 * The drift check: does the recorded token stream say what the chat template says it should?
 *
 * The episode's messages are read back out of its own tokens, rendered again with the tokenizer's
 * chat template, and compared with the record — first as text (a stitching bug: a missing newline,
 * a wrong role header, a lost think block), then token by token (the same text split into other
 * ids, which is what re-tokenizing a conversation does and why RL data must never be rebuilt that
 * way).
 *
 * Who wrote a differing token decides what it means. An *inserted* token (the prompt, the harness's
 * turns) that differs from the template is **template drift**: the model was trained in a context
 * other than the one it is served with — a real bug, shown in red with the diff. A *sampled* token
 * the template's tokenizer would split otherwise is a **non-canonical tokenization**: the sampler
 * may emit any split of a string, and that is harmless as long as training uses these very ids
 * (Agent Lab does), so it is counted and explained, never flagged. Special tokens the model itself
 * emitted (an untrained base writing `<|im_start|>`) are content of its reply, not turn structure:
 * they are masked while the messages are read back, so they are reported as emitted special tokens
 * and not as template drift.
 *
 * Qwen's template drops the empty `<think>\n\n</think>\n\n` block from earlier assistant turns while
 * the sampler saw it (see src/core/base/chat/turns.ts); the expected text puts it back, as the harness
 * tests do, so that known and intended difference is not reported.
 */
import type { ChatMessage, ChatTokenizer } from "../../base/chat/tokenizer";
import { EMPTY_THINK, END_OF_TURN } from "../../base/chat/turns";
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
  /**
   * Where the text first differs: an index into prompt+tokens, with both sides' text from there,
   * and who wrote that token (inserted: template drift; sampled: the template would render the
   * model's reply otherwise, e.g. strip its leading newline — not a stitching bug).
   */
  firstTextDifference?: { tokenIndex: number; expected: string; recorded: string; writer: "inserted" | "sampled" };
  /**
   * Recorded tokens the template's own tokenization would not produce at that place, as
   * [start, end) ranges over prompt+tokens (both kinds below together).
   */
  tokenDifferences: [number, number][];
  /** Tokens the ranges cover. */
  differingTokens: number;
  /** Inserted tokens that differ from the template: template drift (a bug). */
  templateDrift: [number, number][];
  templateDriftTokens: number;
  /** Sampled tokens split otherwise than the tokenizer would: informational. */
  nonCanonical: [number, number][];
  nonCanonicalTokens: number;
  /** Indices (prompt+tokens) of special tokens the model sampled inside its replies. */
  emittedSpecial: number[];
}

/** What a report means, in the words the trace viewer shows. */
export type DriftVerdict = "not-checked" | "template-drift" | "non-canonical" | "clean";

export function driftVerdict(r: DriftReport): DriftVerdict {
  if (!r.checked) return "not-checked";
  if (r.templateDriftTokens > 0 || (r.firstTextDifference && r.firstTextDifference.writer === "inserted"))
    return "template-drift";
  if (r.nonCanonicalTokens > 0 || r.firstTextDifference) return "non-canonical";
  return "clean";
}

/** The one-sentence explanation of a non-canonical tokenization, shown beside its count. */
export const NON_CANONICAL_EXPLAINED =
  "The model sampled a string as other token ids than the tokenizer would choose for it; that is normal and harmless, because training uses the sampled ids, not a re-tokenization.";

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

const SPECIAL = /^<\|[A-Za-z0-9_]+\|>$/;
const TURN_ENDS = new Set([END_OF_TURN, "<|endoftext|>"]);
const MASK_START = "\uE000";
const MASK_REST = "\uE001";

/**
 * Special tokens the model sampled inside a reply: an atomic `<|…|>` token that is not the end of
 * turn closing the reply (the stop token the sampler hands back, which is structure).
 */
function emittedSpecialTokens(
  tok: ChatTokenizer,
  ids: readonly number[],
  texts: readonly string[],
  sampled: readonly number[],
): number[] {
  const out: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (sampled[i] !== 1 || !SPECIAL.test(texts[i])) continue;
    const closesReply = TURN_ENDS.has(texts[i]) && sampled[i + 1] !== 1;
    if (closesReply) continue;
    try {
      if (tok.tokenId(texts[i]) === ids[i]) out.push(i);
    } catch {
      continue; // not a token of this vocabulary: plain text that looks like one
    }
  }
  return out;
}

/** Same-length placeholders for the emitted special tokens, so offsets stay valid while parsing. */
function mask(texts: readonly string[], at: readonly number[]): string[] {
  const out = texts.slice();
  for (const i of at) out[i] = MASK_START + MASK_REST.repeat(Math.max(0, texts[i].length - 1));
  return out;
}

/** The special tokens back in place of their placeholders, in order. */
function unmask(text: string, originals: readonly string[]): string {
  let k = 0;
  return text.replace(new RegExp(`${MASK_START}${MASK_REST}*`, "g"), () => originals[k++] ?? "");
}

/** Splits [start, end) ranges by who wrote each token. */
function splitByWriter(
  ranges: readonly [number, number][],
  sampled: readonly number[],
): { inserted: [number, number][]; sampled: [number, number][] } {
  const out = { inserted: [] as [number, number][], sampled: [] as [number, number][] };
  for (const [a, b] of ranges) {
    let start = a;
    for (let i = a + 1; i <= b; i++) {
      if (i === b || (sampled[i] === 1) !== (sampled[start] === 1)) {
        (sampled[start] === 1 ? out.sampled : out.inserted).push([start, i]);
        start = i;
      }
    }
  }
  return out;
}

const covered = (ranges: readonly [number, number][]) => ranges.reduce((s, [a, b]) => s + (b - a), 0);

/**
 * `sampledFlags`: the episode's per-token sampled flags (1 = the model wrote it); the prompt is
 * inserted. Without them every token counts as inserted.
 */
export function checkDrift(
  tok: ChatTokenizer,
  prompt: readonly number[],
  tokens: readonly number[],
  sampledFlags?: readonly number[],
): DriftReport {
  const ids = [...prompt, ...tokens];
  const sampled = [...prompt.map(() => 0), ...(sampledFlags ?? tokens.map(() => 0))];
  const base: DriftReport = {
    checked: false,
    messages: 0,
    textMatches: false,
    tokenDifferences: [],
    differingTokens: 0,
    templateDrift: [],
    templateDriftTokens: 0,
    nonCanonical: [],
    nonCanonicalTokens: 0,
    emittedSpecial: [],
  };
  if (ids.length === 0) return { ...base, problem: "the episode has no tokens" };
  let recordedTexts: string[];
  let expected: string;
  let chat: ParsedChat;
  let emitted: number[] = [];
  try {
    recordedTexts = decodePerToken(tok, ids);
    emitted = emittedSpecialTokens(tok, ids, recordedTexts, sampled);
    // Rendered with the placeholders still in, so an emitted "<|im_start|>assistant\n" is not taken
    // for a turn header (which would get a think block); the special tokens go back in afterwards.
    chat = messagesFromText(mask(recordedTexts, emitted).join(""));
    if (chat.messages.length === 0)
      return { ...base, problem: "no chat turns found in the tokens (not a chat-template episode)" };
    expected = unmask(
      expectedText(tok, chat),
      emitted.map((i) => recordedTexts[i]),
    );
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

  const report: DriftReport = {
    ...base,
    checked: true,
    messages: chat.messages.length,
    textMatches: compared === recorded,
    emittedSpecial: emitted,
  };
  let alignedUpTo = ids.length;
  if (!report.textMatches) {
    let at = 0;
    while (at < recorded.length && at < compared.length && recorded[at] === compared[at]) at++;
    const tokenIndex = tokenAt(starts, at);
    report.firstTextDifference = {
      tokenIndex,
      expected: compared.slice(at, at + 80),
      recorded: recorded.slice(at, at + 80),
      writer: sampled[tokenIndex] === 1 ? "sampled" : "inserted",
    };
    // Past the first text difference the two sides no longer line up token by token: what follows
    // would all "differ". Only the tokens before it are compared, and the token where it happens
    // is the drift when the harness wrote it.
    alignedUpTo = tokenIndex;
  }

  // Token level: a recorded token is "the same" when the template's tokenization has a token with
  // the same id covering the same characters.
  const expectedIds = tok.encode(compared);
  const expectedStarts = offsets(decodePerToken(tok, expectedIds));
  const same = new Set<string>();
  expectedIds.forEach((id, i) => same.add(`${expectedStarts[i]}:${expectedStarts[i + 1]}:${id}`));
  let open = -1;
  for (let i = 0; i < alignedUpTo; i++) {
    const ok = same.has(`${starts[i]}:${starts[i + 1]}:${ids[i]}`);
    if (!ok && open < 0) open = i;
    if (ok && open >= 0) {
      report.tokenDifferences.push([open, i]);
      open = -1;
    }
  }
  if (open >= 0) report.tokenDifferences.push([open, alignedUpTo]);
  if (report.firstTextDifference?.writer === "inserted") report.tokenDifferences.push([alignedUpTo, alignedUpTo + 1]);
  report.differingTokens = covered(report.tokenDifferences);
  const byWriter = splitByWriter(report.tokenDifferences, sampled);
  report.templateDrift = byWriter.inserted;
  report.templateDriftTokens = covered(byWriter.inserted);
  report.nonCanonical = byWriter.sampled;
  report.nonCanonicalTokens = covered(byWriter.sampled);
  return report;
}

/** Drift over a run's episodes: how many have each finding (the trace viewer's run header). */
export interface RunDriftCounts {
  checked: number;
  /** Episodes whose check could not run. */
  failed: number;
  templateDrift: number;
  nonCanonical: number;
  /** Sampled tokens split non-canonically, over all episodes. */
  nonCanonicalTokens: number;
  emittedSpecial: number;
}

export function emptyDriftCounts(): RunDriftCounts {
  return { checked: 0, failed: 0, templateDrift: 0, nonCanonical: 0, nonCanonicalTokens: 0, emittedSpecial: 0 };
}

export function countDrift(counts: RunDriftCounts, r: DriftReport): void {
  counts.checked++;
  const verdict = driftVerdict(r);
  if (verdict === "not-checked") counts.failed++;
  if (verdict === "template-drift") counts.templateDrift++;
  if (r.nonCanonicalTokens > 0) counts.nonCanonical++;
  counts.nonCanonicalTokens += r.nonCanonicalTokens;
  if (r.emittedSpecial.length > 0) counts.emittedSpecial++;
}
