/**
 * Seeded randomness for the local model. Everything the model initialises or samples comes from
 * here, so a seed fixes the whole run. Per-token rows are seeded from (seed, tensor, token id)
 * rather than drawn in order, so a row's initial value does not depend on when the id was first seen.
 */

/** 32-bit mix (murmur3 finaliser): spreads nearby inputs over the whole range. */
export function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Hash of a list of integers and strings, as a 32-bit seed. */
export function hashSeed(...parts: Array<number | string>): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    if (typeof part === "number") {
      // Split into two 32-bit halves so ids and seeds above 2^32 still differ.
      h = mix32(h ^ (part >>> 0));
      h = mix32(h ^ Math.floor(part / 0x100000000));
    } else {
      for (let i = 0; i < part.length; i++) h = mix32(h ^ part.charCodeAt(i));
    }
  }
  return h;
}

/** Small fast PRNG (mulberry32): uniform in [0, 1), plus standard normals. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}
