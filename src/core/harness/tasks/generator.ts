/**
 * Where candidate tasks come from: a model sampled with the generation prompt (Tinker, the local
 * backend) or a scripted generator (offline). A generator is deterministic per index: candidate i
 * is drawn with a seed derived from (run seed, i), so a resumed generation continues at the first
 * index not yet written and a rerun with the same seed writes the same candidates. Written below
 * steps so an environment's folder can declare its own scripted generator (env-tasks.ts).
 */
import { createHash } from "node:crypto";

export interface CandidateDraft {
  problem: string;
  solution: string;
}

/** One attempt at candidate `index`: a draft, or why the reply held none (counted in the audit). */
export type GeneratedCandidate =
  | { ok: true; draft: CandidateDraft; prefill: number; sampled: number }
  | { ok: false; reason: string; prefill: number; sampled: number };

export interface TaskGenerator {
  /** Names the generator and its decoding in the manifest and audit ("scripted:<env>@seed 0", "tinker:Qwen/…"). */
  readonly id: string;
  /** Whether its calls bill Tinker (the ledger charges its tokens). */
  readonly paid: boolean;
  generate(index: number, signal?: AbortSignal): Promise<GeneratedCandidate>;
  close?(): void;
}

/** A 31-bit seed for draw `index` of a run seeded `seed`. */
export function drawSeed(seed: number, index: number, what = "gen"): number {
  return (
    createHash("sha256")
      .update(JSON.stringify([what, seed, index]))
      .digest()
      .readUInt32BE(0) >>> 1
  );
}
