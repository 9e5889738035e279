/**
 * `agent-lab train-grpo` as a core function (recipe Step 4): online GRPO in the same harness
 * (`runEpisode`) that eval scores with.
 *
 * Step s: a fresh sampling client from the current weights (a stale one would sample old weights),
 * the train questions [offset + (s−1)·Q, offset + s·Q), G episodes each; reward = the episode's F1;
 * advantage = reward − the mean reward of its question's group. Groups whose rewards are all equal
 * teach nothing: they are skipped and counted. The rest train with the importance_sampling loss on
 * the tokens the model wrote; if every group was skipped there is no optimizer step.
 *
 * Files in runs/<name>/: metrics.jsonl (the recipe's columns, one line per step), groups.jsonl
 * (per-group rewards and advantages), episodes.jsonl (every episode, eval's record shape plus
 * step/group/sample), checkpoints.jsonl, manifest.json, ledger.jsonl. Checkpoints every
 * `saveEvery` steps and at the end go into runs/checkpoints.jsonl as `<name>-s<step>`.
 *
 * Sampling is seeded: turn t of sample k of question q at step s draws the seed
 * hash(run seed, s, q's id, k, t), so a rerun with the same seed samples the same episodes (on backends
 * that honour the sampling seed: Tinker and the local backend) and a resumed step redoes the same draws.
 *
 * Resume: the last line of checkpoints.jsonl names the step and its state; lines of later steps
 * are dropped and those steps are redone on the same questions, so no question is used twice.
 */
import { createHash } from "node:crypto";
import { ASSUMED_THINKING, THINKING_FIELD } from "../../base/runs/manifest-thinking";
import { isAbsolute, join } from "node:path";
import { loadTokenizer, loadTokenizerSource, offlineTokenizer, type ChatTokenizer } from "../../base/chat";
import type { AgentLabConfig } from "../../base/config";
import { sha256File } from "../../base/runs/manifest";
import { UserError } from "../../base/errors";
import { environmentField } from "../../envs/manifest-environment";
import { environmentPrompt } from "../../envs/prompt";
import type { EnvItem, EnvRun, Environment } from "../../harness/environment";
import { episodeUsd } from "../eval/cost";
import { HARNESS_VERSION, resolveEnvironment, toRecord } from "../eval/eval-split";
import { runPool } from "../eval/pool";
import { runEnvEpisode, type Episode } from "../../harness";
import type { Policy } from "../../harness/policy";
import {
  BudgetExceededError,
  EpisodeSizeTracker,
  estimateRlStepUsd,
  TYPICAL_EPISODE_SEQUENCE,
} from "../../base/ledger";
import { resolveCheckpointPath } from "../../base/checkpoints/registry";
import type { Searcher } from "../../base/search/searcher";
import type { SamplingClient, TrainingClient } from "../../base/tinker";
import { MISSING_LOGPROBS_MESSAGE, TinkerPolicy } from "../../harness/policies/tinker";
import type { Datum } from "../../base/tinker/wire";
import { modelInputLength, rlDatumFromEpisode } from "../../base/tinker/wire/builders";
import type { ProgressStatus } from "../../base/runs/progress";
import { checkRunName, runFile } from "../../base/runs/run-folder";
import { openTrainTarget, type TrainBackendOptions } from "./backend";
import { COOKBOOK_ADAM } from "./sft";
import { appendRow, readRows, type RunCheckpoint } from "./run-log";
import { TrainingRun } from "./training-run";
import type { StepContext } from "../specs/step-context";

/** Rewards closer than this count as equal (the recipe's 1e-6). */
export const CONSTANT_GROUP_EPS = 1e-6;

