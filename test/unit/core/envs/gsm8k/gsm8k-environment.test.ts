/**
 * GSM8K end to end through the generic steps: prepare (local files), eval (greedy over the whole
 * test split), sft-data (rejection sampling) and two GRPO steps on the local backend, with scripted
 * replies that are right, wrong, unboxed or cut off by the token limit. Runs on the real records in
 * ../shared/data/gsm8k when present, and always on a small fixture twin written here, so a clone
 * without the shared data still exercises the plumbing.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replyTokens, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { loadConfig, mergeConfig } from "../../../../../src/core/envs/config";
import { ablate } from "../../../../../src/core/steps/ablate/ablate";
import { GSM8K, boxedSpan, type Gsm8kItem } from "../../../../../src/core/envs/gsm8k/environment";
import { readGsm8kRecords } from "../../../../../src/core/envs/gsm8k";
import { environmentByName, environmentOfManifest } from "../../../../../src/core/envs/registry";
import { estimateContext } from "../../../../../src/core/steps/specs/estimate-context";
import { buildTraceView } from "../../../../../src/core/views/trace/trace-view";
import { TEST_SPLIT_FLAG } from "../../../../../src/core/steps/eval/eval-split";
import type { Policy, Sample } from "../../../../../src/core/harness/policy";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import { readRun, readSummary, type EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";
import type { RunManifest } from "../../../../../src/core/base/runs/manifest";
import { renderShow } from "../../../../../src/core/views/trace/trace-text";
import { collectSftData, readSftRows, sftPath } from "../../../../../src/core/steps/sft";
import type { SamplingClient } from "../../../../../src/core/base/tinker";
import { trainGrpo, type GrpoMetrics } from "../../../../../src/core/steps/train";
import { sharedDataPath } from "../../../../helpers/shared-data";
import { runCli } from "../../../cli/cli-process";
import { behaviourOf, fixtureRecords, questionOf, replyFor, type Behaviour } from "./fixture";
import { FAST_RETRY, localWorld, qwenTokenizer, type LocalWorld } from "../../steps/train/helpers";
import { scriptedEval } from "../../../../helpers/scripted-eval";

for (const source of ["real", "fixture"] as const) {
  describe(`envs/gsm8k end to end (${source} records)`, function () {
    this.timeout(180_000);
    let root: string;
    let ws: string;
    let tok: ChatTokenizer;
    let world: LocalWorld | undefined;
    let references: Map<string, string>;
    const config = () => mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 8, env: "gsm8k", maxTokens: 64 });

    before(async function () {
      let trainFile: string | undefined;
      let testFile: string | undefined;
      root = mkdtempSync(join(tmpdir(), `agent-lab-gsm8k-${source}-`));
      if (source === "real") {
        trainFile = sharedDataPath("gsm8k", "train.jsonl");
        testFile = sharedDataPath("gsm8k", "test.jsonl");
        if (!trainFile || !testFile) {
          console.log(
            "      skipped: ../shared/data/gsm8k is not present (real-data test; the fixture twin still runs)",
          );
          return this.skip();
        }
      } else {
        mkdirSync(join(root, "raw"));
        trainFile = join(root, "raw", "train.jsonl");
        testFile = join(root, "raw", "test.jsonl");
        writeFileSync(
          trainFile,
          fixtureRecords(530, 0)
            .map((r) => JSON.stringify(r))
            .join("\n") + "\n",
        );
        writeFileSync(
          testFile,
          fixtureRecords(40, 10_000)
            .map((r) => JSON.stringify(r))
            .join("\n") + "\n",
        );
      }
      ws = join(root, "ws");
      mkdirSync(ws);
      writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ env: "gsm8k" }));
      const r = await runCli(["prepare", "--train", trainFile, "--test", testFile, "--workspace", ws]);
      assert.equal(r.code, 0, r.stderr);
      const train = await readGsm8kRecords(trainFile);
      assert.match(r.stdout, new RegExp(`train ${train.length - 500} \\| val 500 \\| test \\d+`));
      if (source === "real") assert.match(r.stdout, /the official GSM8K test set/);
      tok = await qwenTokenizer();
      references = new Map();
      for (const split of ["train", "val", "test"] as const)
        for (const item of GSM8K.data.load(join(ws, "data", "gsm8k"), split))
          references.set(item.question, item.answers[0]);
    });
    after(async () => {
      await world?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it("eval --env gsm8k: greedy over the whole test split, scored as the cookbook grades, with the environment in the manifest", async () => {
      const items = GSM8K.data.load(join(ws, "data", "gsm8k"), "test");
      const byQuestion = new Map(items.map((i) => [i.question, i]));
      // One lookup table instead of reloading the split per reply.
      const policy = new ScriptedPolicy(tok, (ctx) => {
        const item = byQuestion.get(questionOf(ctx.promptText));
        assert.ok(item, "the prompt ends with a test question");
        return replyFor(item.answers[0], behaviourOf(item.id));
      });
      const result = await scriptedEval({
        workspaceDir: ws,
        config: config(),
        name: "test-eval",
        split: "test",
        testFlag: TEST_SPLIT_FLAG,
        policy,
      });
      const run = {
        ...readRun(result.runDir, environmentMetrics),
        summary: readSummary(result.runDir, environmentMetrics),
      };
      assert.equal(run.episodes.length, items.length);
      assert.equal(
        estimateContext({ split: "test" }, config(), ws).splitQuestions,
        items.length,
        "--dry-run counts the environment's own split",
      );
      const expected = items.filter((i) => ["right", "truncated"].includes(behaviourOf(i.id))).length / items.length;
      assert.ok(
        Math.abs(run.summary!.metrics.correct - expected) < 1e-12,
        `accuracy ${run.summary!.metrics.correct} vs ${expected}`,
      );
      assert.deepEqual(Object.keys(run.summary!.metrics), ["correct"], "the summary holds its one declared metric");
      const byEnd = (b: Behaviour) => items.filter((i) => behaviourOf(i.id) === b).length;
      assert.deepEqual(
        run.summary!.ends,
        Object.fromEntries(
          Object.entries({
            answer: byEnd("right") + byEnd("wrong"),
            no_action: byEnd("unboxed"),
            length: byEnd("truncated"),
          }).filter(([, v]) => v > 0),
        ),
      );

      for (const e of run.episodes as (EpisodeRecord & Record<string, unknown>)[]) {
        const b = behaviourOf(e.id);
        assert.equal(e.correct, b === "right" || b === "truncated", `${e.id} (${b})`);
        assert.equal(e.reward, b === "right" || b === "truncated" ? 1 : 0, "reward = correct (format penalty off)");
        assert.deepEqual(e.searches, []);
        assert.equal(e.turns!.length, 1, "single turn");
        if (b === "unboxed") assert.equal(e.extracted, null);
        else {
          const box = e.boxed as { turn: number; start: number; end: number };
          const reply = tok.decode(e.tokens.slice(e.turns![0].start, e.turns![0].reply_end), {
            skipSpecialTokens: true,
          });
          assert.equal(reply.slice(box.start, box.end), e.extracted, "the boxed span holds the extracted answer");
        }
      }
      const m = run.manifest!;
      assert.deepEqual(m.environment, { name: "gsm8k", version: GSM8K.version });
      assert.equal(m.search, undefined, "no search settings for an environment without search");
      assert.deepEqual(m.grading, { grader: GSM8K.scorerVersion, format_penalty: 0 });
      assert.equal(m.system_prompt.file, "(none)");
      assert.equal(m.test_split.opened, true);

      // show: the environment's metric name, the extracted answer and the boxed span; no search histogram.
      const shown = renderShow(run, { name: "test-eval", n: 2, seed: 0, style: "plain", tokenizer: tok });
      assert.match(shown, /test-eval: accuracy \d\.\d{3}/);
      assert.match(shown, /Failures \(accuracy < 0\.5\)/);
      assert.match(shown, /extracted answer: /);
      assert.doesNotMatch(shown, /Searches per episode/);

      // The trace viewer's model carries the environment's annotations: the extracted answer and the boxed span.
      const boxed = run.episodes.find((e) => (e as unknown as { extracted: unknown }).extracted !== null)!;
      const view = buildTraceView(boxed, tok, { drift: false, environment: environmentOfManifest(m) });
      assert.equal(view.annotations!.notes[0].value, (boxed as unknown as { extracted: string }).extracted);
      assert.equal(view.annotations!.spans[0].label, "boxed answer");

      // ablate pairs GSM8K runs, and refuses a HotpotQA run beside one, naming both.
      const again = ablate(
        [
          { name: "a", dir: result.runDir, manifest: m, episodes: run.episodes },
          { name: "b", dir: result.runDir, manifest: m, episodes: run.episodes },
        ],
        { resamples: 200 },
      );
      assert.equal(again.runs.length, 2);
      const hotpot = { ...m, environment: undefined } as RunManifest;
      assert.throws(
        () =>
          ablate([
            { name: "gsm", dir: "x", manifest: m, episodes: run.episodes },
            { name: "hotpot", dir: "y", manifest: hotpot, episodes: run.episodes },
          ]),
        /cannot pair gsm \(gsm8k v1\) with hotpot \(hotpotqa v1\)/,
      );
    });

    it("the format penalty is the cookbook's: c·(format_ok − 1) for a reply cut off or without a box", async () => {
      const items = GSM8K.data.load(join(ws, "data", "gsm8k"), "val").slice(0, 28);
      const byQuestion = new Map(items.map((i) => [i.question, i]));
      const policy = new ScriptedPolicy(tok, (ctx) => {
        const item = byQuestion.get(questionOf(ctx.promptText))!;
        return replyFor(item.answers[0], behaviourOf(item.id));
      });
      const result = await scriptedEval({
        workspaceDir: ws,
        config: mergeConfig({ ...config(), formatPenalty: 0.1 }),
        name: "penalty",
        split: "val",
        limit: 28,
        policy,
      });
      const want: Record<Behaviour, number> = { right: 1, wrong: 0, unboxed: -0.1, truncated: 0.9 };
      for (const e of readRun(result.runDir, environmentMetrics).episodes)
        assert.ok(Math.abs(e.reward - want[behaviourOf(e.id)]) < 1e-12, `${e.id}: ${e.reward}`);
    });

    it("sft-data --env gsm8k keeps a correct attempt per train question (no search needed), never a val/test one", async () => {
      // Try 1 follows the item's behaviour; try 2 is always right: every question is solved, and
      // the kept row is the shorter correct one.
      const tries = new Map<string, number>();
      const policy = new ScriptedPolicy(tok, (ctx) => {
        const q = questionOf(ctx.promptText);
        const k = tries.get(q) ?? 0;
        tries.set(q, k + 1);
        return k % 2 === 0 ? replyFor(references.get(q)!, "wrong") : replyFor(references.get(q)!, "right");
      });
      const r = await collectSftData({
        workspaceDir: ws,
        config: mergeConfig({ ...config(), concurrency: 2 }),
        name: "sft",
        questions: 12,
        offset: 0,
        tries: 2,
        temperature: 0.8,
        minF1: 1,
        role: "self",
        backend: "scripted",
        policy,
        resume: false,
        command: ["test"],
      });
      assert.equal(r.manifest.counts.kept, 12);
      assert.equal(r.manifest.fingerprint.acceptance.requireSearch, false);
      assert.deepEqual(r.manifest.fingerprint.environment, { name: "gsm8k", version: GSM8K.version });
      const rows = readSftRows(sftPath(r.runDir));
      const train = new Set(
        GSM8K.data
          .load(join(ws, "data", "gsm8k"), "train")
          .slice(0, 12)
          .map((i) => i.id),
      );
      for (const row of rows) {
        assert.ok(train.has(row.id), `${row.id} is a train question`);
        assert.equal(row.reward, 1);
        assert.match(tok.decode(row.tokens.filter((_, i) => row.sampled[i] === 1)), /\\boxed\{/);
      }
    });

    it("train-grpo --env gsm8k: two steps on the local backend, groups centred, constant groups skipped", async function () {
      world = await localWorld(`gsm8k-grpo-${source}`);
      const train = GSM8K.data.load(join(ws, "data", "gsm8k"), "train");
      const byQuestion = new Map(train.map((i) => [i.question, i]));
      const wrongAlways = new Set([train[1].id]);
      /** Right on every other try (never for `wrongAlways`), with the step's sampler's logprobs. */
      class MathTeacher implements Policy {
        readonly endToken: number;
        private readonly count = new Map<string, number>();
        constructor(
          readonly tokenizer: ChatTokenizer,
          private readonly sampler: SamplingClient,
        ) {
          this.endToken = tokenizer.tokenId("<|im_end|>");
        }
        async sample(prompt: readonly number[]): Promise<Sample> {
          const item = byQuestion.get(questionOf(this.tokenizer.decode(prompt)))!;
          const k = this.count.get(item.id) ?? 0;
          this.count.set(item.id, k + 1);
          const right = !wrongAlways.has(item.id) && k % 2 === 0;
          const tokens = replyTokens(this.tokenizer, `So \\boxed{${right ? item.answers[0] : "-1"}}`);
          const lp = await this.sampler.computeLogprobs([...prompt, ...tokens]).result();
          return { tokens, logprobs: lp.slice(prompt.length).map((x) => x ?? 0), stopReason: "stop" };
        }
        describe() {
          return { kind: "local-backend", model: "agent-lab/local-tiny", logprobs: true };
        }
      }
      mkdirSync(join(world.root, "data"), { recursive: true });
      const result = await trainGrpo({
        workspaceDir: ws,
        env: "gsm8k",
        config: loadConfig(ws, { loraRank: 8, maxTokens: 32, concurrency: 4, runsDir: join(world.root, "runs") }),
        name: "grpo",
        steps: 2,
        questions: 2,
        group: 4,
        lr: 0.05,
        temperature: 1,
        offset: 0,
        saveEvery: 1,
        backend: "local",
        baseUrl: world.backend.url,
        retry: FAST_RETRY,
        command: ["test"],
        tokenizer: tok,
        policyFor: (sampler, t) => new MathTeacher(t, sampler),
      });
      assert.equal(result.status, "done");
      const metrics = readFileSync(join(result.runDir, "metrics.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as GrpoMetrics);
      assert.deepEqual(
        metrics.map((m) => m.step),
        [1, 2],
      );
      assert.equal(metrics[0].skipped_count, 1, "the always-wrong question's group is skipped");
      assert.equal(metrics[0].datums, 4);
      assert.equal(metrics[1].skipped_count, 0);
      assert.ok(metrics.every((m) => m.optim_step && m.searches === 0));
      const manifest = JSON.parse(readFileSync(join(result.runDir, "manifest.json"), "utf8")) as Record<
        string,
        unknown
      >;
      assert.deepEqual(manifest.environment, { name: "gsm8k", version: GSM8K.version });
      assert.equal(manifest.search, undefined);
      assert.ok(manifest.grading);
    });
  });
}

