import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG, mergeConfig } from "../../../../../src/core/envs/config";
import type { Question } from "../../../../../src/core/base/data/question";
import { episodeUsd, pricesForPolicy } from "../../../../../src/core/steps/eval/cost";
import { runEval, type EvalJob } from "../../../../../src/core/steps/eval/run-eval";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { SUMMARY_FORMAT, type RunSummary } from "../../../../../src/core/base/runs/summary";
import { fakeManifest, fakeRecord } from "../../base/runs/fakes";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const QUESTIONS: Question[] = Array.from({ length: 12 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}?`,
  answers: ["x"],
  type: "bridge",
  level: "hard",
}));

describe("eval/runEval", () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), "agent-lab-eval-")), "run");
  });
  afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

  function job(over: Partial<EvalJob> = {}): EvalJob {
    return {
      runDir: dir,
      questions: QUESTIONS,
      manifest: fakeManifest(),
      resume: false,
      concurrency: 3,
      runQuestion: async (q) => fakeRecord(q.id, { f1: Number(q.id.slice(1)) % 2 }),
      split: "val",
      model: "m",
      ...over,
    };
  }

  it("runs every question once with bounded concurrency and prints progress", async () => {
    let inFlight = 0;
    let peak = 0;
    const lines: string[] = [];
    const { summary } = await runEval(
      job({
        log: (l) => lines.push(l),
        runQuestion: async (q) => {
          peak = Math.max(peak, ++inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          return fakeRecord(q.id, { f1: 0.5 });
        },
      }),
    );
    assert.equal(peak, 3);
    assert.equal(summary.n, 12);
    assert.equal(summary.status, "done");
    assert.equal(readEpisodes(dir, environmentMetrics).length, 12);
    assert.equal(lines.at(-1), "  12/12  F1 so far 0.500");
    const onDisk = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as RunSummary;
    assert.equal(onDisk.status, "done");
    assert.equal(onDisk.format, SUMMARY_FORMAT, "a fresh eval writes the current summary format");
    assert.deepEqual(onDisk.metrics, { em: 1, f1: 0.5 }, "the mean of every declared metric, by name");
    assert.equal("em" in onDisk || "f1" in onDisk, false, "no format-1 slots");
  });

  it("refuses to overwrite an existing run without --resume", async () => {
    await runEval(job({ questions: QUESTIONS.slice(0, 2) }));
    await assert.rejects(runEval(job()), /already holds a run: pass --resume/);
  });

  it("an abort starts nothing new, keeps finished episodes and marks the run interrupted; resume finishes it without duplicates", async () => {
    const controller = new AbortController();
    let started = 0;
    const first = await runEval(
      job({
        signal: controller.signal,
        runQuestion: async (q) => {
          if (++started === 5) controller.abort();
          await new Promise((r) => setTimeout(r, 2));
          return fakeRecord(q.id);
        },
      }),
    );
    assert.equal(first.summary.status, "interrupted");
    const partial = readEpisodes(dir, environmentMetrics).map((e) => e.id);
    assert.ok(partial.length >= 5 && partial.length < 12, `kept ${partial.length}`);

    const asked: string[] = [];
    const second = await runEval(
      job({
        resume: true,
        runQuestion: async (q) => {
          asked.push(q.id);
          return fakeRecord(q.id);
        },
      }),
    );
    assert.equal(second.resumed, partial.length);
    assert.deepEqual(
      asked.sort(),
      QUESTIONS.map((q) => q.id)
        .filter((id) => !partial.includes(id))
        .sort(),
    );
    const ids = readEpisodes(dir, environmentMetrics).map((e) => e.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(ids.length, 12);
    assert.equal(second.summary.status, "done");
  });

  it("resume refuses when the fingerprint changed, naming the fields", async () => {
    await runEval(job({ questions: QUESTIONS.slice(0, 2) }));
    const changed = fakeManifest();
    changed.search!.top_k = 7;
    changed.sampling.temperature = 1;
    await assert.rejects(
      runEval(job({ resume: true, manifest: changed })),
      /sampling\.temperature: 0 → 1; search\.top_k: 3 → 7/,
    );
    await assert.rejects(runEval(job({ resume: true, runDir: join(dir, "..", "other") })), /nothing to resume/);
  });

  it("an episode that throws fails the run with status failed and keeps what finished", async () => {
    await assert.rejects(
      runEval(
        job({
          concurrency: 1,
          runQuestion: async (q) => {
            if (q.id === "q3") throw new Error("sampler exploded");
            return fakeRecord(q.id);
          },
        }),
      ),
      /sampler exploded/,
    );
    const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as RunSummary;
    assert.equal(s.status, "failed");
    assert.deepEqual(
      readEpisodes(dir, environmentMetrics).map((e) => e.id),
      ["q0", "q1", "q2"],
    );
  });
});

describe("eval/cost", () => {
  it("charges Tinker policies from the price table and scripted/local ones nothing", () => {
    const prices = pricesForPolicy(DEFAULT_CONFIG, { kind: "tinker", model: "Qwen/Qwen3.5-4B", logprobs: true });
    assert.deepEqual(prices, DEFAULT_CONFIG.prices["Qwen/Qwen3.5-4B"]);
    // 1M prefill at 0.33 + 1M sampled at 1.005
    assert.ok(Math.abs(episodeUsd(prices, 1_000_000, 1_000_000) - 1.335) < 1e-9);
    assert.ok(Math.abs(episodeUsd(prices, 2000, 100) - (2000 * 0.33 + 100 * 1.005) / 1e6) < 1e-15);
    assert.equal(pricesForPolicy(DEFAULT_CONFIG, { kind: "scripted", model: "anything", logprobs: false }), null);
    assert.equal(episodeUsd(null, 5000, 500), 0);
  });

  it("refuses a paid model with no price before anything is spent, and uses a workspace price when given", () => {
    assert.throws(
      () => pricesForPolicy(DEFAULT_CONFIG, { kind: "tinker", model: "Qwen/Qwen3-8B", logprobs: true }),
      /no price for model "Qwen\/Qwen3-8B"/,
    );
    const config = mergeConfig({ prices: { "Qwen/Qwen3-8B": { prefill: 1, sample: 2, train: 3 } } });
    const p = pricesForPolicy(config, { kind: "tinker", model: "Qwen/Qwen3-8B", logprobs: true });
    assert.equal(episodeUsd(p, 1e6, 1e6), 3);
  });
});
