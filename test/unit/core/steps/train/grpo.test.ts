/**
 * trainGrpo against the real local backend over HTTP, on real HotpotQA questions. The step's policy
 * is a scripted teacher over the step's own sampler: its replies are chosen (so rewards vary as the
 * test needs) but their logprobs are the sampler's, so the importance-sampling step is real.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../../../src/core/envs/config";
import { replyTokens, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { readRegistry, registryPath } from "../../../../../src/core/base/checkpoints/registry";
import type { Question } from "../../../../../src/core/base/data/question";
import type { Policy, Sample } from "../../../../../src/core/harness/policy";
import type { SamplingClient } from "../../../../../src/core/base/tinker";
import { MISSING_LOGPROBS_MESSAGE } from "../../../../../src/core/harness/policies/tinker";
import {
  groupAdvantages,
  trainGrpo,
  type GroupRecord,
  type GrpoMetrics,
  type TrainGrpoOptions,
} from "../../../../../src/core/steps/train";
import { episodeSeed } from "../../../../../src/core/steps/train/grpo";
import { requireSharedData } from "../../../../helpers/shared-data";
import {
  FAST_RETRY,
  localWorld,
  qwenTokenizer,
  readRecords,
  SHORT_PROMPT,
  TinySearcher,
  toQuestion,
  type LocalWorld,
} from "./helpers";

const rowsOf = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

/** Answers right on every other try of a question (never, for `alwaysWrong` ids), with the sampler's logprobs. */
class TeacherOverSampler implements Policy {
  readonly endToken: number;
  private readonly tries = new Map<string, number>();
  constructor(
    readonly tokenizer: ChatTokenizer,
    private readonly sampler: SamplingClient,
    private readonly questions: readonly Question[],
    private readonly alwaysWrong: ReadonlySet<string>,
    private readonly withLogprobs = true,
  ) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
  }
  async sample(prompt: readonly number[]): Promise<Sample> {
    const text = this.tokenizer.decode(prompt);
    const q = this.questions.find((x) => text.includes(x.question))!;
    const k = this.tries.get(q.id) ?? 0;
    this.tries.set(q.id, k + 1);
    const right = !this.alwaysWrong.has(q.id) && k % 2 === 0;
    const tokens = replyTokens(this.tokenizer, `<answer>${right ? q.answers[0] : "no idea at all"}</answer>`);
    if (!this.withLogprobs) return { tokens, logprobs: null, stopReason: "stop" };
    const lp = await this.sampler.computeLogprobs([...prompt, ...tokens]).result();
    return { tokens, logprobs: lp.slice(prompt.length).map((x) => x ?? 0), stopReason: "stop" };
  }
  describe() {
    return { kind: "local-backend", model: "agent-lab/local-tiny", logprobs: true };
  }
}

