/**
 * Choosing the next token from one row of logits: greedy or temperature sampling with a seeded
 * generator, plus the token's log-probability. Pure functions, so they are tested without a model.
 */

/**
 * A small seeded generator (Mulberry32): 32 random bits per step; two steps make one double with
 * 53 random bits, so even a 250k-token vocabulary is sampled without visible quantisation.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
    this.state = seed >>> 0;
  }

  private next32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    const high = this.next32() >>> 5; // 27 bits
    const low = this.next32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }
}

/** Index of the largest logit; the first one on ties (as torch.argmax does). */
export function argmax(logits: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/** log softmax(logits)[index], computed stably. */
export function logSoftmaxAt(logits: ArrayLike<number>, index: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  return logits[index] - max - Math.log(sum);
}

/**
 * Samples an index from softmax(logits / temperature) by inverting the cumulative distribution
 * with one uniform draw, so the same generator state always picks the same token.
 */
export function sampleWithTemperature(logits: ArrayLike<number>, temperature: number, random: SeededRandom): number {
  if (!(temperature > 0)) throw new Error(`temperature must be > 0 to sample, got ${temperature}`);
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  const weights = new Float64Array(logits.length);
  let total = 0;
  for (let i = 0; i < logits.length; i++) {
    total += Math.exp((logits[i] - max) / temperature);
    weights[i] = total;
  }
  const target = random.next() * total;
  // Binary search over the running sums: the first index whose running sum exceeds the target.
  let lo = 0;
  let hi = logits.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (weights[mid] > target) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The next token: argmax at temperature 0, else a seeded sample. */
export function chooseToken(logits: ArrayLike<number>, temperature: number, random: SeededRandom): number {
  return temperature === 0 ? argmax(logits) : sampleWithTemperature(logits, temperature, random);
}
