/**
 * Token count of a system prompt and what it costs in prefill, for the editor's hover and the
 * token-limit diagnostic. Counted with the offline Qwen3 tokenizer (no network): Qwen3.5's
 * vocabulary differs, so the count is close but not exact; every message says so.
 */
import { offlineTokenizer } from "../../base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import { pricesFor, type AgentLabConfig } from "../../base/config";
import type { LintIssue } from "./issues";
import { backendModel, isFreeBackend, type BackendName } from "../../steps/eval/backend-model";

/** The recipe's typical episode has about three model turns, each re-reading the system prompt. */
export const TYPICAL_TURNS = 3;
/** Default warning threshold for a system prompt (tokens): the recipe's whole episode prefill is ~2,000. */
export const DEFAULT_PROMPT_TOKEN_LIMIT = 1000;

let tokenizer: Promise<ChatTokenizer> | undefined;

/** The offline tokenizer, loaded on first use and kept (loading takes a moment; counting is fast). */
export function promptTokenizer(): Promise<ChatTokenizer> {
  tokenizer ??= offlineTokenizer("qwen3").catch((e: unknown) => {
    tokenizer = undefined; // let a later call retry
    throw e;
  });
  return tokenizer;
}

/** The text the model sees as the system message: the file minus a BOM and trailing whitespace (as loadSystemPrompt). */
export function promptText(fileText: string): string {
  return fileText.replace(/^\uFEFF/, "").trimEnd();
}

export interface PromptTokens {
  count: number;
  /** Offset in the file text where token number `limit` + 1 starts (only when over the limit). */
  overLimitAt?: number;
}

export function countPromptTokens(tok: ChatTokenizer, fileText: string, limit?: number): PromptTokens {
  const bom = fileText.startsWith("\uFEFF") ? 1 : 0;
  const text = promptText(fileText);
  const ids = tok.encode(text);
  if (limit === undefined || ids.length <= limit) return { count: ids.length };
  // Decoding the first `limit` tokens gives the prefix they cover (byte-level BPE round-trips).
  const prefix = tok.decode(ids.slice(0, limit));
  const at = text.startsWith(prefix) ? prefix.length : Math.min(text.length, prefix.length);
  return { count: ids.length, overLimitAt: bom + at };
}

export function tokenLimitIssue(tokens: PromptTokens, limit: number, fileText: string): LintIssue | undefined {
  if (tokens.overLimitAt === undefined || tokens.count <= limit) return undefined;
  return {
    code: "token-limit",
    severity: "warning",
    message:
      `The prompt is ${tokens.count} tokens, over the limit of ${limit} (setting agentLab.promptTokenLimit; counted with the ` +
      `offline Qwen3 tokenizer). Every turn of every episode prefills it again; the text from here on is past the limit.`,
    start: tokens.overLimitAt,
    end: promptText(fileText).length + (fileText.startsWith("\uFEFF") ? 1 : 0),
  };
}

export interface PrefillEstimate {
  model: string;
  /** USD per 1M prefill tokens. */
  prefillPrice: number;
  turns: number;
  /** USD per episode for the system prompt alone. */
  usdPerEpisode: number;
}

/**
 * The system prompt's prefill cost per episode on the model `backend` samples from (the workspace's
 * jobs' backend; default Tinker, the config's model): tokens × ~3 turns × its prefill price, $0 on a
 * backend that runs on this machine. Throws UserError for an unpriced Tinker model.
 */
export function estimatePromptPrefill(
  tokens: number,
  config: AgentLabConfig,
  backend: BackendName = "tinker",
  turns = TYPICAL_TURNS,
): PrefillEstimate {
  const model = backendModel(backend, config);
  const prices = isFreeBackend(backend) ? { prefill: 0 } : pricesFor(config, model);
  return {
    model,
    prefillPrice: prices.prefill,
    turns,
    usdPerEpisode: (tokens * turns * prices.prefill) / 1e6,
  };
}

function usd(x: number): string {
  if (x === 0) return "$0";
  return x < 0.01 ? `$${x.toPrecision(2)}` : `$${x.toFixed(2)}`;
}

/** Markdown for the hover: count, then the cost estimate or why there is none. */
export function promptHoverMarkdown(
  tokens: number,
  estimate: PrefillEstimate | { error: string },
  limit: number,
): string {
  const lines = [
    `**System prompt: ${tokens} tokens** (offline Qwen3 tokenizer; Qwen3.5's vocabulary differs slightly; limit ${limit})`,
    "",
  ];
  if ("error" in estimate) {
    lines.push(`No cost estimate: ${estimate.error}`);
  } else {
    const e = estimate;
    lines.push(
      `Estimated prefill cost of this prompt: ${tokens} tokens × ~${e.turns} turns × $${e.prefillPrice}/1M (${e.model}) ≈ ` +
        `**${usd(e.usdPerEpisode)} per episode**, ${usd(e.usdPerEpisode * 1000)} per 1,000 episodes.`,
      "",
      "_An estimate: episodes vary in turns, and the question and search results add their own prefill._",
    );
  }
  return lines.join("\n");
}

/** One line for the code lens above a prompt: "206 tokens · ≈ $0.00020 prefill per episode (estimate)". */
export function promptLensSummary(tokens: number, estimate: PrefillEstimate | { error: string }): string {
  if ("error" in estimate) return `${tokens} tokens (no cost estimate: hover the first line)`;
  return `${tokens} tokens · ≈ ${usd(estimate.usdPerEpisode)} prefill per episode on ${estimate.model} (estimate)`;
}
