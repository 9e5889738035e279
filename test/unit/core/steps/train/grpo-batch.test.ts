/**
 * GRPO's batch assembly and step log, held number by number on one small run: which groups are
 * skipped, the advantage each datum carries on which tokens (read back from the forward_backward
 * requests the local backend received), the episode lines groups.jsonl points to across steps, every
 * column of metrics.jsonl, the printed step line and the ledger. The replies are scripted per
 * question and sample (right, wrong, half right, a search first, cut at the length limit), so every
 * reward is known; one sampling slot at a time keeps the samples in order. Fast on purpose: the
 * mutation run reruns it for every mutant of the training loop.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../../../src/core/envs/config";
import { replyTokens, type ChatTokenizer } from "../../../../../src/core/base/chat";
import type { Question } from "../../../../../src/core/base/data/question";
import { UserError } from "../../../../../src/core/base/errors";
import { readLedger } from "../../../../../src/core/base/ledger";
import { readRegistry, registryPath } from "../../../../../src/core/base/checkpoints/registry";
import { readProgress, type Progress } from "../../../../../src/core/base/runs/progress";
import { sha256File } from "../../../../../src/core/base/runs/manifest";
import { THINKING_FIELD } from "../../../../../src/core/base/runs/manifest-thinking";
import { buildIndex } from "../../../../../src/core/base/search";
import type { EnvItem, Environment } from "../../../../../src/core/harness/environment";
import { resolveEnvironment } from "../../../../../src/core/steps/eval/eval-split";
import type { Datum } from "../../../../../src/core/base/tinker/wire";
import { decodeForwardBackwardRequest } from "../../../../../src/core/base/tinker/wire/codec";
import type { Policy, Sample, SampleOptions } from "../../../../../src/core/harness/policy";
import { MISSING_LOGPROBS_MESSAGE } from "../../../../../src/core/harness/policies/tinker";
import {
  trainGrpo,
  type GroupRecord,
  type GrpoMetrics,
  type TrainGrpoOptions,
} from "../../../../../src/core/steps/train";
import { episodeSeed } from "../../../../../src/core/steps/train/grpo";
import { requireSharedData } from "../../../../helpers/shared-data";
import {
  corpusRows,
  FAST_RETRY,
  localWorld,
  qwenTokenizer,
  readRecords,
  SHORT_PROMPT,
  TinySearcher,
  toQuestion,
  writeJsonlFile,
  type HotpotRecordLite,
  type LocalWorld,
} from "./helpers";

const rowsOf = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

/**
 * One reply of a scripted episode: an answer kind, a search, a reply cut at the length limit, a
 * reply without logprobs, the sampler's refusal to sample without them, or another failure.
 */
type Move = "right" | "wrong" | "half" | "search" | "cut" | "no-logprobs" | "refuse" | "crash";

/** What the policy was asked: by which question, sample and turn, with which options. */
interface Call {
  question: string;
  sample: number;
  turn: number;
  options: SampleOptions;
}

const LOGPROB = -0.25;

/** Plays `plan[question id][sample]`, one move per turn; the sample index counts the question's first turns. */
class PlannedPolicy implements Policy {
  readonly endToken: number;
  private readonly started = new Map<string, number>();
  constructor(
    readonly tokenizer: ChatTokenizer,
    private readonly questions: readonly Question[],
    private readonly plan: ReadonlyMap<string, readonly (readonly Move[])[]>,
    readonly calls: Call[] = [],
    private readonly onCall?: (call: Call) => void,
  ) {
    this.endToken = tokenizer.tokenId("<|im_end|>");
  }
  async sample(prompt: readonly number[], options: SampleOptions): Promise<Sample> {
    const text = this.tokenizer.decode(prompt);
    const q = this.questions.find((x) => text.includes(x.question))!;
    const turn = text.split("<|im_start|>assistant").length - 2;
    if (turn === 0) this.started.set(q.id, (this.started.get(q.id) ?? -1) + 1);
    const call = { question: q.id, sample: this.started.get(q.id)!, turn, options };
    this.calls.push(call);
    this.onCall?.(call);
    const move = this.plan.get(q.id)![call.sample][turn];
    if (move === "refuse") throw new Error(MISSING_LOGPROBS_MESSAGE);
    if (move === "crash") throw new Error("the sampler went away");
    const gold = q.answers[0];
    const reply =
      move === "search"
        ? `<search>${q.question}</search>`
        : `<answer>${move === "right" ? gold : move === "half" ? `${gold} plus four more words` : "no idea at all"}</answer>`;
    if (move === "cut") {
      const tokens = this.tokenizer.encode("<answer>unfinished thought");
      return { tokens, logprobs: tokens.map(() => LOGPROB), stopReason: "length" };
    }
    const tokens = replyTokens(this.tokenizer, reply);
    if (move === "no-logprobs") return { tokens, logprobs: null, stopReason: "stop" };
    return { tokens, logprobs: tokens.map(() => LOGPROB), stopReason: "stop" };
  }
  describe() {
    return { kind: "scripted", model: "planned", logprobs: true };
  }
}

