/**
 * Runs written before metrics were declared (format 1: top-level `em`/`f1`, no `format`) open and
 * read back with the same numbers through every reader: readEpisodes, the episode index, the
 * summary and ablate — HotpotQA's slots as its `em`/`f1`, GSM8K's as its one `correct`.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  EPISODE_FORMAT,
  normaliseEpisode,
  replaceV1Slots,
  v1Slots,
} from "../../../../../src/core/base/runs/episode-v1";
import { indexEpisodes } from "../../../../../src/core/base/runs/episode-index";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { summarize } from "../../../../../src/core/base/runs/summary";
import { GSM8K_INFO } from "../../../../../src/core/envs/gsm8k/info";
import { HOTPOTQA_INFO } from "../../../../../src/core/envs/hotpotqa/info";
import { ablate } from "../../../../../src/core/steps/ablate/ablate";
import type { RunManifest } from "../../../../../src/core/base/runs/manifest";
import { environmentMetrics, environmentRoles } from "../../../../../src/core/envs/catalog";
import { metricRoles, UNKNOWN_ENV_METRICS } from "../../../../../src/core/base/runs/metrics";

const v1 = (id: string, em: number, f1: number) =>
  JSON.stringify({
    id,
    question: `q ${id}`,
    answers: ["a"],
    prediction: "a",
    em,
    f1,
    reward: f1,
    end: "answer",
    searches: [],
    prompt: [1],
    tokens: [2],
    sampled: [1],
    logprobs: null,
    prefill: 1,
    generated: 1,
    usd: 0,
  });

describe("runs/episode-v1: format-1 records read as the current format", () => {
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), "agent-lab-v1-"))));
  after(() => rmSync(root, { recursive: true, force: true }));

  const writeRun = (name: string, lines: string[], manifest?: object) => {
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(join(dir, "episodes.jsonl"), lines.map((l) => l + "\n").join(""));
    if (manifest) writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    return dir;
  };

  it("puts metrics where em stood, in the same key order, with the current format", () => {
    const row = normaliseEpisode(JSON.parse(v1("x", 1, 0.5)) as Record<string, unknown>, HOTPOTQA_INFO.metrics);
    assert.deepEqual(Object.keys(row).slice(0, 7), [
      "format",
      "id",
      "question",
      "answers",
      "prediction",
      "metrics",
      "reward",
    ]);
    assert.deepEqual(row.metrics, { em: 1, f1: 0.5 });
    assert.equal(row.format, EPISODE_FORMAT);
  });

  it("a HotpotQA v1 run (no environment in its manifest): same EM and F1 in records, index, summary and ablate", () => {
    const a = writeRun("hot-a", [v1("1", 1, 1), v1("2", 0, 0.5), v1("3", 0, 0)]);
    const b = writeRun("hot-b", [v1("1", 1, 1), v1("2", 1, 1), v1("3", 0, 0.25)]);
    const eps = readEpisodes(a, environmentMetrics, ["id", "metrics"]);
    assert.deepEqual(
      eps.map((e) => e.metrics),
      [
        { em: 1, f1: 1 },
        { em: 0, f1: 0.5 },
        { em: 0, f1: 0 },
      ],
    );
    assert.deepEqual(
      indexEpisodes(a, environmentMetrics).episodes.map((e) => e.head.metrics.f1),
      [1, 0.5, 0],
    );
    const s = summarize(eps, {
      planned: 3,
      seconds: 0,
      status: "done",
      split: "val",
      model: "m",
      metrics: HOTPOTQA_INFO.metrics,
    });
    assert.deepEqual(s.metrics, { em: 1 / 3, f1: 0.5 });
    const report = ablate(
      [
        { name: "a", dir: a, manifest: undefined, episodes: eps },
        { name: "b", dir: b, manifest: undefined, episodes: readEpisodes(b, environmentMetrics, ["id", "metrics"]) },
      ],
      { resamples: 200 },
    );
    assert.equal(report.runs[0].primary.mean, 0.5);
    assert.equal(report.runs[1].binary.mean, 2 / 3);
  });

  it("a GSM8K v1 run (em = f1 = the grader's verdict): read as its declared `correct`", () => {
    const manifest = { environment: { name: "gsm8k", version: "1" } };
    const dir = writeRun("gsm", [v1("1", 1, 1), v1("2", 0, 0), v1("3", 1, 1), v1("4", 1, 1)], manifest);
    const eps = readEpisodes(dir, environmentMetrics, ["id", "metrics"]);
    assert.deepEqual(
      eps.map((e) => e.metrics),
      [{ correct: 1 }, { correct: 0 }, { correct: 1 }, { correct: 1 }],
    );
    const s = summarize(eps, {
      planned: 4,
      seconds: 0,
      status: "done",
      split: "test",
      model: "m",
      metrics: GSM8K_INFO.metrics,
    });
    assert.deepEqual(s.metrics, { correct: 0.75 });
    const report = ablate([{ name: "g", dir, manifest: manifest as unknown as RunManifest, episodes: eps }], {
      resamples: 200,
    });
    assert.equal(report.runs[0].binary.mean, 0.75);
  });
  // What the builds before format 2 read each environment's v1 slots as (a table keyed by environment
  // name, until the slots were derived from the declarations): the derivation must give the same.
  const FORMAT_1_READING: Record<string, { em?: string; f1?: string }> = {
    hotpotqa: { em: "em", f1: "f1" },
    gsm8k: { em: "correct" },
    "no-such-environment": { em: "em", f1: "f1" },
  };
  const parse = (line: string) => JSON.parse(line) as Record<string, unknown>;

  for (const [env, slots] of Object.entries(FORMAT_1_READING)) {
    it(`${env}: the declarations read a v1 record as the per-environment table did`, () => {
      for (const [em, f1] of [
        [1, 1],
        [0, 0],
        [1, 0.5],
        [0, 1],
      ]) {
        const line = parse(v1("x", em, f1));
        assert.deepEqual(
          normaliseEpisode(line, environmentMetrics(env)),
          replaceV1Slots(line, slots, EPISODE_FORMAT),
          `em ${em}, f1 ${f1}`,
        );
      }
    });
  }

  it("an environment this build does not know reads with the v1 slots' own names (UNKNOWN_ENV_METRICS)", () => {
    assert.deepEqual(v1Slots(metricRoles(UNKNOWN_ENV_METRICS)), { em: "em", f1: "f1" });
    const dir = writeRun("unknown", [v1("1", 1, 1), v1("2", 0, 0.25)], {
      environment: { name: "no-such-environment", version: "3" },
    });
    assert.deepEqual(
      readEpisodes(dir, environmentMetrics, ["id", "metrics"]).map((e) => e.metrics),
      [
        { em: 1, f1: 1 },
        { em: 0, f1: 0.25 },
      ],
    );
    assert.deepEqual(
      indexEpisodes(dir, environmentMetrics).episodes.map((e) => e.head.metrics),
      [
        { em: 1, f1: 1 },
        { em: 0, f1: 0.25 },
      ],
    );
  });

  it("one metric in both roles: both slots name it and the em slot's value is read (as before: GSM8K's em)", () => {
    assert.deepEqual(v1Slots(environmentRoles("gsm8k")), { em: "correct", f1: "correct" });
    const dir = writeRun("gsm-odd", [v1("1", 1, 0), v1("2", 0, 1)], { environment: { name: "gsm8k", version: "1" } });
    assert.deepEqual(
      readEpisodes(dir, environmentMetrics, ["id", "metrics"]).map((e) => e.metrics),
      [{ correct: 1 }, { correct: 0 }],
    );
    assert.deepEqual(
      indexEpisodes(dir, environmentMetrics).episodes.map((e) => e.head.metrics),
      [{ correct: 1 }, { correct: 0 }],
    );
  });
});