export interface TrainGrpoOptions extends TrainBackendOptions, StepContext {
  workspaceDir: string;
  /** The environment (default: config env). */
  env?: string | Environment<EnvItem>;
  config: AgentLabConfig;
  name: string;
  /** Start from this state (registry name or tinker://…/weights/…); absent = the base model. */
  initState?: string;
  steps: number;
  /** Questions per step (Q). */
  questions: number;
  /** Episodes per question (G). */
  group: number;
  lr: number;
  temperature: number;
  /** Run seed of the sampling draws (default 0); see `episodeSeed`. */
  seed?: number;
  /** Divide each group's advantages by its reward standard deviation (default false: mean only, the recipe's). */
  normalizeAdvantages?: boolean;
  /** First train question index (skip those used for SFT). */
  offset: number;
  saveEvery: number;
  resume?: boolean;
  promptFile?: string;
  indexDir?: string;
  /** Tests and the offline pipeline: the train questions, searcher, tokenizer or policy to use instead of the defaults. */
  trainQuestions?: readonly EnvItem[];
  /** `--train-tasks DIR`: a gen-tasks folder as the training split (environments that take one); recorded with its tasks.jsonl hash. */
  trainTasksDir?: string;
  searcher?: Searcher | null;
  tokenizer?: ChatTokenizer;
  /** `--tokenizer`: hub id, folder or STAND_IN_TOKENIZER when it is not the model's (a rehearsal's stand-in); recorded in the manifest. */
  tokenizerSource?: string;
  /** Builds the step's policy over its fresh sampler (default: TinkerPolicy that requires logprobs). */
  policyFor?: (sampler: SamplingClient, tokenizer: ChatTokenizer, step: number) => Policy;
}

/** One line of metrics.jsonl: the recipe's columns, then details. */
export interface GrpoMetrics {
  step: number;
  reward: number;
  /** Fraction of groups skipped (all rewards equal). */
  skipped_groups: number;
  searches: number;
  answered: number;
  budget_hit: number;
  /** Mean tokens after the prompt per episode. */
  tokens: number;
  /** Run total so far (USD). */
  usd: number;
  skipped_count: number;
  groups: number;
  episodes: number;
  datums: number;
  trained_tokens: number;
  /** False when every group was skipped: no optimizer step. */
  optim_step: boolean;
  lr: number;
  /** The sampling session the step's episodes came from (a new one every step). */
  sampler: string;
  questions: [number, number];
}

export interface GroupRecord {
  step: number;
  group: number;
  question_id: string;
  rewards: number[];
  mean: number;
  /** null when the group was skipped. */
  advantages: number[] | null;
  skipped: boolean;
  /** Line indices (0-based) of this group's episodes in episodes.jsonl. */
  episodes: number[];
}

export interface TrainGrpoResult {
  runDir: string;
  status: "done" | "interrupted" | "budget" | "out_of_questions";
  /** Last completed step. */
  step: number;
  checkpoints: RunCheckpoint[];
  spentUsd: number;
  message?: string;
}

/**
 * reward − group mean, or null when the rewards are all equal (the group is skipped). With
 * `normalize`, divided by the group's standard deviation as well (GRPO's original form): a group
 * where one sample of many found the answer then pushes as hard as an evenly split one, which helps
 * a small model whose rare successes would otherwise carry little weight.
 */
export function groupAdvantages(rewards: readonly number[], normalize = false): number[] | null {
  if (rewards.length === 0) return null;
  const max = Math.max(...rewards);
  const min = Math.min(...rewards);
  if (max - min < CONSTANT_GROUP_EPS) return null;
  const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  const centred = rewards.map((r) => r - mean);
  if (!normalize) return centred;
  const std = Math.sqrt(centred.reduce((s, d) => s + d * d, 0) / rewards.length);
  return centred.map((d) => d / std);
}

/** The sampling seed of one turn: a 31-bit hash of (run seed, step, question id, sample, turn). */
export function episodeSeed(runSeed: number, step: number, questionId: string, sample: number, turn: number): number {
  const digest = createHash("sha256")
    .update(JSON.stringify([runSeed, step, questionId, sample, turn]))
    .digest();
  return digest.readUInt32BE(0) >>> 1;
}

