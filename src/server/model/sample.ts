/**
 * Sampling from the tiny model: temperature, top-k, top-p, stop token ids or stop strings,
 * max_tokens, seed. Reported logprobs are the model's own log p(token) at temperature 1 — exactly
 * what a teacher-forced forward computes for the same tokens (same code path), which is what
 * importance-sampling ratios need when sampling at temperature 1. With other temperatures or
 * truncation the tokens are drawn from the adjusted distribution but the logprob stays the model's.
 */
import { UserInputError } from "./errors";
import { Rng, hashSeed } from "./rng";
import { SequenceState, type PositionState, type TinyModel } from "./tiny-model";
import { runToEnd } from "./train";

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
  for (const id of prompt) model.checkToken(id, "prompt token");
  const seq = new SequenceState();
  for (const id of prompt) model.appendToken(seq, id);
  return seq;
}

/**
 * The ids with the largest weights, largest first (lower id first on ties), among those with
 * weight ≥ floor; `limit` caps how many. A linear pass instead of sorting the whole vocabulary.
 */
function largest(w: Float64Array, limit: number, floor = -Infinity): number[] {
  const picked: number[] = [];
  for (let v = 0; v < w.length; v++) if (w[v] >= floor) picked.push(v);
  // Few ids clear a floor; with a limit only, keep a bounded, sorted top list.
  if (limit >= picked.length) return picked.sort((a, b) => w[b] - w[a] || a - b);
  const top: number[] = [];
  for (const v of picked) {
    if (top.length === limit && w[v] <= w[top[limit - 1]]) continue;
    let i = top.length;
    while (i > 0 && w[top[i - 1]] < w[v]) i--;
    top.splice(i, 0, v);
    if (top.length > limit) top.pop();
  }
  return top;
}

/**
 * Top-p over the whole vocabulary without sorting it: weights fall into bins by log2(w / max), in
 * descending order; whole bins are in while their mass stays below top_p·total, and only the bin
 * that crosses it is sorted (ties: lower id first) and taken until the mass is reached. That is
 * exactly the sorted prefix, in two passes over the vocabulary. Then an id is drawn within the
 * nucleus in proportion to its weight.
 */
function drawNucleus(w: Float64Array, topP: number, rng: Rng): number {
  const BINS_PER_OCTAVE = 32;
  const BINS = 64 * BINS_PER_OCTAVE;
  let total = 0;
  let max = 0;
  for (let v = 0; v < w.length; v++) {
    total += w[v];
    if (w[v] > max) max = w[v];
  }
  if (max === 0) return 0;
  const bin = new Int32Array(w.length);
  const binMass = new Float64Array(BINS);
  for (let v = 0; v < w.length; v++) {
    if (w[v] <= 0) {
      bin[v] = -1;
      continue;
    }
    const b = Math.min(BINS - 1, Math.floor(-Math.log2(w[v] / max) * BINS_PER_OCTAVE));
    bin[v] = b;
    binMass[b] += w[v];
  }
  const target = topP * total;
  let mass = 0;
  let boundary = BINS - 1;
  for (let b = 0; b < BINS; b++) {
    if (mass + binMass[b] >= target) {
      boundary = b;
      break;
    }
    mass += binMass[b];
  }
  const keep: number[] = [];
  const edge: number[] = [];
  for (let v = 0; v < w.length; v++) {
    if (bin[v] < 0) continue;
    if (bin[v] < boundary) keep.push(v);
    else if (bin[v] === boundary) edge.push(v);
  }
  edge.sort((a, b) => w[b] - w[a] || a - b);
  for (const v of edge) {
    if (mass >= target && keep.length > 0) break;
    keep.push(v);
    mass += w[v];
  }
  let u = rng.next() * mass;
  for (const v of keep) {
    u -= w[v];
    if (u <= 0) return v;
  }
  return keep[keep.length - 1];
}

/** Picks a token id from the full distribution p (indexed by id) after temperature / top-k / top-p. */
function draw(p: Float64Array, o: SampleOptions, rng: Rng): number {
  const w = o.temperature === 1 ? p : p.map((x) => Math.pow(x, 1 / o.temperature));
  let order: number[] | undefined;
  if (o.topK > 0) order = largest(w, o.topK);
  else if (o.topP < 1) return drawNucleus(w, o.topP, rng);
  if (order && o.topP < 1) {
    const total = order.reduce((s, v) => s + w[v], 0);
    let cum = 0;
    let keep = 0;
    while (keep < order.length && cum < o.topP * total) cum += w[order[keep++]];
    order = order.slice(0, Math.max(1, keep));
  }
  if (!order) {
    let u = rng.next() * w.reduce((s, x) => s + x, 0);
    for (let v = 0; v < w.length; v++) {
      u -= w[v];
      if (u <= 0) return v;
    }
    return w.length - 1;
  }
  const total = order.reduce((s, v) => s + w[v], 0);
  let u = rng.next() * total;
  for (const v of order) {
    u -= w[v];
    if (u <= 0) return v;
  }
  return order[order.length - 1];
}

/** The next token id: greedy and plain temperature-1 draws skip building the full distribution. */
function nextToken(model: TinyModel, seq: SequenceState, ps: PositionState, o: SampleOptions, rng: Rng): number {
  if (o.temperature <= 0) return model.greedy(seq, ps);
  if (o.temperature === 1 && o.topK <= 0 && o.topP >= 1) return model.drawExact(seq, ps, rng);
  return draw(model.fullDistribution(seq, ps), o, rng);
}

/** num_samples independent completions of a prompt. The seed fixes all of them. */
export function sample(model: TinyModel, prompt: number[], numSamples: number, o: SampleOptions): SampledSequence[] {
  return runToEnd(sampleSteps(model, prompt, numSamples, o));
}

/** sample() as a generator that yields after every token, so a scheduler can interleave other work. */
export function* sampleSteps(
  model: TinyModel,
  prompt: number[],
  numSamples: number,
  o: SampleOptions,
): Generator<void, SampledSequence[]> {
  if (!Number.isInteger(numSamples) || numSamples < 1)
    throw new UserInputError("num_samples must be a positive integer");
  if (!Number.isInteger(o.maxTokens) || o.maxTokens < 0)
    throw new UserInputError("max_tokens must be a non-negative integer");
  if (o.stopStrings.length > 0 && !o.decode) {
    throw new UserInputError(
      "stop strings need a tokenizer, and this local backend was started without one; pass stop token ids instead",
    );
  }
  readPrompt(model, prompt);
  yield;
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
      const id = nextToken(model, seq, ps, o, rng);
      tokens.push(id);
      logprobs.push(model.logProb(seq, ps, id));
      model.appendToken(seq, id);
      yield;
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
      const best = largest(p, topk);
      top.push(best.map((v) => [v, model.logProb(seq, ps, v)]));
    }
  }
  return { logprobs, topk: topk > 0 ? top : [] };
}
