/**
 * The drift check: does the recorded token stream say what the chat template says it should?
 *
 * The episode's messages are read back out of its own tokens, rendered again with the tokenizer's
 * own chat template (transformers.js' apply_chat_template, i.e. @huggingface/jinja running the
 * template text: its rules are never restated here), and compared with the record — first as text
 * (a stitching bug: a missing newline, a wrong role header, a think block where the template has
 * none), then token by token (the same text split into other ids, which is what re-tokenizing a
 * conversation does and why RL data must never be rebuilt that way).
 *
 * What the template is asked depends on who wrote a turn. Before each reply the model *sampled*,
 * the expected text is the template's generation prompt for the conversation up to that point,
 * rendered with the run's thinking setting (the manifest's `thinking`, see
 * base/runs/manifest-thinking.ts): what the sampler was handed. The reply itself is the model's
 * (taken as recorded: the template is not asked to re-render the model's words into the text the
 * rest is compared against), and what follows it up to the next generation prompt — its end of
 * turn, a search result, the next user turn — is what the template renders after it. Turns the
 * harness *inserted*, such as a few-shot answer before the question, are rendered by the template
 * as it renders any earlier assistant turn: Qwen's templates give the empty
 * `<think>\n\n</think>\n\n` only to turns after the last user query (their `last_query_index`
 * rule), so a few-shot answer gets none, while every sampled turn keeps the one its generation
 * prompt had (see src/core/base/chat/turns.ts).
 *
 * What it cannot see: the content of an inserted turn is read back from the record, so a wrong word
 * in a search result reads back as that word; the check holds the text the template writes around
 * and between contents (headers, ends of turn, think blocks, newlines), what the template does to
 * content (Qwen3.5 trims it), and the token ids everything is split into.
 *
 * Who wrote a differing token decides what it means. An *inserted* token (the prompt, the harness's
 * turns) that differs from the template is **template drift**: the model was trained in a context
 * other than the one it is served with — a real bug, shown in red with the diff. A *sampled* token
 * the template's tokenizer would split otherwise is a **non-canonical tokenization**: the sampler
 * may emit any split of a string, and that is harmless as long as training uses these very ids
 * (Agent Lab does), so it is counted and explained, never flagged. A reply the template would
 * render otherwise (Qwen3 strips a reply's leading newlines, Qwen3.5 trims it) is reported as a
 * text difference the model wrote, not as drift. Special tokens the model itself emitted (an
 * untrained base writing `<|im_start|>`) are content of its reply, not turn structure: they are
 * masked while the messages are read back, so they are reported as emitted special tokens and not
 * as template drift.
 */
import type { ChatMessage, ChatTokenizer } from "../../base/chat/tokenizer";
import { EMPTY_THINK, END_OF_TURN } from "../../base/chat/turns";
import { manifestThinking } from "../../base/runs/manifest-thinking";
import type { EpisodeRecord } from "../../base/runs/run-files";
import { decodePerToken } from "./token-text";

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

/** What the template is rendered with: the run's settings, read from its manifest (`driftSettings`). */
export interface DriftSettings {
  /** The template's `enable_thinking` for every generation prompt. */
  thinking: boolean;
}

/** The settings of a run, from its manifest (an older run without the field: see manifest-thinking.ts). */
export function driftSettings(manifest: unknown): DriftSettings {
  return { thinking: manifestThinking(manifest).thinking };
}

/**
 * Bumped when the check would count a run's episodes otherwise than before, so counts saved beside
 * a run by an older check (run-text-cache.ts) are not shown again.
 */
export const DRIFT_CHECK_VERSION = "drift-2";

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

/** A turn as the recorded text spells it, with where it lies in that text. */
export interface ReadTurn extends ChatMessage {
  /** Where its body starts (after the role line) and ends (before `<|im_end|>`). */
  bodyStart: number;
  bodyEnd: number;
  /** After its `<|im_end|>` when closed, else bodyEnd. */
  end: number;
  closed: boolean;
}

export interface ParsedChat {
  messages: ChatMessage[];
  addGenerationPrompt: boolean;
  /** The messages' turns, one per message, in order. */
  turns: ReadTurn[];
}

