/**
 * `score RUN`'s rescoring through the run's environment: stale scores are recomputed from the
 * records (HotpotQA: EM/F1 of the prediction; GSM8K: the grader's verdict on the extracted answer,
 * with the run's format penalty), a freshly evaluated run of either reads back with exactly its
 * recorded numbers, and a run of an environment this build does not know is refused in one line.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { rescoreRun } from "../../../../../src/core/steps/eval/rescore";
import { appendEpisode, episodesPath, readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../../../src/core/base/util/atomic-write";
import { summarize, SUMMARY_FORMAT } from "../../../../../src/core/base/runs/summary";
import { SCORER_VERSION } from "../../../../../src/core/envs/hotpotqa/score";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { GSM8K } from "../../../../../src/core/envs/gsm8k/environment";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import { TEST_SPLIT_FLAG } from "../../../../../src/core/steps/eval/eval-split";
import { DEMO_SEED } from "../../../../../src/core/steps/demo/run-demo";
import { fakeManifest, fakeRecord } from "../../base/runs/fakes";
import { capturedOutput } from "../../base/data/helpers";
import { run as scoreCli } from "../../../../../src/cli/score";
import { sharedDataPath } from "../../../../helpers/shared-data";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";
import { scriptedEval } from "../../../../helpers/scripted-eval";
import { behaviourOf, questionOf, replyFor, writeFixtureTwin } from "../../envs/gsm8k/fixture";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const summaryOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, "summary.json"), "utf8"));

describe("eval/rescoreRun", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-rescore-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("recomputes EM/F1/reward from prediction and answers, rewrites episodes and summary, drops a torn tail", () => {
    // Stale scores on disk (as if written by an older scorer).
    appendEpisode(
      dir,
      fakeRecord("a", { prediction: "President Richard Nixon", answers: ["Richard Nixon"], em: 1, f1: 1, reward: 1 }),
    );
    appendEpisode(
      dir,
      fakeRecord("b", {
        prediction: "the Eiffel Tower",
        answers: ["Eiffel Tower"],
        em: 0,
        f1: 0,
        reward: 0,
        end: "budget",
      }),
    );
    appendFileSync(episodesPath(dir), '{"id":"c","torn');
    const eps = readEpisodes(dir, environmentMetrics);
    writeJsonAtomic(
      join(dir, "summary.json"),
      summarize(eps, { planned: 3, seconds: 9, status: "interrupted", split: "val", model: "m" }),
    );
    writeJsonAtomic(join(dir, "manifest.json"), { ...fakeManifest(), scorer_version: "old" });

    const r = rescoreRun(dir);
    assert.equal(r.summary.n, 2);
    assert.equal(r.changed, 2);
    const [a, b] = readEpisodes(dir, environmentMetrics);
    assert.equal(a.metrics.em, 0);
    assert.ok(Math.abs(a.metrics.f1 - 0.8) < 1e-12);
    assert.ok(Math.abs(a.reward - 0.8) < 1e-12);
    assert.equal(b.metrics.em, 1);
    assert.equal(b.metrics.f1, 1);
    assert.equal(b.reward, 0, "no reward when the episode did not end with an answer");
    const s = summaryOf(dir);
    assert.equal(s.format, SUMMARY_FORMAT);
    assert.ok(Math.abs(s.metrics.f1 - 0.9) < 1e-12);
    assert.equal(s.metrics.em, 0.5);
    assert.equal(s.status, "interrupted");
    assert.equal(s.seconds, 9);
    assert.equal(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")).scorer_version, SCORER_VERSION);
    assert.ok(readFileSync(episodesPath(dir), "utf8").endsWith("}\n"));
    assert.equal(rescoreRun(dir).changed, 0, "idempotent");
  });

  it("refuses a run of an environment this build does not know, in one line naming it, and writes nothing", () => {
    appendEpisode(dir, fakeRecord("a"));
    const manifest = { ...fakeManifest(), environment: { name: "mystery-env", version: "3" } };
    writeJsonAtomic(join(dir, "manifest.json"), manifest);
    const before = readFileSync(episodesPath(dir), "utf8");
    assert.throws(
      () => rescoreRun(dir),
      (e: unknown) => e instanceof UserError && /"mystery-env"/.test(e.message) && !e.message.includes("\n"),
    );
    assert.equal(readFileSync(episodesPath(dir), "utf8"), before);
    assert.throws(() => readFileSync(join(dir, "summary.json")), /ENOENT/, "no summary written");
  });
});

/** Rescores a copy-free run in place and checks it reads back byte for byte, summary numbers included. */
function assertRescoresToItself(runDir: string): void {
  const episodes = readFileSync(episodesPath(runDir), "utf8");
  const { updated: _u, ...summary } = summaryOf(runDir);
  const r = rescoreRun(runDir);
  assert.equal(r.changed, 0, "no episode's scores changed");
  assert.equal(readFileSync(episodesPath(runDir), "utf8"), episodes, "episodes.jsonl is byte-identical");
  const { updated: _v, ...again } = summaryOf(runDir);
  assert.deepEqual(again, summary, "the summary's numbers are the recorded ones");
}

