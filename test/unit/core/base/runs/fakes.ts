/** Small hand-made run records shared by the run-folder and eval tests. */
import type { RunManifest } from "../../../../../src/core/base/runs/manifest";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { EPISODE_FORMAT } from "../../../../../src/core/base/runs/episode-v1";

/** A record's fields to override; `em`/`f1` set HotpotQA's metrics of those names (the v1 slots' spelling, shorter in tests). */
export type RecordOverrides = Partial<EpisodeRecord> & { em?: number; f1?: number };

export function fakeRecord(id: string, over: RecordOverrides = {}): EpisodeRecord {
  const { em = 1, f1 = 1, ...rest } = over;
  return {
    format: EPISODE_FORMAT,
    id,
    question: `question ${id}?`,
    answers: ["Paris"],
    prediction: "Paris",
    metrics: { em, f1 },
    reward: 1,
    end: "answer",
    searches: ["capital of France"],
    prompt: [1, 2, 3],
    tokens: [4, 5, 6, 7],
    sampled: [1, 1, 0, 1],
    logprobs: [-0.1, -0.2, 0, -0.3],
    prefill: 10,
    generated: 3,
    usd: 0.001,
    ...rest,
  };
}

export function fakeManifest(): RunManifest {
  return {
    format: 1,
    split: { name: "val", file: "val.jsonl", sha256: "aa" },
    test_split: { opened: false },
    system_prompt: { file: "(default)", sha256: "bb" },
    harness_version: "1",
    scorer_version: "1",
    policy: { kind: "tinker", model: "Qwen/Qwen3.5-4B", logprobs: true },
    sampling: { temperature: 0, max_tokens: 512 },
    tokenizer: "qwen3",
    search: { closed_book: false, top_k: 3, max_searches: 5, searcher: { kind: "bm25", index_sha256: "cc" } },
    job: { command: ["eval", "--name", "x"], created: "2026-11-29T00:00:00Z", concurrency: 32 },
  };
}