/** The policy with every call seeded by its turn number (one wrapper per episode: turns count from 0). */
export function seededPolicy(policy: Policy, seedOfTurn: (turn: number) => number): Policy {
  let turn = 0;
  return {
    tokenizer: policy.tokenizer,
    endToken: policy.endToken,
    sample: (prompt, options) => policy.sample(prompt, { ...options, seed: seedOfTurn(turn++) }),
    describe: () => policy.describe(),
  };
}

const inWorkspace = (ws: string, p: string) => (isAbsolute(p) ? p : join(ws, p));
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

export async function trainGrpo(o: TrainGrpoOptions): Promise<TrainGrpoResult> {
  const log = o.log ?? (() => {});
  checkRunName(o.name);
  for (const [flag, v] of [
    ["steps", o.steps],
    ["questions", o.questions],
    ["group", o.group],
    ["save-every", o.saveEvery],
  ] as const) {
    if (!(Number.isInteger(v) && v >= 1)) throw new UserError(`--${flag} must be an integer ≥ 1, got ${v}`);
  }
  if (!(Number.isInteger(o.offset) && o.offset >= 0))
    throw new UserError(`--offset must be an integer ≥ 0, got ${o.offset}`);
  if (!(o.lr > 0)) throw new UserError("--lr must be > 0");
  if (!(o.temperature >= 0)) throw new UserError("--temperature must be ≥ 0");
  const runSeed = o.seed ?? 0;
  if (!Number.isSafeInteger(runSeed)) throw new UserError(`--seed must be an integer, got ${o.seed}`);
  const runsDir = inWorkspace(o.workspaceDir, o.config.runsDir);
  const runDir = join(runsDir, o.name);
  const env = resolveEnvironment(o.env, o.config);
  const dataDir = env.data.dir(inWorkspace(o.workspaceDir, o.config.dataDir));

  const target = openTrainTarget(o.config, o); // refuses an unpriced model before anything is sent
  let run: TrainingRun<GrpoManifest> | undefined;
  let status: ProgressStatus = "failed";
  try {
    if (o.trainTasksDir && o.trainQuestions) throw new Error("trainTasksDir and trainQuestions exclude each other");
    if (o.trainTasksDir && !env.data.loadTrainTasks)
      throw new UserError(`--train-tasks: the ${env.name} environment does not train on gen-tasks folders`);
    const tasks = o.trainTasksDir
      ? env.data.loadTrainTasks!(inWorkspace(o.workspaceDir, o.trainTasksDir), dataDir)
      : undefined;
    const items = tasks?.items ?? o.trainQuestions ?? env.data.load(dataDir, "train");
    if (o.offset >= items.length)
      throw new UserError(`--offset ${o.offset} is past the ${items.length} train questions`);
    const prompt = environmentPrompt(env, { promptFile: o.promptFile, config: o.config, workspaceDir: o.workspaceDir });
    const envRun = await env.open({
      workspaceDir: o.workspaceDir,
      config: o.config,
      dataDir,
      ...(o.indexDir ? { indexDir: inWorkspace(o.workspaceDir, o.indexDir) } : {}),
      ...(o.searcher !== undefined ? { searcher: o.searcher } : {}),
    });
    const tokenizer =
      o.tokenizer ??
      (o.tokenizerSource
        ? await loadTokenizerSource(o.tokenizerSource)
        : target.backend === "local"
          ? await offlineTokenizer("qwen3")
          : await loadTokenizer(target.baseModel));
    const initState = o.initState ? resolveCheckpointPath(runsDir, o.initState, "state") : undefined;
    const manifest = {
      kind: "grpo" as const,
      ...environmentField(env),
      base_model: target.baseModel,
      backend: target.backend,
      // A state brings its own rank; the setting applies only to a fresh LoRA.
      lora_rank: initState ? null : o.config.loraRank,
      lr: o.lr,
      // Written only when on, so runs from before the option still resume.
      ...(o.normalizeAdvantages ? { normalize_advantages: true } : {}),
      adam: COOKBOOK_ADAM,
      loss_fn: "importance_sampling",
      questions_per_step: o.questions,
      group: o.group,
      temperature: o.temperature,
      seed: runSeed,
      offset: o.offset,
      save_every: o.saveEvery,
      steps: o.steps,
      parent: o.initState ?? null,
      init_state: initState ?? null,
      harness_version: HARNESS_VERSION,
      system_prompt: prompt.manifest,
      train_split: tasks
        ? { ...tasks.record, tasks_dir: o.trainTasksDir! }
        : o.trainQuestions
          ? { file: "(given by the caller)", questions: items.length }
          : { file: "train.jsonl", sha256: sha256File(join(dataDir, "train.jsonl")), questions: items.length },
      ...envRun.fingerprint,
      sampling: { max_tokens: o.config.maxTokens },
      tokenizer: tokenizer.name,
      // Not among mustMatch: a run from before the field still resumes (read as off, manifest-thinking.ts).
      [THINKING_FIELD]: envRun.thinking ?? ASSUMED_THINKING,
      command: o.command,
      created: new Date().toISOString(),
    };
    run = TrainingRun.open<GrpoManifest>({
      workspaceDir: o.workspaceDir,
      config: o.config,
      name: o.name,
      target,
      resume: Boolean(o.resume),
      initState: o.initState,
      manifest,
      mustMatch: [
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
        ...Object.keys(envRun.fingerprint),
        "sampling",
        // Another tasks folder (or the same one regenerated) is another training split.
        ...(tasks ? ["train_split"] : []),
      ],
      stepFiles: [runFile(runDir, "metrics"), runFile(runDir, "groups"), runFile(runDir, "episodes")],
      dataHash: (c) => `train[${o.offset}:${o.offset + c.batch * o.questions}]`,
      progress: { label: "GRPO", planned: o.steps, onUpdate: o.onProgress },
      signal: o.signal,
      log,
    });
    const result = await grpoLoop({ o, run, items, envRun, tokenizer, systemPrompt: prompt.text, runSeed, log });
    status = result.status === "done" ? "done" : result.status === "interrupted" ? "interrupted" : "failed";
    return result;
  } finally {
    if (run) run.close(status);
    else target.service.close();
  }
}