/** Messages as the recorded text spells them; assistant content without the empty think block. */
export function messagesFromText(text: string): ParsedChat {
  const messages: ChatMessage[] = [];
  const turns: ReadTurn[] = [];
  const turn = /<\|im_start\|>(system|user|assistant)\n([\s\S]*?)(<\|im_end\|>|(?=<\|im_start\|>)|$)/g;
  let addGenerationPrompt = false;
  for (let m = turn.exec(text); m; m = turn.exec(text)) {
    const role = m[1] as ChatMessage["role"];
    let content = m[2];
    const closed = m[3] === END_OF_TURN;
    const bodyStart = m.index + m[0].length - m[3].length - m[2].length;
    if (role === "assistant" && content.startsWith(EMPTY_THINK)) content = content.slice(EMPTY_THINK.length);
    // An open assistant turn with nothing in it is the generation prompt the sampler was handed.
    if (role === "assistant" && !closed && content === "" && turn.lastIndex >= text.length) {
      addGenerationPrompt = true;
      break;
    }
    messages.push({ role, content });
    turns.push({ role, content, bodyStart, bodyEnd: bodyStart + m[2].length, end: m.index + m[0].length, closed });
    if (m[0].length === 0) turn.lastIndex++;
  }
  return { messages, addGenerationPrompt, turns };
}

/** The characters [from, to) the model wrote in one assistant turn (its closing end-of-turn token left out). */
export interface SampledReply {
  /** Index of the turn in the parsed chat. */
  turn: number;
  from: number;
  to: number;
}

/** Stands in for a sampled reply's content while the template renders around it (private-use characters). */
const hole = (turn: number) => `\uE010${turn}\uE011`;

/** The template's text after a reply's hole: what it writes after that reply. */
function afterHole(rendered: string, turn: number): string {
  const at = rendered.indexOf(hole(turn));
  if (at < 0) throw new Error("the template did not render a sampled reply where it stands in the chat");
  return rendered.slice(at + hole(turn).length);
}

/** What the template renders around the model's replies, in pieces. */
export interface ExpectedChat {
  /**
   * The expected text cut where the writer changes: inserted pieces (the template's) and the
   * sampled replies (the model's own text) alternate, starting with an inserted one.
   */
  pieces: { text: string; sampled: boolean }[];
  /** Per sampled reply (same order): the template's generation prompt before it. */
  prompts: string[];
  /** The chat with each sampled reply's content replaced by a placeholder. */
  holed: ChatMessage[];
}

/**
 * The text the template says the recording should be: each sampled reply after the template's
 * generation prompt for the conversation before it (rendered with the run's thinking setting),
 * everything between replies as the template renders it after the earlier one. Without sampled
 * replies the whole chat is the template's.
 */