describe("train: trainGrpo on the local backend", function () {
  this.timeout(90_000);
  let world: LocalWorld;
  let questions: Question[];
  let searcher: TinySearcher;
  let tok: ChatTokenizer;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    const records = readRecords(file, 12);
    questions = records.map(toQuestion);
    searcher = new TinySearcher(records);
    tok = await qwenTokenizer();
    world = await localWorld("grpo");
    writeFileSync(join(world.root, "prompt.txt"), SHORT_PROMPT);
  });
  after(async () => world?.close());

  const options = (over: Partial<TrainGrpoOptions>): TrainGrpoOptions => ({
    workspaceDir: world.root,
    config: loadConfig(world.root, { loraRank: 8, maxTokens: 32, concurrency: 4 }),
    name: "grpo",
    steps: 2,
    questions: 2,
    group: 4,
    lr: 0.05,
    temperature: 1,
    offset: 2,
    saveEvery: 1,
    backend: "local",
    baseUrl: world.backend.url,
    retry: FAST_RETRY,
    command: ["test"],
    trainQuestions: questions,
    searcher,
    tokenizer: tok,
    promptFile: "prompt.txt",
    ...over,
  });

  it("groupAdvantages: reward − group mean; equal rewards → null", () => {
    assert.deepEqual(groupAdvantages([1, 0, 0.5, 0.5]), [0.5, -0.5, 0, 0]);
    assert.equal(groupAdvantages([0.3, 0.3, 0.3]), null);
    assert.equal(groupAdvantages([0, 5e-7]), null, "within 1e-6 counts as equal");
  });

  it("groupAdvantages with normalize: centred and divided by the group's std; equal rewards still → null", () => {
    const adv = groupAdvantages([1, 0, 0, 0], true)!;
    const std = Math.sqrt(0.1875); // population std of {1, 0, 0, 0}
    [0.75 / std, -0.25 / std, -0.25 / std, -0.25 / std].forEach((want, k) =>
      assert.ok(Math.abs(adv[k] - want) < 1e-12, `${adv[k]} vs ${want}`),
    );
    assert.deepEqual(groupAdvantages([1, 0], true), [1, -1]);
    assert.equal(groupAdvantages([0.3, 0.3, 0.3], true), null);
  });

  it("centres advantages per group, skips and counts constant groups, uses a fresh sampler each step, registers checkpoints; --resume continues on new questions", async () => {
    const alwaysWrong = new Set([questions[3].id]); // step 1's second question
    const samplers: SamplingClient[] = [];
    const log: string[] = [];
    const result = await trainGrpo(
      options({
        initState: undefined,
        log: (l) => log.push(l),
        policyFor: (sampler, t) => {
          samplers.push(sampler);
          return new TeacherOverSampler(t, sampler, questions, alwaysWrong);
        },
      }),
    );
    assert.equal(result.status, "done");
    const run = result.runDir;

    const metrics = rowsOf<GrpoMetrics>(join(run, "metrics.jsonl"));
    assert.deepEqual(
      metrics.map((m) => m.step),
      [1, 2],
    );
    for (const key of ["step", "reward", "skipped_groups", "searches", "answered", "budget_hit", "tokens", "usd"]) {
      assert.ok(key in metrics[0], `metrics has the recipe's column ${key}`);
    }
    assert.deepEqual(
      metrics.map((m) => m.questions),
      [
        [2, 4],
        [4, 6],
      ],
      "step s uses [offset+(s−1)Q, offset+sQ)",
    );
    assert.equal(metrics[0].skipped_count, 1);
    assert.equal(metrics[0].skipped_groups, 0.5);
    assert.equal(metrics[0].datums, 4, "only the mixed group trains");
    assert.equal(metrics[1].skipped_count, 0);
    assert.equal(metrics[0].answered, 1);
    assert.ok(metrics.every((m) => m.optim_step));

    // Fresh sampler each step, and it samples the updated weights (logprobs of one sequence change).
    assert.equal(samplers.length, 2);
    assert.notEqual(samplers[0].samplingSessionId, samplers[1].samplingSessionId);
    assert.deepEqual(
      metrics.map((m) => m.sampler),
      samplers.map((s) => s.samplingSessionId),
    );
    const probe = tok.encode("Who founded the company?");
    const [a, b] = await Promise.all(samplers.map((s) => s.computeLogprobs(probe).result()));
    assert.ok(
      a.some((x, i) => x !== null && Math.abs(x - b[i]!) > 1e-6),
      "step 2's sampler reflects step 1's update",
    );

    const groups = rowsOf<GroupRecord>(join(run, "groups.jsonl"));
    assert.equal(groups.length, 4);
    for (const g of groups) {
      const mean = g.rewards.reduce((s, r) => s + r, 0) / g.rewards.length;
      if (g.skipped) assert.equal(g.advantages, null);
      else g.advantages!.forEach((adv, k) => assert.ok(Math.abs(adv - (g.rewards[k] - mean)) < 1e-12));
    }
    assert.deepEqual(
      groups.map((g) => [g.question_id, g.skipped]),
      [
        [questions[2].id, false],
        [questions[3].id, true],
        [questions[4].id, false],
        [questions[5].id, false],
      ],
    );
    const episodes = rowsOf<{ id: string; question_id: string; step: number; reward: number; logprobs: number[] }>(
      join(run, "episodes.jsonl"),
    );
    assert.equal(episodes.length, 16);
    assert.equal(new Set(episodes.map((e) => e.id)).size, 16, "unique ids for the trace viewer");
    groups.forEach((g) =>
      g.episodes.forEach((line, k) => {
        assert.equal(episodes[line].question_id, g.question_id);
        assert.equal(episodes[line].reward, g.rewards[k]);
      }),
    );

    const reg = readRegistry(registryPath(join(world.root, "runs")));
    assert.deepEqual(
      reg.map((e) => [e.name, e.parent, e.step, e.data_hash, e.kind]),
      [
        ["grpo-s1", null, 1, "train[2:4]", "grpo"],
        ["grpo-s2", "grpo-s1", 2, "train[2:6]", "grpo"],
      ],
    );

    // Two more steps: resume from grpo-s2 on the next questions.
    const more = await trainGrpo(
      options({ steps: 4, resume: true, policyFor: (s, t) => new TeacherOverSampler(t, s, questions, new Set()) }),
    );
    assert.equal(more.step, 4);
    const all = rowsOf<GrpoMetrics>(join(run, "metrics.jsonl"));
    assert.deepEqual(
      all.map((m) => m.questions),
      [
        [2, 4],
        [4, 6],
        [6, 8],
        [8, 10],
      ],
      "no question reused",
    );
    assert.deepEqual(
      readRegistry(registryPath(join(world.root, "runs"))).map((e) => e.name),
      ["grpo-s1", "grpo-s2", "grpo-s3", "grpo-s4"],
    );
  });

  it("an all-skipped step makes no optimizer step and says so; missing logprobs stop with the recipe's message", async () => {
    const log: string[] = [];
    const everyoneWrong = new Set(questions.map((q) => q.id));
    const result = await trainGrpo(
      options({
        name: "flat",
        steps: 1,
        initState: "grpo-s2",
        log: (l) => log.push(l),
        policyFor: (s, t) => new TeacherOverSampler(t, s, questions, everyoneWrong),
      }),
    );
    assert.equal(result.status, "done");
    const [m] = rowsOf<GrpoMetrics>(join(result.runDir, "metrics.jsonl"));
    assert.equal(m.optim_step, false);
    assert.equal(m.skipped_groups, 1);
    assert.equal(m.datums, 0);
    assert.ok(
      log.some((l) => /step 1: all 2 groups had equal rewards; no optimizer step/.test(l)),
      log.join("\n"),
    );
    const reg = readRegistry(registryPath(join(world.root, "runs")));
    assert.equal(reg.at(-1)!.name, "flat-s1");
    assert.equal(reg.at(-1)!.parent, "grpo-s2", "lineage names the state it started from");

    await assert.rejects(
      trainGrpo(
        options({
          name: "nolp",
          steps: 1,
          policyFor: (s, t) => new TeacherOverSampler(t, s, questions, new Set(), false),
        }),
      ),
      (e: Error) => e.message === MISSING_LOGPROBS_MESSAGE,
    );
  });

  it("the default policy samples the step's fresh sampler with logprobs (real sampling on the stand-in)", async () => {
    const result = await trainGrpo(
      options({
        name: "sampled",
        steps: 1,
        questions: 1,
        group: 2,
        config: loadConfig(world.root, { loraRank: 8, maxTokens: 6, concurrency: 2 }),
      }),
    );
    assert.equal(result.status, "done");
    const eps = rowsOf<{ logprobs: number[] | null; sampled: number[] }>(join(result.runDir, "episodes.jsonl"));
    assert.equal(eps.length, 2);
    assert.ok(eps.every((e) => Array.isArray(e.logprobs) && e.logprobs.some((lp, i) => e.sampled[i] === 1 && lp < 0)));
  });

  it("seeded sampling: a rerun with the same seed draws identical episodes and metrics; another seed draws others", async () => {
    const small = (name: string, seed?: number) =>
      trainGrpo(
        options({
          name,
          seed,
          steps: 2,
          questions: 2,
          group: 3,
          lr: 0.05,
          config: loadConfig(world.root, { loraRank: 8, maxTokens: 6, concurrency: 3 }),
        }),
      );
    const drawn = (dir: string) =>
      rowsOf<{ tokens: number[]; logprobs: number[] }>(join(dir, "episodes.jsonl")).map((e) =>
        JSON.stringify([e.tokens, e.logprobs]),
      );
    const rewards = (dir: string) =>
      rowsOf<GrpoMetrics>(join(dir, "metrics.jsonl")).map((m) => [m.reward, m.datums, m.trained_tokens]);
    const [a, b, c] = [await small("seeded-a", 7), await small("seeded-b", 7), await small("seeded-c", 8)];
    assert.equal(drawn(a.runDir).length, 12);
    // Step 2 samples weights trained on step 1's draws, so equality there also shows the training step is deterministic.
    assert.deepEqual(drawn(b.runDir), drawn(a.runDir));
    assert.deepEqual(rewards(b.runDir), rewards(a.runDir));
    assert.notDeepEqual(drawn(c.runDir), drawn(a.runDir));
    assert.equal(JSON.parse(readFileSync(join(a.runDir, "manifest.json"), "utf8")).seed, 7);
    // Seeds differ by turn, sample, question and step, and stay within 31 bits.
    const seeds = [
      episodeSeed(7, 1, "q", 0, 0),
      episodeSeed(7, 1, "q", 0, 1),
      episodeSeed(7, 1, "q", 1, 0),
      episodeSeed(7, 1, "r", 0, 0),
      episodeSeed(7, 2, "q", 0, 0),
      episodeSeed(8, 1, "q", 0, 0),
    ];
    assert.equal(new Set(seeds).size, seeds.length);
    assert.ok(seeds.every((x) => Number.isInteger(x) && x >= 0 && x < 2 ** 31));
  });

  it("normalizeAdvantages: groups.jsonl records std-normalised advantages and the manifest says so", async () => {
    const result = await trainGrpo(
      options({
        name: "grpo-norm",
        steps: 1,
        normalizeAdvantages: true,
        initState: undefined,
        policyFor: (sampler, t) => new TeacherOverSampler(t, sampler, questions, new Set()),
      }),
    );
    const groups = rowsOf<GroupRecord>(join(result.runDir, "groups.jsonl")).filter((g) => !g.skipped);
    assert.equal(groups.length, 2);
    assert.deepEqual(groups[0].advantages, [1, -1, 1, -1], "rewards 1,0,1,0: centred ±0.5, normalised ±1");
    for (const g of groups) {
      const want = groupAdvantages(g.rewards, true)!;
      g.advantages!.forEach((adv, k) => assert.ok(Math.abs(adv - want[k]) < 1e-12));
      assert.ok(
        Math.abs(Math.sqrt(g.advantages!.reduce((s, a) => s + a * a, 0) / g.advantages!.length) - 1) < 1e-9,
        "unit std",
      );
    }
    assert.equal(JSON.parse(readFileSync(join(result.runDir, "manifest.json"), "utf8")).normalize_advantages, true);
  });
});
