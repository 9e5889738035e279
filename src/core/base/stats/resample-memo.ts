/**
 * The resampling ablate runs (the bootstrap's resampled means, the sign-flip test's p), remembered
 * by what they are computed from: a result's key is the SHA-256 of the column's bytes with the
 * settings (resamples, seed, stream), so a remembered result is the one the computation would give,
 * bit for bit, whatever run or file the column came from. At 10,000 questions the resampling is
 * 10^8 draws; a comparison of the same runs again (another baseline, other expected differences,
 * a new panel) takes its numbers from here instead.
 *
 * A bootstrap column's resampled means depend on that column and the draws alone (the draws come
 * from the settings and the column's length), not on the columns drawn beside it, so the columns
 * not remembered are drawn together and the others taken from here. The sign-flip p of −d is the
 * p of d (every flipped sum is negated exactly), so both share one key.
 */
import { createHash } from "node:crypto";
import { bootstrapMeans, type BootstrapOptions } from "./bootstrap";
import { SIGN_FLIP_METHOD, signFlipTest, type PermutationOptions } from "./significance";

/** How ablate resamples: directly, or through a memo. `owners`: the inputs (runs) a column belongs to. */
export interface Resampling {
  bootstrapMeans(
    columns: readonly Float64Array[],
    options: BootstrapOptions,
    owners: readonly number[][],
  ): Float64Array[];
  signFlipTest(diffs: Float64Array, options: PermutationOptions, owners: readonly number[]): number;
}

export const DIRECT_RESAMPLING: Resampling = {
  bootstrapMeans: (columns, options) => bootstrapMeans(columns, options),
  signFlipTest: (diffs, options) => signFlipTest(diffs, options),
};

/** A remembered result: one column's resampled means, or one test's p. */
export type ResampleResult = Float64Array | number;

/** What a remembered-only pass did not find: the draws that give it, under the keys a memo keeps them. */
export type MissedDraw =
  | { kind: "bootstrap"; keys: string[]; columns: Float64Array[]; options: BootstrapOptions }
  | { kind: "sign-flip"; key: string; diffs: Float64Array; options: PermutationOptions };

/** The results of the missed draws, under their keys (pure: a worker runs it; the memo remembers them). */
export function drawMissed(missed: readonly MissedDraw[]): [string, ResampleResult][] {
  return missed.flatMap((d): [string, ResampleResult][] =>
    d.kind === "bootstrap"
      ? bootstrapMeans(d.columns, d.options).map((means, i) => [d.keys[i], means])
      : [[d.key, signFlipTest(d.diffs, d.options)]],
  );
}