describe("eval/rescoreRun on real runs of each environment", function () {
  this.timeout(120_000);
  let root: string;
  let tok: ChatTokenizer;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-rescore-envs-"));
    tok = await offlineTokenizer("qwen3");
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const formatPenalty of [0, 0.1]) {
    it(`a GSM8K eval (format penalty ${formatPenalty}) rescored gives its recorded numbers; a stale verdict is regraded`, async () => {
      const ws = join(root, `gsm8k-${formatPenalty}`);
      mkdirSync(ws, { recursive: true });
      // The real records when ../shared/data has them, else the fixture twin.
      const realTrain = sharedDataPath("gsm8k", "train.jsonl");
      const realTest = sharedDataPath("gsm8k", "test.jsonl");
      const raw = realTrain && realTest ? { train: realTrain, test: realTest } : writeFixtureTwin(join(ws, "raw"));
      const dataDir = join(ws, "data");
      await GSM8K.data.prepare({
        outDir: GSM8K.data.dir(dataDir),
        train: [raw.train],
        test: [raw.test],
        log: () => undefined,
      });
      const byQuestion = new Map(GSM8K.data.load(GSM8K.data.dir(dataDir), "test").map((i) => [i.question, i]));
      const result = await scriptedEval({
        workspaceDir: ws,
        config: mergeConfig({
          dataDir: "data",
          runsDir: "runs",
          concurrency: 4,
          env: "gsm8k",
          maxTokens: 64,
          formatPenalty,
        }),
        name: "eval",
        split: "test",
        testFlag: TEST_SPLIT_FLAG,
        limit: 28,
        policy: new ScriptedPolicy(tok, (ctx) => {
          const item = byQuestion.get(questionOf(ctx.promptText))!;
          return replyFor(item.answers[0], behaviourOf(item.id));
        }),
      });
      const recorded = readEpisodes(result.runDir, environmentMetrics);
      assert.ok(recorded.some((e) => e.metrics.correct === 1) && recorded.some((e) => e.metrics.correct === 0));
      if (formatPenalty > 0)
        assert.ok(
          recorded.some((e) => e.reward < 0),
          "the format penalty shows in some reward",
        );
      assertRescoresToItself(result.runDir);

      // A verdict recorded wrong (as if by an older grader) is regraded, with its flag and reward.
      const lines = readFileSync(episodesPath(result.runDir), "utf8").split("\n").filter(Boolean);
      const i = recorded.findIndex((e) => e.metrics.correct === 1 && e.end === "answer");
      const stale = { ...JSON.parse(lines[i]), metrics: { correct: 0 }, correct: false, reward: 0 };
      lines[i] = JSON.stringify(stale);
      writeFileSync(episodesPath(result.runDir), lines.map((l) => l + "\n").join(""));
      const r = rescoreRun(result.runDir);
      assert.equal(r.changed, 1);
      const fixed = readEpisodes(result.runDir, environmentMetrics)[i] as unknown as Record<string, unknown>;
      assert.deepEqual(fixed.metrics, { correct: 1 });
      assert.equal(fixed.correct, true);
      assert.equal(fixed.reward, recorded[i].reward);
      assert.deepEqual(Object.keys(r.summary.metrics), ["correct"]);
      const accuracy = recorded.filter((e) => e.metrics.correct === 1).length / recorded.length;
      assert.equal(r.summary.metrics.correct, accuracy);
      // `agent-lab score RUN_DIR` names the environment's metric as it declares it.
      const out = await capturedOutput(() => scoreCli([result.runDir]));
      assert.equal(
        out.out,
        `accuracy ${accuracy.toFixed(3)}  n ${recorded.length}  (0 episodes changed; episodes.jsonl and summary.json rewritten)`,
      );
    });
  }

  it("a HotpotQA eval rescored gives its recorded numbers", async () => {
    const ws = join(root, "hotpotqa");
    await prepareSyntheticWorkspace(ws, { seed: DEMO_SEED, train: 40, dev: 560 }, { source: "rescore test" });
    const result = await scriptedEval({
      workspaceDir: ws,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 1, maxSearches: 3 }),
      name: "heuristic",
      split: "val",
      limit: 24,
      policy: new HeuristicPolicy(tok),
    });
    const f1s = readEpisodes(result.runDir, environmentMetrics).map((e) => e.metrics.f1);
    assert.ok(f1s.some((f) => f > 0 && f < 1) || new Set(f1s).size > 1, "scores vary across episodes");
    assertRescoresToItself(result.runDir);
  });
});