type GrpoManifest = { kind: "grpo" } & Record<string, unknown>;

interface GrpoLoop {
  o: TrainGrpoOptions;
  run: TrainingRun<GrpoManifest>;
  items: readonly EnvItem[];
  envRun: EnvRun<EnvItem>;
  tokenizer: ChatTokenizer;
  systemPrompt: string | undefined;
  runSeed: number;
  log: (line: string) => void;
}

/** The loop: sample the step's groups, build the RL data, train, log; save every `saveEvery` steps. */
async function grpoLoop(l: GrpoLoop): Promise<TrainGrpoResult> {
  const { o, run, log } = l;
  const { runDir, ledger } = run;
  if (run.lastStep >= o.steps) {
    log(`${runDir} is already at step ${run.lastStep} of ${o.steps}; nothing to do`);
    return { runDir, status: "done", step: run.lastStep, checkpoints: run.checkpoints, spentUsd: 0 };
  }
  const tc = await run.createClient();
  let episodeLine = readRows(runFile(runDir, "episodes")).length;
  const sizes = new EpisodeSizeTracker();
  let meanSequence = TYPICAL_EPISODE_SEQUENCE;
  let step = run.lastStep;

  const save = () => run.save(tc, `${o.name}-s${step}`, step, { final: step === o.steps });
  /** Stop between steps without losing the steps done since the last save. */
  const stop = async (status: TrainGrpoResult["status"], message: string): Promise<TrainGrpoResult> => {
    log(message);
    if (step > run.lastStep) await save();
    return { runDir, status, step, checkpoints: run.checkpoints, spentUsd: run.spentUsd, message };
  };

  while (step < o.steps) {
    const s = step + 1;
    if (o.signal?.aborted) return await stop("interrupted", `stopped before step ${s}; continue with --resume`);
    const from = o.offset + (s - 1) * o.questions;
    const batchQs = l.items.slice(from, from + o.questions);
    if (batchQs.length === 0)
      return await stop(
        "out_of_questions",
        `no train questions left for step ${s} (index ${from} of ${l.items.length})`,
      );
    try {
      ledger.ensureCanSpend(
        estimateRlStepUsd(run.target.prices, batchQs.length * o.group, sizes.mean, meanSequence),
        `step ${s}`,
      );
    } catch (e) {
      if (e instanceof BudgetExceededError) return await stop("budget", e.message);
      throw e;
    }

    const groups = await sampleGroups(l, tc, s, batchQs);
    if (o.signal?.aborted)
      return await stop("interrupted", `stopped during step ${s} (its episodes are not kept); continue with --resume`);
    const episodes = groups.flat();
    const { data, groupRows, skipped } = buildRlData(groups, batchQs, s, episodeLine, o);
    const trainedTokens = await trainOnBatch(tc, data, o.lr);
    if (data.length === 0) log(`step ${s}: all ${groups.length} groups had equal rewards; no optimizer step`);
    step = s;

    ledger.record({
      kind: "sample",
      prefill: sum(episodes, (e) => e.prefill),
      sampled: sum(episodes, (e) => e.generated),
      label: `step ${s}`,
    });
    if (trainedTokens > 0) ledger.record({ kind: "train", trained: trainedTokens, label: `step ${s}` });
    for (const e of episodes) sizes.add(e);
    if (data.length) meanSequence = trainedTokens / data.length;
    episodeLine += logStep(l, {
      s,
      from,
      groups,
      groupRows,
      skipped,
      data,
      trainedTokens,
      samplerId: groups.samplerId,
    });
    if (s % o.saveEvery === 0 || s === o.steps) await save();
  }
  return { runDir, status: "done", step, checkpoints: run.checkpoints, spentUsd: run.spentUsd };
}

