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

/** What a format-1 summary.json held besides its two metric slots (builds before summary format 2). */
export interface FormatOneSummaryFields {
  n: number;
  planned?: number;
  /** The mean of the environment's binary metric (GSM8K: its accuracy). */
  em: number;
  /** The mean of its primary metric (GSM8K: the same accuracy). */
  f1: number;
  searches_per_q?: number;
  answered?: number;
  ends?: Record<string, number>;
  usd_per_q?: number;
  usd_total?: number;
  seconds?: number;
  status?: string;
  split?: string;
  model?: string;
  checkpoint?: string;
}

/**
 * A summary.json exactly as builds before summary format 2 wrote it: no `format`, the binary and
 * the primary metric's means in the top-level slots `em` and `f1`, the keys in that build's order.
 */
export function formatOneSummary(o: FormatOneSummaryFields): Record<string, unknown> {
  const usdPerQ = o.usd_per_q ?? 0.001;
  return {
    n: o.n,
    planned: o.planned ?? o.n,
    em: o.em,
    f1: o.f1,
    searches_per_q: o.searches_per_q ?? 0,
    answered: o.answered ?? 1,
    ends: o.ends ?? { answer: o.n },
    usd_per_q: usdPerQ,
    usd_total: o.usd_total ?? usdPerQ * o.n,
    seconds: o.seconds ?? 7,
    status: o.status ?? "done",
    split: o.split ?? "val",
    model: o.model ?? "Qwen/Qwen3.5-4B",
    ...(o.checkpoint ? { checkpoint: o.checkpoint } : {}),
    updated: "2026-11-29T00:00:00.000Z",
  };
}