interface EpisodeRow {
  id: string;
  question_id: string;
  step: number;
  group: number;
  sample: number;
  reward: number;
  end: string;
  searches: unknown[];
  prompt: number[];
  tokens: number[];
  sampled: number[];
  logprobs: number[];
  prefill: number;
  generated: number;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const f32 = (xs: readonly number[]) => xs.map((x) => Math.fround(x));

/** The forward_backward datums and optim_step settings a run sent, as the backend received them. */
function observer() {
  const sent: { seq: number; data: Datum[] }[] = [];
  const optimized: Record<string, number>[] = [];
  const observe: typeof fetch = async (input, init) => {
    const url = String(input);
    if (url.endsWith("/api/v1/forward_backward") && init?.body instanceof Uint8Array) {
      const req = decodeForwardBackwardRequest(init.body);
      sent.push({ seq: req.seq_id ?? 0, data: req.data });
    }
    if (url.endsWith("/api/v1/optim_step") && typeof init?.body === "string") {
      const { learning_rate, beta1, beta2, eps } = (JSON.parse(init.body) as { adam_params: Record<string, number> })
        .adam_params;
      optimized.push({ learning_rate, beta1, beta2, eps });
    }
    return fetch(input, init);
  };
  return { sent, optimized, observe };
}

describe("train: GRPO's batch assembly and step log", function () {
  this.timeout(120_000);
  let world: LocalWorld;
  let questions: Question[];
  let searcher: TinySearcher;
  let tok: ChatTokenizer;
  let records: HotpotRecordLite[];

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    records = readRecords(file, 8);
    questions = records.map(toQuestion);
    searcher = new TinySearcher(records);
    tok = await qwenTokenizer();
    world = await localWorld("grpo-batch");
    writeFileSync(join(world.root, "prompt.txt"), SHORT_PROMPT);
  });
  after(async () => world?.close());