/** G episodes per question from a fresh sampler of the weights as they are now (never a stale one). */
async function sampleGroups(
  l: GrpoLoop,
  tc: TrainingClient,
  s: number,
  batchQs: readonly EnvItem[],
): Promise<Episode[][] & { samplerId: string }> {
  const { o } = l;
  const sampler = await tc.saveWeightsAndGetSamplingClient().result();
  const policy =
    o.policyFor?.(sampler, l.tokenizer, s) ??
    new TinkerPolicy({
      sampler,
      tokenizer: l.tokenizer,
      model: l.run.target.baseModel,
      requireLogprobs: true,
      kind: l.run.target.backend === "local" ? "local-backend" : "tinker",
    });
  const groups: Episode[][] = batchQs.map(() => new Array<Episode>(o.group));
  const jobs = batchQs.flatMap((q, g) => Array.from({ length: o.group }, (_, k) => ({ q, g, k })));
  try {
    await runPool(
      jobs,
      o.config.concurrency,
      async ({ q, g, k }, signal) => {
        const draws = seededPolicy(policy, (turn) => episodeSeed(l.runSeed, s, q.id, k, turn));
        const episode = l.envRun.start(q, { tokenizer: draws.tokenizer, systemPrompt: l.systemPrompt });
        groups[g][k] = await runEnvEpisode(draws, q, episode, {
          temperature: o.temperature,
          maxTokens: o.config.maxTokens,
          signal,
        });
      },
      o.signal,
    );
  } catch (e) {
    // The sampler's own refusal (TinkerPolicy with requireLogprobs) is a setup problem, not a crash.
    if (e instanceof Error && e.message === MISSING_LOGPROBS_MESSAGE) throw new UserError(MISSING_LOGPROBS_MESSAGE);
    throw e;
  }
  if (!o.signal?.aborted && groups.flat().some((e) => !e.hasLogprobs)) throw new UserError(MISSING_LOGPROBS_MESSAGE);
  return Object.assign(groups, { samplerId: sampler.samplingSessionId });
}

