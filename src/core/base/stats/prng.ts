/**
 * A small, fast, seeded PRNG for resampling: xoshiro128** (32-bit state words, so it stays in
 * V8's integer fast paths) seeded through splitmix32. Math.random cannot be seeded, and the
 * bootstrap must give the same interval for the same seed on every machine.
 */

/** splitmix32: spreads a small seed over the four state words (xoshiro must not start all-zero). */
function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

export class Xoshiro128 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** `stream` picks an independent sequence for the same seed (e.g. bootstrap vs permutation test). */
  constructor(seed: number, stream = 0) {
    const st = {
      s: (Math.imul(seed | 0, 0x2545f491) ^ Math.imul(stream | 0, 0x6c8e9cf5) ^ Math.floor(seed / 4294967296)) | 0,
    };
    this.a = splitmix32(st);
    this.b = splitmix32(st);
    this.c = splitmix32(st);
    this.d = splitmix32(st);
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /**
   * Fills `out` with uniform integers in [0, n): the bootstrap's hot path, with the state held in
   * locals so V8 keeps it in registers (several times faster than calling below() n times).
   */
  fillBelow(out: Int32Array, n: number): void {
    let a = this.a;
    let b = this.b;
    let c = this.c;
    let d = this.d;
    for (let i = 0; i < out.length; i++) {
      const x = Math.imul(b, 5);
      const result = Math.imul((x << 7) | (x >>> 25), 9) >>> 0;
      const t = b << 9;
      c ^= a;
      d ^= b;
      b ^= c;
      a ^= d;
      c ^= t;
      d = (d << 11) | (d >>> 21);
      out[i] = (result * n) / 4294967296; // Int32Array storage truncates: floor for these non-negative values
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }

  /** Next 32 random bits as an unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9);
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result >>> 0;
  }

  /**
   * A uniform integer in [0, n) by the multiply-shift map (n < 2^21 keeps the product exact).
   * Its bias is at most n / 2^32, far below anything a 10,000-resample bootstrap can see.
   */
  below(n: number): number {
    return Math.floor((this.nextUint32() * n) / 4294967296);
  }

  /** A uniform float in [0, 1). */
  nextFloat(): number {
    return this.nextUint32() / 4294967296;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
