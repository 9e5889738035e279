/**
 * `agent-lab export-chat RUN_OR_SFT_DATA --out FILE`: episodes (an eval or GRPO run) or SFT rows (an
 * sft-data run, or its sft.jsonl) as chat JSONL, so the data trains elsewhere too: OpenAI-style by
 * default (OpenAI fine-tuning, TRL), or tinker-cookbook's conversation files with `--format cookbook`.
 *
 * One line per episode/row: `messages` (role + content, in the order the model saw them: the
 * prompt's messages, then each model reply as an assistant message and each harness insertion — a
 * tool's result — as the user message it was), each assistant message with `weight` 1 when the model
 * wrote it (what Agent Lab trains on) and 0 when it came from the prompt (e.g. a few-shot
 * example); `tools` (OpenAI function declarations) where the environment has tools; then `id` and
 * `reward`. Text is decoded from the recorded token ids with the run's tokenizer: Agent Lab itself
 * trains on those ids, never on this re-rendered text.
 *
 * `--format cookbook` writes tinker-cookbook's conversation files instead: every message carries
 * `trainable` (true exactly where the openai format has weight 1), no `weight`; no `tools` (the
 * system prompt the model saw already declares them, and the cookbook's file loader reads only
 * `messages`); then `id` and `reward`.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import { EMPTY_THINK } from "../../base/chat/turns";
import { FileFormatError, UserError } from "../../base/errors";
import { environmentOfManifest } from "../../envs/registry";
import { readEpisodes, readJsonFile, type EpisodeRecord } from "../../base/runs/run-files";
import { refuseWriteIntoRun, RUN_FILES } from "../../base/runs/run-folder";
import { tokenizerForRun } from "../../base/runs/run-tokenizer";
import { readSftRows } from "./sft-files";
import { DEFAULT_CHAT_EXPORT_FORMAT, type ChatExportFormat } from "./chat-formats";
import { environmentMetrics } from "../../envs/catalog";

export interface ChatMessageOut {
  role: "system" | "user" | "assistant";
  content: string;
  /** Assistant messages only: 1 = written by the model (trainable), 0 = part of the prompt. */
  weight?: 0 | 1;
}

