import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { GSM8K_INFO } from "../../../src/core/envs/gsm8k/info";
import type { MetricDeclaration } from "../../../src/core/base/runs/metrics";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { summarize } from "../../../src/core/base/runs/summary";
import { exactMatch, f1Score } from "../../../src/core/envs/hotpotqa/score";
import { gradeReply, readGsm8kRecords } from "../../../src/core/envs/gsm8k";
import {
  EpisodeGroupCache,
  groupEpisodes,
  listRunRows,
  outcomeOf,
  previousComparableRun,
} from "../../../src/extension/runs/runs-model";
import { spendReport } from "../../../src/extension/workspace/spend";
import { requireSharedData } from "../../helpers/shared-data";
import { formatOneSummary } from "../core/base/runs/fakes";

interface HotpotRecord {
  id: string;
  question: string;
  answer: string;
}

/** Episodes over real HotpotQA questions; predictions chosen to land in every outcome. */
function episodesFrom(records: HotpotRecord[], usd: number): EpisodeRecord[] {
  const ends = ["answer", "answer", "answer", "no_action", "budget", "length"];
  return records.map((r, i) => {
    const end = ends[i % ends.length];
    const prediction = end !== "answer" ? "" : i % 2 === 0 ? r.answer : "not the answer";
    const em = exactMatch(prediction, [r.answer]);
    const f1 = f1Score(prediction, [r.answer]);
    return {
      format: 2,
      id: r.id,
      question: r.question,
      answers: [r.answer],
      prediction,
      metrics: { em, f1 },
      reward: end === "answer" ? f1 : 0,
      end,
      searches: [r.question.split(" ").slice(0, 3).join(" ")],
      prompt: [1, 2],
      tokens: [3],
      sampled: [1],
      logprobs: null,
      prefill: 2000,
      generated: 80,
      usd,
    };
  });
}

function writeRun(
  runsDir: string,
  name: string,
  episodes: EpisodeRecord[],
  status: "running" | "done" | "interrupted",
  split: "val" | "test" = "val",
  metrics?: readonly MetricDeclaration[],
): string {
  const dir = join(runsDir, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "episodes.jsonl"), episodes.map((e) => JSON.stringify(e) + "\n").join(""));
  writeFileSync(
    join(dir, "summary.json"),
    JSON.stringify(summarize(episodes, { planned: 20, seconds: 3, status, split, model: "Qwen/Qwen3.5-4B", metrics })),
  );
  return dir;
}