export function expectedText(
  tok: Pick<ChatTokenizer, "renderChat">,
  chat: ParsedChat,
  recorded: string,
  replies: readonly SampledReply[],
  settings: DriftSettings,
): ExpectedChat {
  const render = (messages: ChatMessage[], addGenerationPrompt: boolean) =>
    tok.renderChat(messages, { addGenerationPrompt, thinking: settings.thinking });
  if (replies.length === 0)
    return {
      pieces: [{ text: render(chat.messages, chat.addGenerationPrompt), sampled: false }],
      prompts: [],
      holed: chat.messages,
    };
  const sampledTurns = new Set(replies.map((r) => r.turn));
  const holed = chat.messages.map((m, i) => (sampledTurns.has(i) ? { ...m, content: hole(i) } : m));
  const pieces: ExpectedChat["pieces"] = [];
  const prompts: string[] = [];
  let previous: number | undefined;
  for (const r of replies) {
    const prompt = render(holed.slice(0, r.turn), true);
    prompts.push(prompt);
    pieces.push({ text: previous === undefined ? prompt : afterHole(prompt, previous), sampled: false });
    pieces.push({ text: recorded.slice(r.from, r.to), sampled: true });
    previous = r.turn;
  }
  pieces.push({ text: afterHole(render(holed, chat.addGenerationPrompt), previous!), sampled: false });
  return { pieces, prompts, holed };
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
 * The sampled replies of the parsed chat: per assistant turn, the characters its sampled tokens
 * cover (the end-of-turn token that closes it left out: the template writes that one).
 */
function sampledReplies(
  chat: ParsedChat,
  texts: readonly string[],
  starts: readonly number[],
  sampled: readonly number[],
): SampledReply[] {
  const out: SampledReply[] = [];
  let t = 0;
  chat.turns.forEach((turn, i) => {
    if (turn.role !== "assistant") return;
    while (t < texts.length && starts[t] < turn.bodyStart) t++;
    let from = -1;
    let to = -1;
    let last = -1;
    for (let k = t; k < texts.length && starts[k] < turn.end; k++) {
      if (sampled[k] !== 1) continue;
      if (from < 0) from = starts[k];
      to = starts[k + 1];
      last = k;
    }
    if (from < 0) return;
    if (turn.closed && to === turn.end && texts[last] === END_OF_TURN) to -= END_OF_TURN.length;
    out.push({ turn: i, from, to });
  });
  return out;
}

/**
 * Where the template would render a closed sampled reply otherwise than the model wrote it (the
 * character offset of the first difference), or undefined. The template renders the chat up to
 * and with that reply as its last turn; what follows its generation prompt is the reply as the
 * template spells it. A reply cut off by the token limit has no such rendering and is not asked.
 */
function replyDifference(
  tok: Pick<ChatTokenizer, "renderChat">,
  chat: ParsedChat,
  masked: string,
  holed: readonly ChatMessage[],
  reply: SampledReply,
  prompt: string,
  settings: DriftSettings,
): { at: number; expected: string } | undefined {
  const turn = chat.turns[reply.turn];
  if (!turn.closed) return undefined;
  const rendered = tok.renderChat([...holed.slice(0, reply.turn), chat.messages[reply.turn]], {
    addGenerationPrompt: false,
    thinking: settings.thinking,
  });
  if (!rendered.startsWith(prompt)) return { at: reply.from, expected: "(the template opens this reply otherwise)" };
  const want = rendered.slice(prompt.length);
  const got = masked.slice(reply.from, turn.end);
  let k = 0;
  while (k < got.length && k < want.length && got[k] === want[k]) k++;
  return k === got.length ? undefined : { at: reply.from + k, expected: want.slice(k, k + 80) };
}

/** What `checkDrift` reports beyond the counts. */
export interface DriftDetail {
  /**
   * Ask the template how it would render each closed reply (an extra rendering per reply), for the
   * "the template would render the model's reply otherwise" difference. Default true; a run's
   * counts leave it out: it never changes them (it is only ever reported where the model wrote).
   */
  replies?: boolean;
}

/**
 * `sampledFlags`: the episode's per-token sampled flags (1 = the model wrote it); the prompt is
 * inserted. Without them every token counts as inserted (and the template renders every turn).
 * `settings`: the run's (`driftSettings(manifest)`); default thinking off.
 */
export function checkDrift(
  tok: ChatTokenizer,
  prompt: readonly number[],
  tokens: readonly number[],
  sampledFlags?: readonly number[],
  settings: DriftSettings = driftSettings(undefined),
  detail: DriftDetail = {},
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
  let expected: ExpectedChat;
  let chat: ParsedChat;
  let masked: string;
  let replies: SampledReply[];
  let emitted: number[] = [];
  let replyDiff: { at: number; expected: string } | undefined;
  try {
    recordedTexts = decodePerToken(tok, ids);
    emitted = emittedSpecialTokens(tok, ids, recordedTexts, sampled);
    // Parsed with placeholders for the emitted special tokens, so an emitted "<|im_start|>assistant\n"
    // is not taken for a turn header. Same lengths: offsets into it are offsets into the record.
    masked = mask(recordedTexts, emitted).join("");
    chat = messagesFromText(masked);
    if (chat.messages.length === 0)
      return { ...base, problem: "no chat turns found in the tokens (not a chat-template episode)" };
    replies = sampledReplies(chat, recordedTexts, offsets(recordedTexts), sampled);
    expected = expectedText(tok, chat, recordedTexts.join(""), replies, settings);
    for (let i = 0; detail.replies !== false && i < replies.length && !replyDiff; i++) {
      replyDiff = replyDifference(tok, chat, masked, expected.holed, replies[i], expected.prompts[i], settings);
      // Only the model's own text: a token the harness wrote is the comparison's below.
      if (replyDiff && sampled[tokenAt(offsets(recordedTexts), replyDiff.at)] !== 1) replyDiff = undefined;
    }
  } catch (e) {
    return { ...base, problem: `the chat template could not render this episode: ${(e as Error).message}` };
  }
  const recorded = recordedTexts.join("");
  const starts = offsets(recordedTexts);

  // The recording may stop where the template goes on: after the final <|im_end|> (the template adds
  // "\n"), or in the middle of a reply cut off by the token limit (the template closes it).
  const full = expected.pieces.map((p) => p.text).join("");
  let compared = full;
  const tail = full.slice(recorded.length);
  if (full.startsWith(recorded) && /^(<\|im_end\|>)?\s*$/.test(tail)) compared = recorded;

  const report: DriftReport = {
    ...base,
    checked: true,
    messages: chat.messages.length,
    textMatches: compared === recorded && !replyDiff,
    emittedSpecial: emitted,
  };
  let alignedUpTo = ids.length;
  if (compared !== recorded) {
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
  } else if (replyDiff) {
    report.firstTextDifference = {
      tokenIndex: tokenAt(starts, replyDiff.at),
      expected: replyDiff.expected,
      recorded: recorded.slice(replyDiff.at, replyDiff.at + 80),
      writer: "sampled",
    };
  }

  // Token level: a recorded token is "the same" when the template's tokenization has a token with
  // the same id covering the same characters. Each piece is encoded on its own, as the harness
  // encodes its turns and the sampler writes its replies: a whole-text encode would merge a reply's
  // leading newline into the generation prompt's, which no episode is made of.
  const same = new Set<string>();
  let pieceStart = 0;
  for (const piece of expected.pieces) {
    const text = compared.slice(pieceStart, pieceStart + piece.text.length);
    if (text === "") continue;
    const pieceIds = tok.encode(text);
    const at = offsets(decodePerToken(tok, pieceIds));
    pieceIds.forEach((id, i) => same.add(`${pieceStart + at[i]}:${pieceStart + at[i + 1]}:${id}`));
    pieceStart += text.length;
  }
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
  if (compared !== recorded && report.firstTextDifference?.writer === "inserted")
    report.tokenDifferences.push([alignedUpTo, alignedUpTo + 1]);
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

/** One episode's check with its run's settings: what the viewer shows for it and what a run's counts add up. */
export function checkEpisodeDrift(
  tok: ChatTokenizer,
  episode: Pick<EpisodeRecord, "prompt" | "tokens" | "sampled">,
  settings: DriftSettings,
): DriftReport {
  return checkDrift(tok, episode.prompt, episode.tokens, episode.sampled, settings);
}

/** Adds one episode to a run's counts (the viewer counts a run in slices through this). */
export function countEpisodeDrift(
  counts: RunDriftCounts,
  tok: ChatTokenizer,
  episode: Pick<EpisodeRecord, "prompt" | "tokens" | "sampled">,
  settings: DriftSettings,
): void {
  countDrift(counts, checkDrift(tok, episode.prompt, episode.tokens, episode.sampled, settings, { replies: false }));
}

/** A run's counts over the given episodes, with the settings its manifest records. */
export function runDriftCounts(
  tok: ChatTokenizer,
  manifest: unknown,
  episodes: readonly Pick<EpisodeRecord, "prompt" | "tokens" | "sampled">[],
): RunDriftCounts {
  const settings = driftSettings(manifest);
  const counts = emptyDriftCounts();
  for (const e of episodes) countEpisodeDrift(counts, tok, e, settings);
  return counts;
}

/**
 * The run's counts in one line, in the words of the trace viewer's run header (webview/trace), for
 * `show`: "template drift in N episodes · non-canonical sampled tokens in …".
 */
export function driftCountsLine(counts: RunDriftCounts, total: number): string {
  const plural = (n: number) => (n === 1 ? "" : "s");
  const done = counts.checked < total ? ` (${counts.checked} of ${total} checked)` : "";
  const failed = counts.failed ? ` · not checkable in ${counts.failed}` : "";
  const special = counts.emittedSpecial ? ` · special tokens emitted in ${counts.emittedSpecial}` : "";
  return (
    `template drift in ${counts.templateDrift} episode${plural(counts.templateDrift)} · ` +
    `non-canonical sampled tokens in ${counts.nonCanonical} (${counts.nonCanonicalTokens} tokens, harmless)` +
    `${special}${failed}${done}`
  );
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