describe("envs/gsm8k environment pieces", () => {
  it("an unknown --env is refused, listing the known environments", () => {
    assert.throws(() => environmentByName("mathh"), /--env "mathh": unknown environment; known: hotpotqa, gsm8k/);
  });

  it("boxedSpan: the last box's content, also for the unbraced form; null without a box", () => {
    const reply = "first \\boxed{1} then \\boxed{\\frac{1}{2}} done";
    const s = boxedSpan(reply, "\\frac{1}{2}")!;
    assert.equal(reply.slice(s.start, s.end), "\\frac{1}{2}");
    const t = boxedSpan("so \\boxed 42 it is", "42")!;
    assert.equal("so \\boxed 42 it is".slice(t.start, t.end), "42");
    assert.equal(boxedSpan("no box", undefined), null);
  });

  it("the prompt is the cookbook's few-shot exchange; --prompt adds a system message before it", async () => {
    const tok = await qwenTokenizer();
    const run = await GSM8K.open({ workspaceDir: ".", config: mergeConfig({}), dataDir: "." });
    const item: Gsm8kItem = { id: "x", question: "What is 2 + 2?", answers: ["4"], solution: "2+2=4\n#### 4" };
    const plain = tok.decode(run.start(item, { tokenizer: tok, systemPrompt: undefined }).prompt);
    assert.ok(plain.startsWith("<|im_start|>user\nHow many r's are in strawberry?"), plain);
    assert.ok(plain.includes("<|im_start|>user\nWhat is 2 + 2? Write your answer in \\boxed{} format.<|im_end|>"));
    const withSystem = tok.decode(run.start(item, { tokenizer: tok, systemPrompt: "Be brief." }).prompt);
    assert.ok(withSystem.startsWith("<|im_start|>system\nBe brief.<|im_end|>"));
  });
});
