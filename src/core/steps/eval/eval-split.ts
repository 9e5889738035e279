/**
 * `agent-lab eval` as a core function: a split, a model source, the harness and a searcher, run
 * into `<runsDir>/<name>/` with a fingerprint. The CLI and the extension's job runner call this.
 */
import { isAbsolute, join } from "node:path";
import type { AgentLabConfig } from "../../base/config";
import type { Split } from "../../base/data/question";
import { UserError } from "../../base/errors";
import { environmentField } from "../../envs/manifest-environment";
import { environmentPrompt, type EnvironmentPrompt } from "../../envs/prompt";
import { environmentByName } from "../../envs/registry";
import type { EnvItem, EnvRun, Environment } from "../../harness/environment";
import { runEnvEpisode, type Episode, type Policy, type PolicyInfo } from "../../harness";
import { MANIFEST_FORMAT, sha256File, type RunManifest } from "../../base/runs/manifest";
import { ASSUMED_THINKING, THINKING_FIELD } from "../../base/runs/manifest-thinking";
import type { EpisodeRecord } from "../../base/runs/run-files";
import { EPISODE_FORMAT } from "../../base/runs/episode-v1";
import { metricRoles } from "../../base/runs/metrics";
import { checkRunName } from "../../base/runs/run-name";
import { TEST_SPLIT_FLAG } from "../specs/common-flags";
import { makePolicy } from "./backends";
import { episodeUsd, pricesForPolicy } from "./cost";
import { runEval, type EvalResult } from "./run-eval";
import { keepForCompare } from "../ablate/compare-cache";
import type { PolicyChoice, StepContext } from "../specs/step-context";

/**
 * Bumped whenever the harness changes what an episode is (prompt stitching, result format, end
 * rules), so runs from different harnesses are flagged as not comparable.
 */
export const HARNESS_VERSION = "harness-1";

/** The flag that must accompany `--split test` (declared once, with the step specs). */
export { TEST_SPLIT_FLAG };

export interface EvalSplitOptions extends StepContext, PolicyChoice {
  workspaceDir: string;
  /** The environment (default: config env; an unknown name is refused listing the known ones). */
  env?: string | Environment<EnvItem>;
  /** Settings with CLI overrides already merged (topK, maxSearches, maxTokens, concurrency, …). */
  config: AgentLabConfig;
  name: string;
  split: Split;
  /** Set to TEST_SPLIT_FLAG when the user passed it. */
  testFlag?: string;
  closedBook: boolean;
  limit?: number;
  resume: boolean;
  temperature: number;
  /** System prompt file (default: config.systemPromptFile, else the shipped prompt). */
  promptFile?: string;
  /** A ready policy instead of building one from `backend` (the extension, tests). */
  policy?: Policy;
  /** BM25 index folder (default `<dataDir>/bm25`). */
  indexDir?: string;
}

export interface EvalSplitResult extends EvalResult {
  runDir: string;
  env: Environment<EnvItem>;
}

const inWorkspace = (workspaceDir: string, p: string) => (isAbsolute(p) ? p : join(workspaceDir, p));

/** The environment a step runs on: given, named, or the config's. */
export function resolveEnvironment(
  env: string | Environment<EnvItem> | undefined,
  config: AgentLabConfig,
): Environment<EnvItem> {
  return typeof env === "object" ? env : environmentByName(env ?? config.env);
}

export async function evalSplit(o: EvalSplitOptions): Promise<EvalSplitResult> {
  checkRunName(o.name);
  const env = resolveEnvironment(o.env, o.config);
  const dataDir = env.data.dir(inWorkspace(o.workspaceDir, o.config.dataDir));
  const runDir = join(inWorkspace(o.workspaceDir, o.config.runsDir), o.name);

  if (o.split === "test") {
    if (o.testFlag !== TEST_SPLIT_FLAG) {
      throw new UserError(
        `the test split is opened once, at the end (Step 5). To open it now, add ${TEST_SPLIT_FLAG}; the run's manifest records that you did.`,
      );
    }
  }
  // The environment's loader checks the test split against its locked hash.
  const all = env.data.load(dataDir, o.split);
  const questions: EnvItem[] = o.limit !== undefined ? all.slice(0, o.limit) : all;

  // Read before the model is loaded or a service contacted, so a bad --prompt is said at once.
  const prompt = environmentPrompt(env, {
    promptFile: o.promptFile,
    config: o.config,
    workspaceDir: o.workspaceDir,
    closedBook: o.closedBook,
  });
  const policy = o.policy ?? (await makePolicy({ ...o, env }));
  try {
    return await runWithPolicy(o, env, policy, prompt, questions, dataDir, runDir);
  } finally {
    // Remote policies hold a session (heartbeat timers) that would keep the process alive.
    policy.close?.();
  }
}

