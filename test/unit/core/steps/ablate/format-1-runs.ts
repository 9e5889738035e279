/**
 * The runs the format-1 report files in format-1/ were made from (by the build before role keys,
 * `agent-lab ablate` of that day): small, seeded, no shared data, so a test can make them again and
 * check that the file reads back with the numbers today's ablate computes from the same runs.
 */
import { EPISODE_FORMAT } from "../../../../../src/core/base/runs/episode-v1";
import type { RunManifest } from "../../../../../src/core/base/runs/manifest";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { Xoshiro128 } from "../../../../../src/core/base/stats/prng";
import type { AblationInput } from "../../../../../src/core/steps/ablate";
import { manifest } from "./fixtures";

/** When the files were made (the report's `created`). */
export const FORMAT_1_CREATED = new Date("2026-12-01T00:00:00Z");
export const FORMAT_1_RESAMPLES = 500;

function record(id: string, metrics: Record<string, number>, searches: number, usd: number): EpisodeRecord {
  const answered = searches < 3;
  return {
    id,
    question: `question ${id}?`,
    answers: [`answer ${id}`],
    format: EPISODE_FORMAT,
    prediction: answered ? `prediction ${id}` : "",
    metrics,
    reward: Object.values(metrics).at(-1) ?? 0,
    end: answered ? "answer" : "budget",
    searches: Array.from({ length: searches }, (_, k) => `query ${k}`),
    prompt: [1, 2, 3],
    tokens: [4, 5],
    sampled: [1, 1],
    logprobs: [-0.1, -0.2],
    prefill: 2000,
    generated: 80,
    usd,
  };
}

/** Partial-credit runs with a binary and a primary metric in the v1 record slots: baseline, a better one, a different checkpoint. */
export function twoMetricRuns(): AblationInput[] {
  return ["base", "better", "other"].map((name, k) => {
    const rng = new Xoshiro128(11, k);
    const episodes = Array.from({ length: 40 }, (_, q) => {
      const u = rng.nextFloat();
      const right = u < 0.3 + 0.15 * k;
      const partial = !right && u < 0.55 + 0.1 * k;
      const f1 = right ? 1 : partial ? Math.round(rng.nextFloat() * 6) / 8 : 0;
      return record(`q${String(q).padStart(2, "0")}`, { em: right ? 1 : 0, f1 }, q % 4, 0.0005 + 0.0001 * k);
    });
    const m: RunManifest = k === 2 ? manifest({ checkpoint: "sft-e1" }) : manifest();
    return { name, dir: `runs/${name}`, manifest: m, episodes: k === 1 ? episodes.slice(2) : episodes };
  });
}

/** Right/wrong runs of an environment whose one metric holds both roles, without tools. */
export function oneMetricRuns(environment: { name: string; version: string }): AblationInput[] {
  return ["base", "tuned"].map((name, k) => {
    const rng = new Xoshiro128(5, k);
    const episodes = Array.from({ length: 30 }, (_, q) =>
      record(`g${q}`, { correct: rng.nextFloat() < 0.4 + 0.2 * k ? 1 : 0 }, 0, 0.0002),
    );
    const { search: _search, ...rest } = manifest();
    const m = { ...rest, environment } as RunManifest;
    return { name, dir: `runs/${name}`, manifest: m, episodes };
  });
}
