/**
 * `agent-lab ablate` labels its tables and report by the runs' environment, through the real CLI:
 * GSM8K runs (real records, replies graded by the environment's grader) get accuracy and no F1/EM
 * columns and GSM8K's own limitation line; HotpotQA runs on the pipeline's synthetic world (a data
 * folder `prepare` wrote from it) get that world's caveat, also outside the pipeline; HotpotQA runs
 * on other data keep the corpus line.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SYNTHETIC_REPORT, SYNTHETIC_WORLD_SOURCE } from "../../../src/core/steps/ablate/report-environment";
import { environmentInfo } from "../../../src/core/envs/catalog";
import { gradeReply, readGsm8kRecords } from "../../../src/core/envs/gsm8k";
import { prepareData } from "../../../src/core/envs/hotpotqa/prepare";
import { generateSyntheticHotpot } from "../../../src/core/envs/hotpotqa/synthetic-world";
import { sha256File, type RunManifest } from "../../../src/core/base/runs/manifest";
import { appendEpisode, ensureRunDir, type EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../src/core/base/util/atomic-write";
import { summarize } from "../../../src/core/base/runs/summary";
import { requireSharedData } from "../../helpers/shared-data";
import { episode, manifest, type DevRecord } from "../core/steps/ablate/fixtures";
import { runCli } from "./cli-process";

/** The HotpotQA environment's caveat: its corpus is the dataset's own paragraphs. */
const HOTPOTQA_LIMITATION = environmentInfo("hotpotqa")!.limitation;

function writeRun(dir: string, episodes: EpisodeRecord[], m: RunManifest): void {
  ensureRunDir(dir);
  for (const e of episodes) appendEpisode(dir, e);
  writeJsonAtomic(join(dir, "manifest.json"), m);
  writeJsonAtomic(
    join(dir, "summary.json"),
    summarize(episodes, {
      planned: episodes.length,
      seconds: 1,
      status: "done",
      split: m.split.name,
      model: m.policy.model,
    }),
  );
}