/** Advantages per group (constant groups skipped) → RL datums, and the groups.jsonl rows. */
function buildRlData(
  groups: Episode[][],
  batchQs: readonly EnvItem[],
  s: number,
  episodeLine: number,
  o: TrainGrpoOptions,
): { data: Datum[]; groupRows: GroupRecord[]; skipped: number } {
  const data: Datum[] = [];
  const groupRows: GroupRecord[] = [];
  let skipped = 0;
  groups.forEach((group, g) => {
    const rewards = group.map((e) => e.reward);
    const adv = groupAdvantages(rewards, Boolean(o.normalizeAdvantages));
    if (!adv) skipped++;
    else group.forEach((e, k) => data.push(rlDatumFromEpisode(e, adv[k])));
    groupRows.push({
      step: s,
      group: g,
      question_id: batchQs[g].id,
      rewards,
      mean: mean(rewards),
      advantages: adv,
      skipped: !adv,
      episodes: group.map((_, k) => episodeLine + g * o.group + k),
    });
  });
  return { data, groupRows, skipped };
}

/** forward_backward and optim_step on the wire back to back; returns the tokens trained on. */
async function trainOnBatch(tc: TrainingClient, data: Datum[], lr: number): Promise<number> {
  if (data.length === 0) return 0;
  const fwd = tc.forwardBackward(data, "importance_sampling");
  const opt = tc.optimStep({ learning_rate: lr, ...COOKBOOK_ADAM });
  await fwd.result();
  await opt.result();
  return data.reduce((n, d) => n + modelInputLength(d.model_input), 0);
}

interface StepLog {
  s: number;
  from: number;
  groups: Episode[][];
  groupRows: GroupRecord[];
  skipped: number;
  data: Datum[];
  trainedTokens: number;
  samplerId: string;
}

/** Appends the step's episodes, groups and metrics line, and prints the recipe's step line; returns the episodes written. */
function logStep(l: GrpoLoop, x: StepLog): number {
  const { o, run } = l;
  const episodesFile = runFile(run.runDir, "episodes");
  x.groups.forEach((group, g) =>
    group.forEach((e, k) =>
      appendRow(episodesFile, {
        ...toRecord(e, episodeUsd(run.target.prices, e.prefill, e.generated)),
        id: `${e.id}/s${x.s}/${k}`,
        question_id: e.id,
        step: x.s,
        group: g,
        sample: k,
      }),
    ),
  );
  for (const row of x.groupRows) appendRow(runFile(run.runDir, "groups"), row);
  const episodes = x.groups.flat();
  const n = episodes.length;
  const row: GrpoMetrics = {
    step: x.s,
    reward: mean(episodes.map((e) => e.reward)),
    skipped_groups: x.skipped / x.groups.length,
    searches: mean(episodes.map((e) => e.searches.length)),
    answered: episodes.filter((e) => e.end === "answer").length / n,
    budget_hit: episodes.filter((e) => e.end === "budget" || e.end === "length").length / n,
    tokens: mean(episodes.map((e) => e.tokens.length)),
    usd: run.ledger.totalUsd,
    skipped_count: x.skipped,
    groups: x.groups.length,
    episodes: n,
    datums: x.data.length,
    trained_tokens: x.trainedTokens,
    optim_step: x.data.length > 0,
    lr: o.lr,
    sampler: x.samplerId,
    questions: [x.from, x.from + x.groups.length],
  };
  run.appendMetrics(row);
  l.log(
    `step ${x.s}  reward ${row.reward.toFixed(3)}  skipped_groups ${row.skipped_groups.toFixed(3)}  searches ${row.searches.toFixed(3)}  ` +
      `answered ${row.answered.toFixed(3)}  budget_hit ${row.budget_hit.toFixed(3)}  tokens ${row.tokens.toFixed(3)}  usd ${row.usd.toFixed(2)}`,
  );
  return n;
}

const sum = <T>(xs: readonly T[], f: (x: T) => number) => xs.reduce((n, x) => n + f(x), 0);