describe("extension: Runs view model (real HotpotQA questions)", () => {
  let runsDir: string;
  let records: HotpotRecord[];
  before(function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    records = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .slice(0, 12)
      .map((l) => JSON.parse(l) as HotpotRecord);
  });
  beforeEach(() => (runsDir = mkdtempSync(join(tmpdir(), "agent-lab-runs-view-"))));
  afterEach(() => rmSync(runsDir, { recursive: true, force: true }));

  it("one row per run with split, n, F1/EM, $/question and status; newest first; hidden folders skipped", () => {
    const old = writeRun(runsDir, "base", episodesFrom(records, 0.001), "done");
    utimesSync(join(old, "summary.json"), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    utimesSync(join(old, "episodes.jsonl"), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    writeRun(runsDir, "sft-e2", episodesFrom(records.slice(0, 10), 0), "interrupted");
    mkdirSync(join(runsDir, ".jobs"));
    mkdirSync(join(runsDir, "not-a-run"));
    const rows = listRunRows(runsDir);
    assert.deepEqual(
      rows.map((r) => r.name),
      ["sft-e2", "base"],
    );
    const base = rows[1];
    const s = base.summary!;
    assert.equal(base.status, "done");
    assert.equal(base.kind, "eval");
    assert.equal(
      base.description,
      `hotpotqa · val · n=12/20 · F1 ${s.metrics.f1.toFixed(3)} · EM ${s.metrics.em.toFixed(3)} · $0.0010/q`,
    );
    assert.equal(base.environment, "hotpotqa", "a run whose manifest names no environment is HotpotQA's");
    assert.match(base.tooltip, /cost \$0\.01 total, \$0\.0010\/question/);
    assert.match(rows[0].description, /· interrupted$/);
  });

  it("a training run (metrics.jsonl; GRPO also writes episodes) shows its last step and keeps its rollouts browsable", () => {
    const dir = join(runsDir, "grpo");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "metrics.jsonl"),
      [
        { step: 1, reward: 0.31, usd: 0.5 },
        { step: 2, reward: 0.4123, usd: 1.2 },
      ]
        .map((m) => JSON.stringify(m) + "\n")
        .join("") + '{"step": 3, "rew',
    );
    writeFileSync(
      join(dir, "episodes.jsonl"),
      episodesFrom(records.slice(0, 3), 0)
        .map((e) => JSON.stringify(e) + "\n")
        .join(""),
    );
    const sft = join(runsDir, "sft");
    mkdirSync(sft);
    writeFileSync(join(sft, "metrics.jsonl"), JSON.stringify({ step: 47, loss: 0.8123 }) + "\n");
    const rows = listRunRows(runsDir);
    const grpo = rows.find((r) => r.name === "grpo")!;
    assert.equal(grpo.kind, "training");
    assert.ok(grpo.hasEpisodes);
    assert.equal(grpo.description, "training · step 2 · reward 0.412 · $1.20");
    const s = rows.find((r) => r.name === "sft")!;
    assert.equal(s.description, "training · step 47 · loss 0.812");
    assert.ok(!s.hasEpisodes);
    assert.doesNotMatch(s.tooltip, /status/, "no file records a training run's status: the tooltip says none");
  });

  it("a summary left 'running' by a killed job shows as stopped unless a live job writes the folder", () => {
    const dir = writeRun(runsDir, "k9", episodesFrom(records.slice(0, 3), 0), "running");
    assert.equal(listRunRows(runsDir)[0].status, "stopped");
    assert.equal(listRunRows(runsDir, new Set([dir]))[0].status, "running");
  });

  it("an sft-data run takes its status from its lineage manifest", () => {
    const dir = join(runsDir, "sft-data-status");
    mkdirSync(dir);
    writeFileSync(join(dir, "sft.jsonl"), "");
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ status: "interrupted" }));
    const row = listRunRows(runsDir).find((r) => r.name === "sft-data-status")!;
    assert.equal(row.kind, "sft-data");
    assert.equal(row.status, "interrupted");
    rmSync(dir, { recursive: true });
  });

  it("an unreadable summary is shown with a warning, not hidden", () => {
    const dir = join(runsDir, "torn");
    mkdirSync(dir);
    writeFileSync(join(dir, "summary.json"), '{"n": 3, ');
    const [row] = listRunRows(runsDir);
    assert.equal(row.name, "torn");
    assert.match(row.description, /unreadable file/);
    assert.match(row.problem!, /summary\.json/);
  });

  it("episodes grouped by outcome in reading order, each with question, F1 and prediction", () => {
    const eps = episodesFrom(records, 0);
    const groups = groupEpisodes(eps);
    assert.deepEqual(
      groups.map((g) => g.outcome),
      ["correct", "wrong", "no_action", "budget", "length"],
    );
    assert.equal(
      groups.reduce((n, g) => n + g.episodes.length, 0),
      eps.length,
    );
    for (const g of groups)
      for (const row of g.episodes)
        assert.equal(
          outcomeOf(eps.find((e) => e.id === row.id)!.end, eps.find((e) => e.id === row.id)!.metrics.em),
          g.outcome,
        );
    const correct = groups[0].episodes[0];
    const rec = eps.find((e) => e.id === correct.id)!;
    assert.equal(correct.label, rec.question.length > 80 ? rec.question.slice(0, 79) + "…" : rec.question);
    assert.match(correct.description, /^F1 1\.00 · 1 search · “/);
    assert.match(correct.tooltip, new RegExp(`gold: ${rec.answers[0].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    assert.match(groups[0].description, /^\d+ \(\d+%\)$/);
  });

  it("a GSM8K run shows its environment and accuracy (one metric, no searches), its episodes too", async function () {
    const file = requireSharedData(this, "gsm8k", "test.jsonl");
    const recs = (await readGsm8kRecords(file)).slice(0, 8);
    // Replies graded by the environment's own grader: boxed right, boxed wrong, unboxed.
    const eps: EpisodeRecord[] = recs.map((r, i) => {
      const reference = r.answer.split("####").at(-1)!.trim().replace(/,/g, "");
      const reply =
        i % 3 === 0
          ? `So \\boxed{${reference}}`
          : i % 3 === 1
            ? `So \\boxed{${Number(reference) + 1}}`
            : `It is ${reference}.`;
      const v = gradeReply(reply, r.answer);
      const score = v.correct ? 1 : 0;
      return {
        id: `gsm8k-test-${i}`,
        question: r.question,
        answers: [v.reference],
        prediction: v.extracted ?? "",
        format: 2,
        metrics: { correct: score },
        reward: score,
        end: v.extracted === undefined ? "no_action" : "answer",
        searches: [],
        prompt: [1],
        tokens: [2],
        sampled: [1],
        logprobs: null,
        prefill: 100,
        generated: 20,
        usd: 0,
      };
    });
    const dir = writeRun(runsDir, "gsm8k-base", eps, "done", "test", GSM8K_INFO.metrics);
    writeFileSync(
      join(dir, "manifest.json"),
      JSON.stringify({
        environment: { name: "gsm8k", version: "1" },
        split: { name: "test", file: "test.jsonl", sha256: "x" },
        system_prompt: { file: "(none)", sha256: "e3b0c44298fc" },
      }),
    );
    const row = listRunRows(runsDir)[0];
    const acc = eps.filter((e) => e.metrics.correct === 1).length / eps.length;
    assert.equal(row.environment, "gsm8k");
    assert.equal(row.description, `gsm8k · test · n=8/20 · accuracy ${acc.toFixed(3)} · $0/q`);
    assert.doesNotMatch(row.tooltip, /F1|EM|searches|top-k/);
    assert.match(row.tooltip, /environment gsm8k/);
    const groups = new EpisodeGroupCache().groups(dir, row.environment);
    const right = groups.find((g) => g.outcome === "correct")!.episodes[0];
    assert.match(right.description, /^accuracy 1 · “\d+”$/);
    assert.doesNotMatch(right.tooltip, /F1|EM /);
  });

  it("a format-1 summary.json of each environment (as an older build wrote it) shows the numbers format 2 shows", () => {
    const hotpot = episodesFrom(records, 0.001);
    const gsm8k = hotpot.map((e) => ({ ...e, metrics: { correct: e.metrics.em }, searches: [] }));
    const gsm8kManifest = JSON.stringify({ environment: { name: "gsm8k", version: "1" } });
    for (const [env, eps, metrics] of [
      ["hotpotqa", hotpot, undefined],
      ["gsm8k", gsm8k, GSM8K_INFO.metrics],
    ] as const) {
      const fresh = writeRun(runsDir, `${env}-format2`, eps, "done", "val", metrics);
      const old = writeRun(runsDir, `${env}-format1`, eps, "done", "val", metrics);
      if (env === "gsm8k") for (const d of [fresh, old]) writeFileSync(join(d, "manifest.json"), gsm8kManifest);
      const s = JSON.parse(readFileSync(join(fresh, "summary.json"), "utf8"));
      // What the build before summary format 2 wrote: the binary and primary means as `em` and `f1`.
      const [binary, primary] = env === "gsm8k" ? [s.metrics.correct, s.metrics.correct] : [s.metrics.em, s.metrics.f1];
      writeFileSync(join(old, "summary.json"), JSON.stringify(formatOneSummary({ ...s, em: binary, f1: primary })));
    }
    const rows = new Map(listRunRows(runsDir).map((r) => [r.name, r]));
    for (const env of ["hotpotqa", "gsm8k"]) {
      const [fresh, old] = [rows.get(`${env}-format2`)!, rows.get(`${env}-format1`)!];
      assert.equal(old.problem, undefined);
      assert.equal(old.description, fresh.description, env);
      assert.equal(old.tooltip.split("\n").slice(1).join("\n"), fresh.tooltip.split("\n").slice(1).join("\n"), env);
      assert.deepEqual(old.summary!.metrics, fresh.summary!.metrics, env);
    }
    const acc = gsm8k.filter((e) => e.metrics.correct === 1).length / gsm8k.length;
    assert.match(rows.get("gsm8k-format1")!.description, new RegExp(`· accuracy ${acc.toFixed(3)} ·`));
    const f1 = hotpot.reduce((t, e) => t + e.metrics.f1, 0) / hotpot.length;
    assert.match(rows.get("hotpotqa-format1")!.description, new RegExp(`· F1 ${f1.toFixed(3)} · EM `));
  });

  it("the episode cache rereads only when episodes.jsonl changed", () => {
    const dir = writeRun(runsDir, "live", episodesFrom(records.slice(0, 4), 0), "running");
    const cache = new EpisodeGroupCache();
    const first = cache.groups(dir);
    assert.equal(cache.groups(dir), first, "same object: not reread");
    writeFileSync(
      join(dir, "episodes.jsonl"),
      episodesFrom(records.slice(0, 6), 0)
        .map((e) => JSON.stringify(e) + "\n")
        .join(""),
    );
    assert.equal(
      cache.groups(dir).reduce((n, g) => n + g.episodes.length, 0),
      6,
    );
  });

  it("'compare with previous' picks the newest earlier eval on the same split; spend sums run summaries", () => {
    const a = writeRun(runsDir, "a", episodesFrom(records.slice(0, 4), 0.002), "done");
    const t = writeRun(runsDir, "t", episodesFrom(records.slice(0, 4), 0.5), "done", "test");
    const b = writeRun(runsDir, "b", episodesFrom(records.slice(0, 4), 0.001), "done");
    const past = new Date(Date.now() - 3 * 86400_000);
    for (const [dir, ago] of [
      [a, 120_000],
      [t, 60_000],
    ] as const) {
      for (const f of ["summary.json", "episodes.jsonl"])
        utimesSync(join(dir, f), new Date(Date.now() - ago), new Date(Date.now() - ago));
    }
    const rows = listRunRows(runsDir);
    assert.equal(previousComparableRun(rows, b)!.name, "a", "the test-split run is not comparable");
    assert.equal(previousComparableRun(rows, a), undefined);
    const spend = spendReport(runsDir);
    assert.ok(Math.abs(spend.totalUsd - (0.008 + 2 + 0.004)) < 1e-9);
    // A run without a ledger counts today by its summary's update time.
    const summary = JSON.parse(readFileSync(join(t, "summary.json"), "utf8"));
    writeFileSync(join(t, "summary.json"), JSON.stringify({ ...summary, updated: past.toISOString() }));
    const later = spendReport(runsDir);
    assert.ok(Math.abs(later.todayUsd - 0.012) < 1e-9, `today ${later.todayUsd}`);
    assert.deepEqual(
      later.perRun.map((r) => [r.name, r.source]),
      [
        ["a", "summary"],
        ["b", "summary"],
        ["t", "summary"],
      ],
    );
  });
});
