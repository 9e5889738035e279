/**
 * Builders for wire shapes so no caller assembles a Datum or TensorData by hand.
 *
 * The shift by one: a model predicts the next token, so position i of the input predicts token
 * i+1. For a full sequence `tokens` with one per-token value each (weights, logprobs,
 * advantages), the Datum's input is tokens[:-1], its targets are tokens[1:], and every per-token
 * array drops its first element so all of them have the input's length.
 */
import type { Datum, ModelInput, TensorData } from "./types";

/** A single encoded-text chunk; an empty token list gives no chunk (the real service 400s on empty chunks). */
export function modelInputFromTokens(tokens: readonly number[]): ModelInput {
  return { chunks: tokens.length > 0 ? [{ type: "encoded_text", tokens: [...tokens] }] : [] };
}

/** The tokens of a text-only ModelInput, chunks concatenated. */
export function modelInputTokens(input: ModelInput): number[] {
  const out: number[] = [];
  for (const c of input.chunks) {
    if (c.type !== "encoded_text") throw new Error(`model input has a ${c.type} chunk; only text is supported here`);
    out.push(...c.tokens);
  }
  return out;
}

/** Number of token positions a ModelInput occupies. */
export function modelInputLength(input: ModelInput): number {
  let n = 0;
  for (const c of input.chunks) n += c.type === "encoded_text" ? c.tokens.length : (c.expected_tokens ?? 0);
  return n;
}

export function float32Tensor(values: readonly number[], shape?: number[]): TensorData {
  return shape ? { data: [...values], dtype: "float32", shape } : { data: [...values], dtype: "float32" };
}

export function int64Tensor(values: readonly number[], shape?: number[]): TensorData {
  return shape ? { data: [...values], dtype: "int64", shape } : { data: [...values], dtype: "int64" };
}

/** The tensor's shape, defaulting to 1-D. */
export function tensorShape(t: TensorData): number[] {
  return t.shape ?? [t.data.length];
}

function checkLengths(what: string, tokens: readonly number[], arrays: Record<string, readonly number[]>): void {
  if (tokens.length < 2) throw new Error(`${what}: a datum needs at least 2 tokens, got ${tokens.length}`);
  for (const [name, arr] of Object.entries(arrays)) {
    if (arr.length !== tokens.length) {
      throw new Error(`${what}: ${name} has ${arr.length} values for ${tokens.length} tokens`);
    }
  }
}

/**
 * Supervised datum for cross_entropy: `tokens` is the full sequence (prompt + completion) and
 * `weights[i]` the weight of predicting tokens[i] (0 on prompt and tool text, 1 on model-written
 * tokens). Both are shifted by one.
 */
export function sftDatum(tokens: readonly number[], weights: readonly number[]): Datum {
  checkLengths("sftDatum", tokens, { weights });
  return {
    model_input: modelInputFromTokens(tokens.slice(0, -1)),
    loss_fn_inputs: {
      target_tokens: int64Tensor(tokens.slice(1)),
      weights: float32Tensor(weights.slice(1)),
    },
  };
}

/**
 * RL datum for importance_sampling / ppo / cispo / dro: per full-sequence token, the sampler's
 * logprob (0 where the model did not write the token) and the advantage (0 there too). Shifted
 * by one like sftDatum.
 */
export function rlDatum(tokens: readonly number[], logprobs: readonly number[], advantages: readonly number[]): Datum {
  checkLengths("rlDatum", tokens, { logprobs, advantages });
  return {
    model_input: modelInputFromTokens(tokens.slice(0, -1)),
    loss_fn_inputs: {
      target_tokens: int64Tensor(tokens.slice(1)),
      logprobs: float32Tensor(logprobs.slice(1)),
      advantages: float32Tensor(advantages.slice(1)),
    },
  };
}

/** An episode as the harness records it: prompt, then the tokens after it with a mask of which the model sampled. */
export interface EpisodeTokens {
  prompt: readonly number[];
  tokens: readonly number[];
  /** 1 (or true) where the model wrote the token, 0 where a tool result was inserted. */
  sampled: ReadonlyArray<number | boolean>;
  /** Sampler logprob per token of `tokens` (0 on inserted tokens). */
  logprobs?: readonly number[];
}

function maskOf(ep: EpisodeTokens): number[] {
  if (ep.sampled.length !== ep.tokens.length) {
    throw new Error(`episode has ${ep.tokens.length} tokens but ${ep.sampled.length} sampled flags`);
  }
  return ep.sampled.map((s) => (s ? 1 : 0));
}

/** sftDatum over an episode: weight 1 on the tokens the model wrote, 0 on prompt and tool results. */
export function sftDatumFromEpisode(ep: EpisodeTokens): Datum {
  const mask = maskOf(ep);
  return sftDatum([...ep.prompt, ...ep.tokens], [...ep.prompt.map(() => 0), ...mask]);
}

/** rlDatum over an episode: advantage on the model's tokens, sampler logprobs as recorded. */
export function rlDatumFromEpisode(ep: EpisodeTokens, advantage: number): Datum {
  const mask = maskOf(ep);
  if (!ep.logprobs || ep.logprobs.length !== ep.tokens.length) {
    throw new Error("the sampler returned no logprobs; RL needs them");
  }
  return rlDatum(
    [...ep.prompt, ...ep.tokens],
    [...ep.prompt.map(() => 0), ...ep.logprobs],
    [...ep.prompt.map(() => 0), ...mask.map((m) => m * advantage)],
  );
}
