/**
 * The one interface every model source implements for the harness: Tinker sampler, the local
 * Tinker-compatible backend, a local transformers.js model, and scripted replies in tests.
 */
import type { ChatTokenizer } from "../base/chat/tokenizer";

export type StopReason = "stop" | "length";

/** One sampled turn. */
export interface Sample {
  tokens: number[];
  /** Sampler logprob per token; null when the source cannot give them (RL refuses such runs). */
  logprobs: number[] | null;
  stopReason: StopReason;
}

export interface SampleOptions {
  temperature: number;
  maxTokens: number;
  /** Fixes the draw where the source supports it (Tinker, the local backend); others ignore it. */
  seed?: number;
  signal?: AbortSignal;
}

/** What a run's manifest records about the model that produced it. */
export interface PolicyInfo {
  /** "tinker" | "local-backend" | "transformers" | "scripted" | … */
  kind: string;
  /** Base model id. */
  model: string;
  /** Checkpoint path (tinker://…) when sampling from saved weights. */
  checkpoint?: string;
  /** False for sources without sampler logprobs: their runs cannot feed RL. */
  logprobs: boolean;
}

export interface Policy {
  readonly tokenizer: ChatTokenizer;
  /** The end-of-turn token (<|im_end|> for Qwen). */
  readonly endToken: number;
  sample(promptTokens: readonly number[], options: SampleOptions): Promise<Sample>;
  describe(): PolicyInfo;
  /** Releases what the source holds (a remote session's heartbeat keeps the process alive). */
  close?(): void;
}
