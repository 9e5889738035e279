/**
 * Runs for the ablate tests, built from real HotpotQA dev records: each simulated run answers a
 * question with the gold answer, a partly right one or another question's answer, and is scored
 * by the project's real EM/F1, so scores have HotpotQA's real mix of 0s, 1s and partial credit.
 */
import { readFileSync } from "node:fs";
import { EPISODE_FORMAT } from "../../../../../src/core/base/runs/episode-v1";
import type { AblationInput } from "../../../../../src/core/steps/ablate";
import { Xoshiro128 } from "../../../../../src/core/base/stats/prng";
import type { RunManifest } from "../../../../../src/core/base/runs/manifest";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { exactMatch, f1Score } from "../../../../../src/core/envs/hotpotqa/score";

export interface DevRecord {
  id: string;
  question: string;
  answer: string;
}

export function readDev(file: string): DevRecord[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const r = JSON.parse(l) as DevRecord;
      return { id: r.id, question: r.question, answer: r.answer };
    });
}

export type Outcome = "right" | "partial" | "wrong" | "no_answer";

/** A prediction for an outcome: the gold answer, the gold answer padded with words, someone else's answer, or nothing. */
export function predictionFor(dev: readonly DevRecord[], q: number, outcome: Outcome): string {
  const gold = dev[q].answer;
  switch (outcome) {
    case "right":
      return gold;
    case "partial":
      return `${gold} and also the other one`;
    case "wrong": {
      // Another question's answer that shares no words with this gold answer.
      for (let step = 1; step < dev.length; step++) {
        const other = dev[(q + step) % dev.length].answer;
        if (f1Score(other, [gold]) === 0) return other;
      }
      return "zzz";
    }
    case "no_answer":
      return "";
  }
}

export function episode(
  dev: readonly DevRecord[],
  q: number,
  outcome: Outcome,
  over: Partial<EpisodeRecord> = {},
): EpisodeRecord {
  const r = dev[q];
  const prediction = predictionFor(dev, q, outcome);
  const answered = outcome !== "no_answer";
  const em = answered ? exactMatch(prediction, [r.answer]) : 0;
  const f1 = answered ? f1Score(prediction, [r.answer]) : 0;
  return {
    id: r.id,
    question: r.question,
    answers: [r.answer],
    format: EPISODE_FORMAT,
    prediction,
    metrics: { em, f1 },
    reward: f1,
    end: answered ? "answer" : "length",
    searches: answered ? [r.question] : [],
    prompt: [1, 2, 3],
    tokens: [4, 5],
    sampled: [1, 1],
    logprobs: [-0.1, -0.2],
    prefill: 2000,
    generated: 80,
    usd: 0.0007,
    ...over,
  };
}

/**
 * A run whose outcome on each question is drawn from `probs` (right, partial, wrong) with a seeded
 * PRNG; `shared` makes two runs' draws correlated (same uniform per question, like two checkpoints
 * that find the same questions hard).
 */
export function simulatedRun(
  dev: readonly DevRecord[],
  probs: [number, number, number],
  seed: number,
): EpisodeRecord[] {
  const rng = new Xoshiro128(seed, 99);
  return dev.map((_, q) => {
    const u = rng.nextFloat();
    const outcome: Outcome = u < probs[0] ? "right" : u < probs[0] + probs[1] ? "partial" : "wrong";
    return episode(dev, q, outcome);
  });
}

export function manifest(
  over: { checkpoint?: string; topK?: number; splitSha?: string; prompt?: string } = {},
): RunManifest {
  return {
    format: 1,
    split: {
      name: "test",
      file: "test.jsonl",
      sha256: over.splitSha ?? "cb4ad042f2c0ef38aa11bb22cc33dd44ee55ff6600112233445566778899aabb",
    },
    test_split: { opened: true, flag: "--i-know-this-is-test" },
    system_prompt: { file: "system.md", sha256: over.prompt ?? "5e" },
    harness_version: "harness-1",
    scorer_version: "1",
    policy: {
      kind: "tinker",
      model: "Qwen/Qwen3.5-4B",
      ...(over.checkpoint ? { checkpoint: over.checkpoint } : {}),
      logprobs: true,
    },
    sampling: { temperature: 0, max_tokens: 512 },
    tokenizer: "qwen3",
    search: {
      closed_book: false,
      top_k: over.topK ?? 3,
      max_searches: 5,
      searcher: { kind: "bm25", documents: 507000 },
    },
    job: { command: ["eval"], created: "2026-11-29T00:00:00Z", concurrency: 32 },
  };
}

/** A run in memory; `null` for a run folder without manifest.json. */
export function input(name: string, episodes: EpisodeRecord[], m: RunManifest | null = manifest()): AblationInput {
  return { name, dir: `runs/${name}`, manifest: m ?? undefined, episodes };
}
