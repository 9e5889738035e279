/**
 * mulberry32: a tiny seeded PRNG, uniform in [0, 1). For anything that must not depend on
 * Math.random (generated datasets, seeded picks, reproducible tests); not for statistics, which
 * use the stronger generator in src/core/base/stats/prng.ts.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