async function runWithPolicy(
  o: EvalSplitOptions,
  env: Environment<EnvItem>,
  policy: Policy,
  prompt: EnvironmentPrompt,
  questions: EnvItem[],
  dataDir: string,
  runDir: string,
): Promise<EvalSplitResult> {
  const info = policy.describe();
  // Refuses an unpriced paid model here, before a single token is sampled.
  const prices = pricesForPolicy(o.config, info);
  const envRun = await env.open({
    workspaceDir: o.workspaceDir,
    config: o.config,
    dataDir,
    closedBook: o.closedBook,
    ...(o.indexDir ? { indexDir: inWorkspace(o.workspaceDir, o.indexDir) } : {}),
  });

  const manifest = evalManifest({
    env,
    envRun,
    split: splitRecord(dataDir, o.split),
    prompt,
    policy: info,
    tokenizer: policy.tokenizer.name,
    sampling: { temperature: o.temperature, max_tokens: o.config.maxTokens },
    job: {
      command: o.command,
      created: new Date().toISOString(),
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      concurrency: o.config.concurrency,
    },
  });

  const result = await runEval({
    runDir,
    questions,
    manifest,
    systemPrompt: prompt.text,
    resume: o.resume,
    concurrency: o.config.concurrency,
    split: o.split,
    model: info.model,
    checkpoint: info.checkpoint,
    signal: o.signal,
    log: o.log,
    cost: { prices, budgetUsd: o.config.budgetUsd },
    progress: { step: "eval", label: "eval", onUpdate: o.onProgress },
    metricLabel: metricRoles(env.metrics).primary.label,
    metric: metricRoles(env.metrics).primary.name,
    metrics: env.metrics,
    runQuestion: async (q, signal) => {
      const episode = envRun.start(q, { tokenizer: policy.tokenizer, systemPrompt: prompt.text });
      const ep = await runEnvEpisode(policy, q, episode, {
        temperature: o.temperature,
        maxTokens: o.config.maxTokens,
        signal,
      });
      return toRecord(ep, episodeUsd(prices, ep.prefill, ep.generated));
    },
  });
  // A finished run's Compare cache, now rather than at its first Compare (at 10,000 questions its
  // own columns' 10^8 draws: about 0.8 s here, against a second of waiting in the panel then).
  if (result.summary.status === "done") keepForCompare(runDir);
  return { ...result, runDir, env };
}

/** What an eval run's manifest is made of (the playground saves its episodes with the same one). */
export interface EvalManifestParts {
  env: Environment<EnvItem>;
  envRun: EnvRun<EnvItem>;
  /** The questions' split as the manifest records it (`splitRecord`, or typed questions'). */
  split: RunManifest["split"];
  prompt: EnvironmentPrompt;
  policy: PolicyInfo;
  tokenizer: string;
  sampling: RunManifest["sampling"];
  job: RunManifest["job"];
}

/** A split's file as a manifest records it: its name and the hash of its content. */
export function splitRecord(dataDir: string, split: Split): RunManifest["split"] {
  return { name: split, file: `${split}.jsonl`, sha256: sha256File(join(dataDir, `${split}.jsonl`)) };
}

/** An eval run's manifest: the fingerprint of everything that decides its numbers, then the job. */
export function evalManifest(p: EvalManifestParts): RunManifest {
  return {
    format: MANIFEST_FORMAT,
    ...environmentField(p.env),
    split: p.split,
    test_split: p.split.name === "test" ? { opened: true, flag: TEST_SPLIT_FLAG } : { opened: false },
    system_prompt: p.prompt.manifest,
    harness_version: HARNESS_VERSION,
    scorer_version: p.env.scorerVersion,
    policy: {
      kind: p.policy.kind,
      model: p.policy.model,
      ...(p.policy.checkpoint ? { checkpoint: p.policy.checkpoint } : {}),
      logprobs: p.policy.logprobs,
    },
    sampling: p.sampling,
    tokenizer: p.tokenizer,
    [THINKING_FIELD]: p.envRun.thinking ?? ASSUMED_THINKING,
    ...p.envRun.fingerprint,
    job: p.job,
  };
}

/** The harness's episode as one line of episodes.jsonl: the common fields, then the environment's. */
export function toRecord(ep: Episode, usd: number): EpisodeRecord {
  // The light fields first, before "prompt" (the episode index reads a line's head only).
  return {
    format: EPISODE_FORMAT,
    id: ep.id,
    question: ep.question,
    answers: ep.answers,
    prediction: ep.answer,
    metrics: ep.metrics,
    reward: ep.reward,
    end: ep.end,
    searches: ep.searches,
    prompt: ep.prompt,
    tokens: ep.tokens,
    sampled: ep.sampled,
    logprobs: ep.hasLogprobs ? ep.logprobs : null,
    prefill: ep.prefill,
    generated: ep.generated,
    usd,
    turns: ep.turns.map((t) => ({
      start: t.start,
      reply_end: t.replyEnd,
      end: t.end,
      action: t.action,
      stop_reason: t.stopReason,
      ...(t.query !== undefined ? { query: t.query } : {}),
      ...(t.hits ? { hits: t.hits } : {}),
    })),
    ...ep.fields,
  };
}
