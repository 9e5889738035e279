/**
 * Sampling from the tiny model: temperature, top-k, top-p, stop token ids or stop strings,
 * max_tokens, seed. Reported logprobs are the model's own log p(token) at temperature 1 — exactly
 * what a teacher-forced forward computes for the same tokens (same code path), which is what
 * importance-sampling ratios need when sampling at temperature 1. With other temperatures or
 * truncation the tokens are drawn from the adjusted distribution but the logprob stays the model's.
 */
import { UserInputError } from "./errors";
import { Rng, hashSeed } from "./rng";
import { SequenceState, type TinyModel } from "./tiny-model";

export interface SampleOptions {
  maxTokens: number;
  temperature: number;
  topK: number;
  topP: number;
  seed: number;
  stopTokens: number[];
  stopStrings: string[];
  /** Needed for stop strings: token ids → text. */
  decode?: (ids: number[]) => string;
}

export interface SampledSequence {
  tokens: number[];
  logprobs: number[];
  stopReason: "stop" | "length";
}

export interface PromptScores {
  /** null at position 0 (nothing predicts the first token). */
  logprobs: Array<number | null>;
  /** Per position, the k most likely [token id, logprob] pairs; null at position 0. */
  topk: Array<Array<[number, number]> | null>;
}

function readPrompt(model: TinyModel, prompt: number[]): SequenceState {
  if (prompt.length === 0) throw new UserInputError("prompt is empty");
  const seq = new SequenceState();
  const indices = prompt.map((id) => model.ensureToken(id));
  for (const i of indices) model.appendToken(seq, i);
  return seq;
}

/** Picks an index from the model distribution p after temperature / top-k / top-p. */
function draw(p: Float64Array, o: SampleOptions, rng: Rng): number {
  if (o.temperature <= 0) {
    let best = 0;
    for (let v = 1; v < p.length; v++) if (p[v] > p[best]) best = v;
    return best;
  }
  let order = Array.from(p.keys());
  const w = new Float64Array(p.length);
  for (let v = 0; v < p.length; v++) w[v] = o.temperature === 1 ? p[v] : Math.pow(p[v], 1 / o.temperature);
  if (o.topK > 0 || o.topP < 1) {
    order.sort((a, b) => w[b] - w[a]);
    if (o.topK > 0) order = order.slice(0, o.topK);
    if (o.topP < 1) {
      const total = order.reduce((s, v) => s + w[v], 0);
      let cum = 0;
      let keep = 0;
      while (keep < order.length && cum < o.topP * total) cum += w[order[keep++]];
      order = order.slice(0, Math.max(1, keep));
    }
  }
  const total = order.reduce((s, v) => s + w[v], 0);
  let u = rng.next() * total;
  for (const v of order) {
    u -= w[v];
    if (u <= 0) return v;
  }
  return order[order.length - 1];
}

/** num_samples independent completions of a prompt. The seed fixes all of them. */
export function sample(model: TinyModel, prompt: number[], numSamples: number, o: SampleOptions): SampledSequence[] {
  if (!Number.isInteger(numSamples) || numSamples < 1) throw new UserInputError("num_samples must be a positive integer");
  if (!Number.isInteger(o.maxTokens) || o.maxTokens < 0) throw new UserInputError("max_tokens must be a non-negative integer");
  if (o.stopStrings.length > 0 && !o.decode) {
    throw new UserInputError("stop strings need a tokenizer, and this local backend was started without one; pass stop token ids instead");
  }
  readPrompt(model, prompt);
  const stopIds = new Set(o.stopTokens);
  const out: SampledSequence[] = [];
  for (let n = 0; n < numSamples; n++) {
    const rng = new Rng(hashSeed(o.seed, n));
    const seq = readPrompt(model, prompt);
    const tokens: number[] = [];
    const logprobs: number[] = [];
    let stopReason: "stop" | "length" = "length";
    for (let step = 0; step < o.maxTokens; step++) {
      const ps = model.position(seq, seq.tokens.length - 1);
      const p = model.fullDistribution(seq, ps);
      const v = draw(p, o, rng);
      const lp = model.logProb(seq, ps, v);
      const id = model.vocab[v];
      tokens.push(id);
      logprobs.push(lp);
      model.appendToken(seq, v);
      if (stopIds.has(id)) {
        stopReason = "stop";
        break;
      }
      if (o.stopStrings.length > 0 && o.decode) {
        const text = o.decode(tokens);
        if (o.stopStrings.some((s) => s.length > 0 && text.includes(s))) {
          stopReason = "stop";
          break;
        }
      }
    }
    out.push({ tokens, logprobs, stopReason });
  }
  return out;
}

/** Log-probs of each prompt token given the ones before it, plus the top-k alternatives. */
export function scorePrompt(model: TinyModel, prompt: number[], topk: number): PromptScores {
  const seq = readPrompt(model, prompt);
  const logprobs: Array<number | null> = [null];
  const top: Array<Array<[number, number]> | null> = [null];
  for (let t = 0; t + 1 < seq.tokens.length; t++) {
    const ps = model.position(seq, t);
    logprobs.push(model.logProb(seq, ps, seq.tokens[t + 1]));
    if (topk > 0) {
      const p = model.fullDistribution(seq, ps);
      const best = Array.from(p.keys())
        .sort((a, b) => p[b] - p[a])
        .slice(0, topk);
      top.push(best.map((v) => [model.vocab[v], model.logProb(seq, ps, v)]));
    }
  }
  return { logprobs, topk: topk > 0 ? top : [] };
}