export interface ChatLine {
  messages: ChatMessageOut[];
  tools?: { type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  id: string;
  reward: number;
}

/** One message of tinker-cookbook's conversation files (a subset of its `Message`: no tool calls are parsed out). */
export interface CookbookMessage {
  role: "system" | "user" | "assistant";
  content: string;
  trainable: boolean;
}

export interface CookbookLine {
  messages: CookbookMessage[];
  id: string;
  reward: number;
}

/** The openai line as a cookbook line: `trainable` on every message (weight 1 → true), `tools` dropped. */
export function toCookbookLine(line: ChatLine): CookbookLine {
  return {
    messages: line.messages.map((m) => ({ role: m.role, content: m.content, trainable: m.weight === 1 })),
    id: line.id,
    reward: line.reward,
  };
}

type Recorded = Pick<EpisodeRecord, "id" | "prompt" | "tokens" | "sampled" | "reward"> & {
  turns?: EpisodeRecord["turns"];
};

const TURN = /<\|im_start\|>(system|user|assistant)\n([\s\S]*?)(?:<\|im_end\|>|$)/g;

/** The messages of rendered Qwen chat text; a trailing empty assistant opener (the generation prompt) is dropped. */
export function parseChatText(text: string): ChatMessageOut[] {
  const out: ChatMessageOut[] = [];
  for (const m of text.matchAll(TURN)) {
    const role = m[1] as ChatMessageOut["role"];
    let content = m[2];
    if (role === "assistant" && content.startsWith(EMPTY_THINK)) content = content.slice(EMPTY_THINK.length);
    out.push(role === "assistant" ? { role, content, weight: 0 } : { role, content });
  }
  const last = out[out.length - 1];
  if (last?.role === "assistant" && (last.content === "" || last.content === "<think>\n")) out.pop();
  return out;
}

/** Spans of `tokens` the model wrote and the harness inserted: from turn records, else from the sampled flags. */
function spans(r: Recorded): { sampled: boolean; from: number; to: number }[] {
  if (r.turns?.length) {
    return r.turns.flatMap((t) => [
      { sampled: true, from: t.start, to: t.reply_end },
      ...(t.end > t.reply_end ? [{ sampled: false, from: t.reply_end, to: t.end }] : []),
    ]);
  }
  // An end-of-turn token the harness added (sampled 0) parses as nothing, so plain runs of flags suffice.
  const out: { sampled: boolean; from: number; to: number }[] = [];
  r.sampled.forEach((s, i) => {
    const last = out[out.length - 1];
    if (last && last.sampled === (s === 1)) last.to = i + 1;
    else out.push({ sampled: s === 1, from: i, to: i + 1 });
  });
  return out;
}

export function toChatLine(r: Recorded, tok: ChatTokenizer, tools: ChatLine["tools"]): ChatLine {
  const messages = parseChatText(tok.decode(r.prompt));
  for (const span of spans(r)) {
    const ids = r.tokens.slice(span.from, span.to);
    if (span.sampled)
      messages.push({ role: "assistant", content: tok.decode(ids, { skipSpecialTokens: true }), weight: 1 });
    else messages.push(...parseChatText(tok.decode(ids)));
  }
  return { messages, ...(tools?.length ? { tools } : {}), id: r.id, reward: r.reward };
}

/** Reads a run folder (episodes, or sft.jsonl) or an sft.jsonl file and writes chat JSONL; returns the lines written. */
export async function exportChat(
  input: string,
  out: string,
  format: ChatExportFormat = DEFAULT_CHAT_EXPORT_FORMAT,
): Promise<{ lines: number; source: string }> {
  if (!existsSync(input)) throw new UserError(`${input}: no such run folder or file`);
  refuseWriteIntoRun(out, { flag: "--out" });
  const isDir = statSync(input).isDirectory();
  // An sft.jsonl given outside a run folder is still the data being read: never written over either.
  if (!isDir && resolve(out) === resolve(input))
    throw new UserError(`--out ${out} is the file being exported: give another path for the chat JSONL`);
  const dir = isDir ? input : join(input, "..");
  const manifest = readJsonFile<Record<string, unknown>>(join(dir, RUN_FILES.manifest));
  const fingerprint = manifest?.fingerprint as { tokenizer?: string } | undefined;
  const tokenizerName = typeof manifest?.tokenizer === "string" ? manifest.tokenizer : fingerprint?.tokenizer;
  const { tokenizer, problem } = await tokenizerForRun(tokenizerName);
  if (!tokenizer) throw new UserError(`${input}: cannot decode its token ids (${problem})`);
  const env = manifest ? environmentOfManifest(manifest) : undefined;
  const tools = env?.tools.map((t) => ({
    type: "function" as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));

  const sftFile = isDir ? join(dir, RUN_FILES.sft) : input;
  let records: Recorded[];
  let source: string;
  if (isDir && existsSync(join(dir, RUN_FILES.episodes)) && !existsSync(sftFile)) {
    records = readEpisodes(dir, environmentMetrics);
    source = RUN_FILES.episodes;
  } else if (existsSync(sftFile)) {
    records = readSftRows(sftFile);
    source = RUN_FILES.sft;
  } else {
    throw new FileFormatError(
      input,
      undefined,
      `neither ${RUN_FILES.episodes} nor ${RUN_FILES.sft}: give a run folder or an sft.jsonl`,
    );
  }
  const lines = records.map((r) => {
    const line = toChatLine(r, tokenizer, tools);
    return JSON.stringify(format === "cookbook" ? toCookbookLine(line) : line) + "\n";
  });
  writeFileSync(out, lines.join(""));
  return { lines: lines.length, source };
}