describe("cli: agent-lab ablate labels by environment", function () {
  this.timeout(120_000);
  let root: string;
  before(() => (root = mkdtempSync(join(tmpdir(), "agent-lab-ablate-env-"))));
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("GSM8K runs: accuracy with McNemar, no F1/EM or search columns, GSM8K's limitation line", async function () {
    const file = requireSharedData(this, "gsm8k", "test.jsonl");
    const records = (await readGsm8kRecords(file)).slice(0, 120);
    const ws = join(root, "gsm8k");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ env: "gsm8k" }));
    // Base boxes the answer on every third question; the tuned run on two of three (a real gain).
    const run = (right: (q: number) => boolean): EpisodeRecord[] =>
      records.map((r, q) => {
        const reference = r.answer.split("####").at(-1)!.trim().replace(/,/g, "");
        const v = gradeReply(
          right(q) ? `The answer is \\boxed{${reference}}.` : `The answer is \\boxed{${Number(reference) + 1}}.`,
          r.answer,
        );
        const score = v.correct ? 1 : 0;
        return {
          ...episode([{ id: `gsm8k-test-${q}`, question: r.question, answer: v.reference }], 0, "right"),
          prediction: v.extracted ?? "",
          metrics: { correct: score },
          reward: score,
          searches: [],
        };
      });
    const m = (checkpoint: string): RunManifest => {
      const { search: _search, ...rest } = manifest({ checkpoint });
      return {
        ...rest,
        environment: { name: "gsm8k", version: "1" },
        grading: { grader: "gsm8k-cookbook-math-grader-1", format_penalty: 0 },
      } as RunManifest;
    };
    writeRun(
      join(ws, "runs", "base"),
      run((q) => q % 3 === 0),
      m("tinker://r/base"),
    );
    writeRun(
      join(ws, "runs", "grpo"),
      run((q) => q % 3 !== 2),
      m("tinker://r/grpo"),
    );
    const md = join(ws, "report.md");
    const r = await runCli([
      "ablate",
      "base",
      "grpo",
      "--workspace",
      ws,
      "--resamples",
      "2000",
      "--expect",
      "policy.checkpoint",
      "--report",
      md,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const header = r.stdout.split("\n").find((l) => l.startsWith("run "))!;
    assert.deepEqual(header.split(/\s{2,}/), ["run", "accuracy", "95% CI", "answered", "$/q"]);
    assert.match(r.stdout, /Δ accuracy \[95% CI\]\s+b\/c/);
    assert.match(r.stdout, /grpo\s+\+0\.333 \[\+0\.\d{3}, \+0\.\d{3}\]\s+0\/40\s/);
    assert.doesNotMatch(r.stdout, /\bF1\b|\bEM\b|searches/);
    const text = readFileSync(md, "utf8");
    assert.match(text, /^## Results on GSM8K test \(120 questions\)\n/);
    assert.match(
      text,
      /^\| Stage \| accuracy \[95% CI\] \| \$\/q \| Δ accuracy vs base \[95% CI\] \| p \(Holm\) \| Verdict \|$/m,
    );
    assert.match(text, /^\| grpo \| 0\.667 \[0\.\d{3}, 0\.\d{3}\] \| \$0\.0007 \| \+0\.333 .* \| better \|$/m);
    assert.ok(text.includes(`Limitation: ${environmentInfo("gsm8k")!.limitation}`));
    assert.doesNotMatch(text, /corpus|\bF1\b|\bEM\b|Searches/);
  });

  it("HotpotQA runs on the synthetic world carry its caveat outside the pipeline; on other data the corpus line", async function () {
    const ws = join(root, "synthetic");
    mkdirSync(join(ws, "hotpot"), { recursive: true });
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ dataDir: "data", runsDir: "runs" }));
    const world = generateSyntheticHotpot({ seed: 7, train: 20, dev: 80, style: "compact" });
    writeFileSync(join(ws, "hotpot", "train.json"), JSON.stringify(world.train));
    writeFileSync(join(ws, "hotpot", "dev.json"), JSON.stringify(world.dev));
    await prepareData(
      join(ws, "data"),
      {
        trainFiles: [join(ws, "hotpot", "train.json")],
        devFiles: [join(ws, "hotpot", "dev.json")],
        source: `${SYNTHETIC_WORLD_SOURCE} (compact, seed 7)`,
      },
      () => undefined,
      { sizes: { test: 40, val: 30 } },
    );
    const val = readFileSync(join(ws, "data", "val.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; question: string; answers: string[] });
    const dev: DevRecord[] = val.map((q) => ({ id: q.id, question: q.question, answer: q.answers[0] }));
    const on = (sha: string): RunManifest => ({
      ...manifest({ splitSha: sha }),
      split: { name: "val", file: "val.jsonl", sha256: sha },
    });
    const sha = sha256File(join(ws, "data", "val.jsonl"));
    writeRun(
      join(ws, "runs", "a"),
      dev.map((_, q) => episode(dev, q, q % 2 ? "right" : "wrong")),
      on(sha),
    );
    writeRun(
      join(ws, "runs", "b"),
      dev.map((_, q) => episode(dev, q, q % 3 ? "right" : "wrong")),
      on(sha),
    );
    const md = join(ws, "report.md");
    const r = await runCli(["ablate", "a", "b", "--workspace", ws, "--resamples", "1000", "--report", md]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^run\s+F1\s+95% CI\s+EM\s+95% CI\s+searches/m, "HotpotQA keeps its columns");
    let text = readFileSync(md, "utf8");
    assert.match(text, /^## Results on the synthetic world's val /);
    assert.ok(text.includes(`Limitation: ${SYNTHETIC_REPORT.limitation}`));
    assert.ok(!text.includes(HOTPOTQA_LIMITATION));

    // The same runs made on other data (their split file's hash is not the synthetic world's).
    for (const name of ["a", "b"]) writeJsonAtomic(join(ws, "runs", name, "manifest.json"), on("0".repeat(64)));
    const again = await runCli(["ablate", "a", "b", "--workspace", ws, "--resamples", "1000", "--report", md]);
    assert.equal(again.code, 0, again.stderr);
    text = readFileSync(md, "utf8");
    assert.match(text, /^## Results on HotpotQA val /);
    assert.ok(text.includes(`Limitation: ${HOTPOTQA_LIMITATION}`));
  });
});