function columnKey(kind: string, values: Float64Array, settings: object): string {
  const hash = createHash("sha256");
  hash.update(`${kind}:${JSON.stringify(settings)}:${values.length}:`);
  hash.update(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  return `${kind}:${hash.digest("hex")}`;
}

/** d, or −d when its first non-zero value is negative, with −0 as 0 (a flipped 0 adds nothing): one key for both. */
function signCanonical(d: Float64Array): Float64Array {
  let sign = 1;
  for (let i = 0; i < d.length; i++) {
    if (d[i] === 0) continue;
    sign = d[i] > 0 ? 1 : -1;
    break;
  }
  return d.map((v) => (v === 0 ? 0 : sign * v));
}

const settingsOf = (o: BootstrapOptions | PermutationOptions) => ({
  resamples: o.resamples,
  seed: o.seed,
  stream: o.stream ?? 0,
});

/** The remembered resampled means under each key, or undefined: one finite mean per resample (one read from an altered cache may not be). */
function rememberedMeans(
  results: ReadonlyMap<string, ResampleResult>,
  keys: readonly string[],
  options: BootstrapOptions,
): (Float64Array | undefined)[] {
  return keys.map((key) => {
    const r = results.get(key);
    return r instanceof Float64Array && r.length === options.resamples && r.every(Number.isFinite) ? r : undefined;
  });
}

/** A remembered test's p: a Monte Carlo p is never 0 and at most 1. */
const isP = (r: ResampleResult | undefined): r is number => typeof r === "number" && r > 0 && r <= 1;

function bootstrapKeys(columns: readonly Float64Array[], options: BootstrapOptions): string[] {
  const settings = settingsOf(options);
  return columns.map((c) => columnKey("bootstrap", c, settings));
}

function signFlipKey(diffs: Float64Array, options: PermutationOptions): string {
  return columnKey(`sign-flip-${SIGN_FLIP_METHOD}`, signCanonical(diffs), settingsOf(options));
}

export class ResampleMemo implements Resampling {
  private readonly results = new Map<string, ResampleResult>();
  /** Which owners (runs) used each result, for saving it with them. */
  private readonly usedBy = new Map<string, Set<number>>();
  /** Results computed here (not remembered before). */
  computed = 0;

  /** Remembers results saved before (keys as this class makes them). */
  remember(results: Iterable<[string, ResampleResult]>): void {
    for (const [key, value] of results) this.results.set(key, value);
  }

  /** The results owner `owner` used, in the order they were used. */
  resultsOf(owner: number): [string, ResampleResult][] {
    return [...this.usedBy].filter(([, owners]) => owners.has(owner)).map(([key]) => [key, this.results.get(key)!]);
  }

  private use(key: string, owners: readonly number[]): void {
    const set = this.usedBy.get(key) ?? new Set<number>();
    for (const o of owners) set.add(o);
    this.usedBy.set(key, set);
  }

  /**
   * This memo's results, nothing drawn: a result it does not remember comes back as NaN (every
   * resampled mean, or the p) and what it would take to draw it is listed in `missed`. A table made
   * with it is final when nothing was missed; else its intervals and tests that were not remembered
   * are not numbers, and drawMissed(missed) (anywhere: a worker) gives the results to remember.
   */
  rememberedOnly(): Resampling & { missed: MissedDraw[] } {
    const results = this.results;
    const missed: MissedDraw[] = [];
    return {
      missed,
      bootstrapMeans(columns, options) {
        const keys = bootstrapKeys(columns, options);
        const kept = rememberedMeans(results, keys, options);
        const lost = kept.flatMap((means, i) => (means ? [] : [i]));
        if (lost.length > 0)
          missed.push({
            kind: "bootstrap",
            keys: lost.map((i) => keys[i]),
            columns: lost.map((i) => columns[i]),
            options,
          });
        return kept.map((means) => means ?? new Float64Array(options.resamples).fill(NaN));
      },
      signFlipTest(diffs, options) {
        const key = signFlipKey(diffs, options);
        const kept = results.get(key);
        if (isP(kept)) return kept;
        missed.push({ kind: "sign-flip", key, diffs, options });
        return NaN;
      },
    };
  }

  bootstrapMeans(
    columns: readonly Float64Array[],
    options: BootstrapOptions,
    owners: readonly number[][],
  ): Float64Array[] {
    const keys = bootstrapKeys(columns, options);
    const missing = rememberedMeans(this.results, keys, options).flatMap((means, i) => (means ? [] : [i]));
    if (missing.length > 0) {
      const drawn = bootstrapMeans(
        missing.map((i) => columns[i]),
        options,
      );
      missing.forEach((i, m) => this.results.set(keys[i], drawn[m]));
      this.computed += missing.length;
    }
    keys.forEach((key, i) => this.use(key, owners[i] ?? []));
    return keys.map((key) => this.results.get(key) as Float64Array);
  }

  signFlipTest(diffs: Float64Array, options: PermutationOptions, owners: readonly number[]): number {
    const key = signFlipKey(diffs, options);
    let p = this.results.get(key);
    if (!isP(p)) {
      p = signFlipTest(diffs, options);
      this.results.set(key, p);
      this.computed++;
    }
    this.use(key, owners);
    return p;
  }
}