  it("skips constant groups, puts each episode's advantage on its sampled tokens, and logs every step's numbers", async () => {
    const [, q1, q2, q3, q4, q5, q6] = questions;
    const plan = new Map<string, Move[][]>([
      // Step 1 (questions 1–3): a mixed group, an all-zero group (one cut at the length limit), a half-right one.
      [q1.id, [["right"], ["wrong"], ["search", "right"]]],
      [q2.id, [["wrong"], ["cut"], ["wrong"]]],
      [q3.id, [["half"], ["right"], ["right"]]],
      // Step 2 (questions 4–6): all right (skipped), then two mixed groups (one over the one-search budget).
      [q4.id, [["right"], ["right"], ["search", "right"]]],
      [q5.id, [["search", "search"], ["right"], ["wrong"]]],
      [q6.id, [["search", "wrong"], ["right"], ["cut"]]],
    ]);
    const { sent, optimized, observe } = observer();
    const log: string[] = [];
    const calls: Call[] = [];
    const options: TrainGrpoOptions = {
      workspaceDir: world.root,
      config: loadConfig(world.root, { loraRank: 4, maxTokens: 48, concurrency: 1, maxSearches: 1 }),
      name: "batch",
      steps: 2,
      questions: 3,
      group: 3,
      lr: 0.01,
      temperature: 0.7,
      offset: 1,
      saveEvery: 3,
      backend: "local",
      baseUrl: world.backend.url,
      retry: FAST_RETRY,
      fetch: observe,
      command: ["test"],
      trainQuestions: questions,
      searcher,
      tokenizer: tok,
      promptFile: "prompt.txt",
      log: (l) => log.push(l),
      policyFor: (_sampler, t) => new PlannedPolicy(t, questions, plan, calls),
    };
    const result = await trainGrpo(options);
    assert.equal(result.status, "done");
    assert.equal(result.step, 2);
    const run = result.runDir;

    // episodes.jsonl: step by step, group by group, sample by sample.
    const episodes = rowsOf<EpisodeRow>(join(run, "episodes.jsonl"));
    assert.equal(episodes.length, 18);
    const order = [q1, q2, q3, q4, q5, q6].flatMap((q, i) =>
      [0, 1, 2].map((k) => [q.id, i < 3 ? 1 : 2, i % 3, k, `${q.id}/s${i < 3 ? 1 : 2}/${k}`]),
    );
    assert.deepEqual(
      episodes.map((e) => [e.question_id, e.step, e.group, e.sample, e.id]),
      order,
    );
    const half = episodes[6].reward;
    assert.ok(half > 0 && half < 1, `a half-right answer scores between 0 and 1, got ${half}`);
    assert.deepEqual(
      episodes.map((e) => e.reward),
      [1, 0, 1, 0, 0, 0, half, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0],
    );
    assert.deepEqual(
      episodes.map((e) => e.end),
      ["answer", "answer", "answer", "answer", "length", "answer"]
        .concat(["answer", "answer", "answer", "answer", "answer", "answer"])
        .concat(["budget", "answer", "answer", "answer", "answer", "length"]),
    );

    // Each turn was sampled with the run's temperature and token cap, and the seed of its
    // (step, question, sample, turn).
    assert.equal(calls.length, 22);
    for (const c of calls) {
      const step = [q1, q2, q3].some((q) => q.id === c.question) ? 1 : 2;
      assert.deepEqual(
        [c.options.temperature, c.options.maxTokens, c.options.seed],
        [0.7, 48, episodeSeed(0, step, c.question, c.sample, c.turn)],
        JSON.stringify(c),
      );
    }

    // groups.jsonl: rewards, mean, advantages (null when skipped), and the episode lines across steps.
    const groups = rowsOf<GroupRecord>(join(run, "groups.jsonl"));
    const wantAdv = (r: number[]) => r.map((x) => x - mean(r));
    const wantGroups: [number, number, string, number[], boolean][] = [
      [1, 0, q1.id, [1, 0, 1], false],
      [1, 1, q2.id, [0, 0, 0], true],
      [1, 2, q3.id, [half, 1, 1], false],
      [2, 0, q4.id, [1, 1, 1], true],
      [2, 1, q5.id, [0, 1, 0], false],
      [2, 2, q6.id, [0, 1, 0], false],
    ];
    assert.equal(groups.length, 6);
    groups.forEach((g, i) => {
      const [step, group, qid, rewards, skipped] = wantGroups[i];
      assert.deepEqual([g.step, g.group, g.question_id, g.rewards, g.skipped], [step, group, qid, rewards, skipped]);
      assert.ok(Math.abs(g.mean - mean(rewards)) < 1e-12, `group ${i}'s mean ${g.mean}`);
      assert.deepEqual(g.episodes, [3 * i, 3 * i + 1, 3 * i + 2], `group ${i}'s episode lines`);
      if (skipped) assert.equal(g.advantages, null);
      else {
        assert.equal(g.advantages!.length, 3);
        g.advantages!.forEach((a, k) => assert.ok(Math.abs(a - wantAdv(rewards)[k]) < 1e-12, `group ${i}[${k}]`));
      }
    });

    // forward_backward: one request per step, the trained groups' episodes in order; each datum is
    // the episode shifted by one, with the sampler's logprobs and the group's advantage on the
    // sampled tokens only (0 on the prompt and on the search results).
    sent.sort((a, b) => a.seq - b.seq);
    assert.equal(sent.length, 2, "one forward_backward per step");
    const trained = [
      [0, 1, 2, 6, 7, 8],
      [12, 13, 14, 15, 16, 17],
    ];
    sent.forEach(({ data }, s) => {
      assert.equal(data.length, 6, `step ${s + 1}'s datums`);
      data.forEach((d, j) => {
        const line = trained[s][j];
        const e = episodes[line];
        const adv = groups[Math.floor(line / 3)].advantages![line % 3];
        const seq = [...e.prompt, ...e.tokens];
        const inputTokens = d.model_input.chunks.flatMap((c) => (c.type === "encoded_text" ? c.tokens : []));
        assert.deepEqual(inputTokens, seq.slice(0, -1), `datum ${line}'s input`);
        assert.deepEqual(d.loss_fn_inputs.target_tokens.data, seq.slice(1), `datum ${line}'s targets`);
        const onSampled = (v: (k: number) => number) => [...e.prompt.map(() => 0), ...e.tokens.map((_, k) => v(k))];
        assert.deepEqual(
          d.loss_fn_inputs.advantages.data,
          f32(onSampled((k) => e.sampled[k] * adv).slice(1)),
          `datum ${line}'s advantages`,
        );
        assert.deepEqual(
          d.loss_fn_inputs.logprobs.data,
          f32(onSampled((k) => e.logprobs[k]).slice(1)),
          `datum ${line}'s logprobs`,
        );
      });
    });
    assert.ok(
      episodes[2].sampled.includes(0) && episodes[2].sampled.includes(1),
      "the searching episode has inserted tokens",
    );

    // metrics.jsonl: every column of both steps.
    const metrics = rowsOf<GrpoMetrics & { time: string }>(join(run, "metrics.jsonl"));
    const stepEpisodes = (s: number) => episodes.filter((e) => e.step === s);
    const trainedTokens = (s: number) =>
      trained[s - 1].reduce((n, line) => n + episodes[line].prompt.length + episodes[line].tokens.length - 1, 0);
    const sampler = metrics.map((m) => m.sampler);
    assert.equal(new Set(sampler).size, 2);
    const wantMetrics = [1, 2].map((s) => {
      const eps = stepEpisodes(s);
      return {
        step: s,
        reward: mean(eps.map((e) => e.reward)),
        skipped_groups: 1 / 3,
        searches: mean(eps.map((e) => e.searches.length)),
        answered: eps.filter((e) => e.end === "answer").length / 9,
        budget_hit: eps.filter((e) => e.end === "length" || e.end === "budget").length / 9,
        tokens: mean(eps.map((e) => e.tokens.length)),
        usd: 0,
        skipped_count: 1,
        groups: 3,
        episodes: 9,
        datums: 6,
        trained_tokens: trainedTokens(s),
        optim_step: true,
        lr: 0.01,
        sampler: sampler[s - 1],
        questions: s === 1 ? [1, 4] : [4, 7],
      };
    });
    assert.deepEqual(
      metrics.map(({ time, ...m }) => (assert.equal(typeof time, "string"), m)),
      wantMetrics,
    );
    assert.deepEqual(
      metrics.map((m) => [m.answered, m.budget_hit]),
      [
        [8 / 9, 1 / 9],
        [7 / 9, 2 / 9],
      ],
    );
    assert.ok(metrics[0].searches === 1 / 9 && metrics[1].searches > 2 / 9);
    // Each optimizer step carries the run's learning rate and the cookbook's Adam settings.
    assert.deepEqual(optimized, [
      { learning_rate: 0.01, beta1: 0.9, beta2: 0.95, eps: 1e-8 },
      { learning_rate: 0.01, beta1: 0.9, beta2: 0.95, eps: 1e-8 },
    ]);
    assert.ok(metrics[0].tokens > 0 && metrics[0].reward > 4 / 9);

    // The printed step line: the recipe's columns, three decimals (usd two).
    const fix = (x: number, d = 3) => x.toFixed(d);
    for (const m of metrics) {
      const line =
        `step ${m.step}  reward ${fix(m.reward)}  skipped_groups ${fix(m.skipped_groups)}  searches ${fix(m.searches)}  ` +
        `answered ${fix(m.answered)}  budget_hit ${fix(m.budget_hit)}  tokens ${fix(m.tokens)}  usd ${fix(m.usd, 2)}`;
      assert.ok(log.includes(line), `log has "${line}":\n${log.join("\n")}`);
    }

    // The ledger: per step, the sampled episodes' prefill and generated tokens, then the trained tokens.
    const ledger = readLedger(run).map((e) => [e.kind, e.label, e.tokens]);
    const sumOf = (s: number, f: (e: EpisodeRow) => number) => stepEpisodes(s).reduce((n, e) => n + f(e), 0);
    assert.deepEqual(
      ledger,
      [1, 2].flatMap((s) => [
        [
          "sample",
          `step ${s}`,
          { prefill: sumOf(s, (e) => e.prefill), sampled: sumOf(s, (e) => e.generated), trained: 0 },
        ],
        ["train", `step ${s}`, { prefill: 0, sampled: 0, trained: trainedTokens(s) }],
      ]),
    );
    assert.ok(sumOf(1, (e) => e.prefill) > 0 && sumOf(1, (e) => e.generated) > 0);

    // The manifest: the settings a resume must match, as given.
    const manifest = JSON.parse(readFileSync(join(run, "manifest.json"), "utf8"));
    assert.deepEqual(
      [
        manifest.kind,
        manifest.backend,
        manifest.lora_rank,
        manifest.lr,
        manifest.loss_fn,
        manifest.questions_per_step,
        manifest.group,
        manifest.temperature,
        manifest.seed,
        manifest.offset,
        manifest.save_every,
        manifest.steps,
        manifest.parent,
        manifest.init_state,
        manifest.train_split,
        manifest.sampling,
        manifest.tokenizer,
        "normalize_advantages" in manifest,
      ],
      [
        "grpo",
        "local",
        4,
        0.01,
        "importance_sampling",
        3,
        3,
        0.7,
        0,
        1,
        3,
        2,
        null,
        null,
        { file: "(given by the caller)", questions: 8 },
        { max_tokens: 48 },
        tok.name,
        false,
      ],
    );
    assert.deepEqual(manifest.adam, { beta1: 0.9, beta2: 0.95, eps: 1e-8 });

    // saveEvery 3 divides no step: one checkpoint, the last step's, final.
    assert.deepEqual(
      result.checkpoints.map((c) => [c.name, c.batch, c.final ?? false]),
      [["batch-s2", 2, true]],
    );
    assert.ok(!log.some((l) => l.includes("had equal rewards")), "both steps trained");

    // Resumed at its last step, the run has nothing to do and sends nothing.
    const again: string[] = [];
    const done = await trainGrpo({ ...options, resume: true, log: (l) => again.push(l) });
    assert.deepEqual([done.status, done.step, done.spentUsd, done.checkpoints.length], ["done", 2, 0, 1]);
    assert.ok(again.includes(`${run} is already at step 2 of 2; nothing to do`), again.join("\n"));
    assert.equal(sent.length, 2);
  });
  it("refuses a bad flag with one line naming it", async () => {
    const base = {
      workspaceDir: world.root,
      config: loadConfig(world.root, { loraRank: 4, maxTokens: 48, concurrency: 1 }),
      name: "refused",
      steps: 1,
      questions: 1,
      group: 2,
      lr: 0.01,
      // The boundaries themselves pass (1, 0, temperature 0): each case fails on its own flag only.
      temperature: 0,
      offset: 0,
      saveEvery: 1,
      backend: "local",
      baseUrl: world.backend.url,
      command: ["test"],
      trainQuestions: questions,
      searcher,
      tokenizer: tok,
    };
    const cases: [Partial<typeof base> & { seed?: number; trainTasksDir?: string }, string][] = [
      [{ steps: 0 }, "--steps must be an integer ≥ 1, got 0"],
      [{ questions: 1.5 }, "--questions must be an integer ≥ 1, got 1.5"],
      [{ group: 0 }, "--group must be an integer ≥ 1, got 0"],
      [{ saveEvery: -1 }, "--save-every must be an integer ≥ 1, got -1"],
      [{ offset: -1 }, "--offset must be an integer ≥ 0, got -1"],
      [{ offset: 0.5 }, "--offset must be an integer ≥ 0, got 0.5"],
      [{ lr: 0 }, "--lr must be > 0"],
      [{ temperature: -0.1 }, "--temperature must be ≥ 0"],
      [{ seed: 1.5 }, "--seed must be an integer, got 1.5"],
      [{ offset: 8 }, "--offset 8 is past the 8 train questions"],
    ];
    for (const [over, message] of cases) {
      await assert.rejects(
        trainGrpo({ ...base, ...over }),
        (e: Error) => e instanceof UserError && e.message === message,
        message,
      );
    }
    await assert.rejects(
      trainGrpo({ ...base, trainTasksDir: "tasks" }),
      (e: Error) => !(e instanceof UserError) && e.message === "trainTasksDir and trainQuestions exclude each other",
    );
    const { trainQuestions: _given, ...withoutQuestions } = base;
    await assert.rejects(
      trainGrpo({ ...withoutQuestions, trainTasksDir: "tasks" }),
      (e: Error) =>
        e instanceof UserError &&
        /^--train-tasks: the \S+ environment does not train on gen-tasks folders$/.test(e.message),
    );
  });
  it("stops cleanly (all groups equal, out of questions, aborted before or during a step) and refuses episodes without logprobs", async () => {
    const q7 = questions[7];
    const run = (
      name: string,
      over: Partial<TrainGrpoOptions>,
      plan: Map<string, Move[][]>,
      onCall?: (c: Call) => void,
    ) => {
      const log: string[] = [];
      const obs = observer();
      const result = trainGrpo({
        workspaceDir: world.root,
        config: loadConfig(world.root, { loraRank: 4, maxTokens: 48, concurrency: 1 }),
        name,
        steps: 2,
        questions: 1,
        group: 2,
        lr: 0.01,
        temperature: 1,
        offset: 7,
        saveEvery: 5,
        backend: "local",
        baseUrl: world.backend.url,
        retry: FAST_RETRY,
        fetch: obs.observe,
        command: ["test"],
        trainQuestions: questions,
        searcher,
        tokenizer: tok,
        promptFile: "prompt.txt",
        log: (l) => log.push(l),
        policyFor: (_sampler, t) => new PlannedPolicy(t, questions, plan, [], onCall),
        ...over,
      });
      return { result, log, sent: obs.sent };
    };

    // Step 1's only group is all wrong: no optimizer step. Step 2 trains and is saved (saveEvery 2,
    // not the final step of 3). Step 3 has no question left: the run stops there, with nothing
    // unsaved to save again.
    const flat = run(
      "flat",
      { offset: 6, steps: 3, saveEvery: 2 },
      new Map([
        [questions[6].id, [["wrong"], ["wrong"]]],
        [q7.id, [["right"], ["wrong"]]],
      ]),
    );
    const f = await flat.result;
    assert.deepEqual(
      [f.status, f.step, f.message],
      ["out_of_questions", 2, "no train questions left for step 3 (index 8 of 8)"],
    );
    assert.ok(flat.log.includes("step 1: all 1 groups had equal rewards; no optimizer step"), flat.log.join("\n"));
    assert.ok(!flat.log.some((l) => l.startsWith("step 2: all")));
    assert.ok(flat.log.includes("no train questions left for step 3 (index 8 of 8)"));
    assert.equal(readProgress(f.runDir)?.status, "failed", "a run that ran out of questions did not finish its steps");
    assert.equal(flat.sent.length, 1, "step 1 had nothing to train on and sent nothing");
    const [m] = rowsOf<GrpoMetrics>(join(f.runDir, "metrics.jsonl"));
    assert.deepEqual(
      [m.optim_step, m.datums, m.trained_tokens, m.skipped_groups, m.skipped_count],
      [false, 0, 0, 1, 1],
    );
    assert.deepEqual(
      readLedger(f.runDir).map((e) => [e.kind, e.label]),
      [
        ["sample", "step 1"],
        ["sample", "step 2"],
        ["train", "step 2"],
      ],
    );
    assert.deepEqual(
      f.checkpoints.map((c) => [c.name, c.batch, c.final ?? false]),
      [["flat-s2", 2, false]],
    );

    // Aborted while step 2 samples: its episodes are not kept, step 1 is saved.
    const during = new AbortController();
    const mid = run(
      "mid",
      { offset: 1, signal: during.signal },
      new Map([
        [questions[1].id, [["right"], ["wrong"]]],
        [questions[2].id, [["right"], ["wrong"]]],
      ]),
      (c) => c.question === questions[2].id && during.abort(),
    );
    const r = await mid.result;
    const stoppedDuring = "stopped during step 2 (its episodes are not kept); continue with --resume";
    assert.deepEqual([r.status, r.step, r.message], ["interrupted", 1, stoppedDuring]);
    assert.equal(readProgress(r.runDir)?.status, "interrupted");
    assert.ok(mid.log.includes(stoppedDuring));
    assert.equal(rowsOf(join(r.runDir, "episodes.jsonl")).length, 2);
    assert.deepEqual(
      r.checkpoints.map((c) => c.name),
      ["mid-s1"],
    );

    // Aborted between steps (after step 1's line): it stops before step 2 and saves step 1.
    const between = new AbortController();
    const early = run(
      "early",
      { offset: 1, signal: between.signal, log: (l) => l.startsWith("step 1 ") && between.abort() },
      new Map([[questions[1].id, [["right"], ["wrong"]]]]),
    );
    const e = await early.result;
    assert.deepEqual(
      [e.status, e.step, e.message],
      ["interrupted", 1, "stopped before step 2; continue with --resume"],
    );
    assert.deepEqual(
      e.checkpoints.map((c) => c.name),
      ["early-s1"],
    );

    // One episode without logprobs, or a sampler that refuses to sample without them: a UserError.
    for (const [name, plan] of [
      ["nolp", [["right"], ["no-logprobs"]]],
      ["refusing", [["refuse"], ["right"]]],
    ] as const) {
      await assert.rejects(
        run(name, {}, new Map([[q7.id, plan.map((moves) => [...moves])]])).result,
        (err: Error) => err instanceof UserError && err.message === MISSING_LOGPROBS_MESSAGE,
        name,
      );
    }
    // Any other failure of the sampler is passed on as it is.
    await assert.rejects(
      run("crashing", {}, new Map([[q7.id, [["crash"], ["right"]]]])).result,
      (err: Error) => !(err instanceof UserError) && err.message === "the sampler went away",
    );
  });
  it("records the run: the defaults it opened with, progress and its status, each checkpoint's questions; a crashed step is redone once; other settings are refused", async () => {
    const config = loadConfig(world.root, { loraRank: 4, maxTokens: 48, concurrency: 1 });
    const plan = new Map<string, Move[][]>(questions.map((q) => [q.id, [["right"], ["wrong"]]]));
    const base = {
      workspaceDir: world.root,
      config,
      steps: 2,
      questions: 1,
      group: 2,
      lr: 0.01,
      temperature: 1,
      offset: 1,
      saveEvery: 1,
      backend: "local",
      baseUrl: world.backend.url,
      retry: FAST_RETRY,
      command: ["test"],
      promptFile: "prompt.txt",
      policyFor: (_sampler: unknown, t: ChatTokenizer) => new PlannedPolicy(t, questions, plan),
    } satisfies Partial<TrainGrpoOptions>;
    const registry = () => readRegistry(registryPath(join(world.root, "runs")));

    // The defaults: the workspace's train split, the index folder given, the backend's tokenizer, and
    // the thinking setting the environment reports.
    const trainFile = join(world.root, config.dataDir, "train.jsonl");
    writeJsonlFile(trainFile, questions);
    const corpus = writeJsonlFile(join(world.root, "corpus.jsonl"), corpusRows(records));
    await buildIndex(corpus, join(world.root, "small-index"), { workers: 0 });
    const env = resolveEnvironment(undefined, config);
    const thinkingEnv: Environment<EnvItem> = {
      ...env,
      open: async (o) => ({ ...(await env.open(o)), thinking: true }),
    };
    const progress: Progress[] = [];
    const plain = await trainGrpo({
      ...base,
      name: "defaults",
      questions: 2,
      env: thinkingEnv,
      indexDir: "small-index",
      normalizeAdvantages: true,
      onProgress: (p) => progress.push({ ...p }),
    });
    assert.equal(plain.status, "done");
    const manifest = JSON.parse(readFileSync(join(plain.runDir, "manifest.json"), "utf8"));
    assert.deepEqual(manifest.train_split, {
      file: "train.jsonl",
      sha256: sha256File(trainFile),
      questions: questions.length,
    });
    assert.equal(manifest.tokenizer, tok.name);
    assert.equal(manifest[THINKING_FIELD], true);
    assert.equal(manifest.normalize_advantages, true);
    assert.ok(
      progress.length > 0 && progress.every((p) => p.label === "GRPO" && p.planned === 2),
      JSON.stringify(progress),
    );
    assert.deepEqual([readProgress(plain.runDir)?.status, readProgress(plain.runDir)?.done], ["done", 2]);
    assert.deepEqual(
      registry()
        .filter((e) => e.run === join("runs", "defaults"))
        .map((e) => [e.name, e.data_hash]),
      [
        ["defaults-s1", "train[1:3]"],
        ["defaults-s2", "train[1:5]"],
      ],
    );

    // Killed after step 2's lines were written and before its checkpoint: the run failed, and a
    // resume redoes step 2 on the same question, writing its lines once.
    const opts = { ...base, name: "crash", trainQuestions: questions, searcher, tokenizer: tok, offset: 3 };
    await assert.rejects(
      trainGrpo({
        ...opts,
        log: (l) => {
          if (l.startsWith("step 2 ")) throw new Error("killed");
        },
      }),
      /killed/,
    );
    const crashDir = join(world.root, "runs", "crash");
    assert.equal(readProgress(crashDir)?.status, "failed");
    assert.equal(rowsOf(join(crashDir, "metrics.jsonl")).length, 2);
    const log: string[] = [];
    const resumed = await trainGrpo({ ...opts, resume: true, log: (l) => log.push(l) });
    assert.deepEqual([resumed.status, resumed.step], ["done", 2]);
    assert.ok(log.includes("(dropped 4 lines after step 1; those steps are redone)"), log.join("\n"));
    assert.deepEqual(
      rowsOf<GrpoMetrics>(join(crashDir, "metrics.jsonl")).map((m) => [m.step, m.questions]),
      [
        [1, [3, 4]],
        [2, [4, 5]],
      ],
    );
    assert.deepEqual(
      rowsOf<GroupRecord>(join(crashDir, "groups.jsonl")).map((g) => [g.step, g.question_id, g.episodes]),
      [
        [1, questions[3].id, [0, 1]],
        [2, questions[4].id, [2, 3]],
      ],
    );
    assert.deepEqual(
      rowsOf<EpisodeRow>(join(crashDir, "episodes.jsonl")).map((e) => e.id),
      [`${questions[3].id}/s1/0`, `${questions[3].id}/s1/1`, `${questions[4].id}/s2/0`, `${questions[4].id}/s2/1`],
    );
    assert.equal(readProgress(crashDir)?.status, "done");

    // Started from another run's state: no LoRA rank of its own, the state's path and its parent recorded.
    const s1 = registry().find((e) => e.name === "crash-s1")!;
    const started: string[] = [];
    const child = await trainGrpo({
      ...opts,
      name: "child",
      steps: 1,
      initState: "crash-s1",
      log: (l) => started.push(l),
    });
    const childManifest = JSON.parse(readFileSync(join(child.runDir, "manifest.json"), "utf8"));
    assert.deepEqual(
      [childManifest.lora_rank, childManifest.parent, childManifest.init_state],
      [null, "crash-s1", s1.state_path],
    );
    assert.ok(started.includes(`starting from ${s1.state_path}`), started.join("\n"));

    // A tasks folder as the train split (an environment that takes one): its record, with the folder
    // as given, is the split, and a resume on another one is refused.
    const asked: string[][] = [];
    const record = { tasks_dir: "(resolved)", file: "tasks.jsonl", sha256: "ab".repeat(32), questions: 3 };
    const tasksEnv: Environment<EnvItem> = {
      ...env,
      data: {
        ...env.data,
        loadTrainTasks: (dir: string, dataDir: string) => {
          asked.push([dir, dataDir]);
          return { items: questions.slice(0, 3), record };
        },
      },
    };
    const fromTasks = {
      ...base,
      name: "tasks",
      steps: 1,
      env: tasksEnv,
      trainTasksDir: "tasks",
      searcher,
      tokenizer: tok,
    };
    const t = await trainGrpo(fromTasks);
    assert.deepEqual(asked, [[join(world.root, "tasks"), join(world.root, config.dataDir)]]);
    assert.deepEqual(JSON.parse(readFileSync(join(t.runDir, "manifest.json"), "utf8")).train_split, {
      ...record,
      tasks_dir: "tasks",
    });
    record.sha256 = "cd".repeat(32);
    await assert.rejects(
      trainGrpo({ ...fromTasks, resume: true }),
      (e: Error) => e instanceof UserError && /field\(s\): train_split: /.test(e.message),
    );

    // A resume whose settings differ from the folder's is refused, naming the field (each field changed
    // in the stored manifest, as a run made with another setting, or by an older harness, holds it).
    const manifestFile = join(crashDir, "manifest.json");
    const stored = readFileSync(manifestFile, "utf8");
    const refusedFor = async (field: string, over: Partial<TrainGrpoOptions> = {}) =>
      assert.rejects(
        trainGrpo({ ...opts, resume: true, ...over }),
        (e: Error) => e instanceof UserError && new RegExp(`field\\(s\\): (.*; )?${field}: `).test(e.message),
        field,
      );
    const fields = [
      "kind",
      "environment",
      "base_model",
      "backend",
      "lora_rank",
      "lr",
      "normalize_advantages",
      "questions_per_step",
      "group",
      "temperature",
      "seed",
      "offset",
      "init_state",
      "harness_version",
      "system_prompt",
      "search",
      "sampling",
    ];
    for (const field of fields) {
      writeFileSync(manifestFile, JSON.stringify({ ...JSON.parse(stored), [field]: "changed" }));
      await refusedFor(field);
    }
    writeFileSync(manifestFile, stored);
    await refusedFor("normalize_advantages", { normalizeAdvantages: true });
    await refusedFor("lr", { lr: 0.02 });
    const again = await trainGrpo({ ...opts, resume: true });
    assert.deepEqual([again.status, again.step], ["done", 2], "the folder's own settings still resume");
  });
});
