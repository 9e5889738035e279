/**
 * `agent-lab sft-data` as a core function: rejection sampling over train questions (recipe Step 3a).
 * Each question gets `tries` episodes through the same harness eval uses; the shortest attempt that
 * searched and scored F1 ≥ minF1 is appended to sft.jsonl at once, and the question is recorded in
 * attempts.jsonl either way, so a crash or `kill -9` loses at most the questions in flight and
 * `resume` skips every question already decided. Sampling is charged to the run's ledger, and the
 * budget cap is checked before each question starts.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { AgentLabConfig } from "../../base/config";
import { UserError } from "../../base/errors";
import { environmentInfo, takesSftSource } from "../../envs/catalog";
import { environmentField, manifestEnvironment } from "../../envs/manifest-environment";
import { environmentPrompt } from "../../envs/prompt";
import type { EnvItem, Environment } from "../../harness/environment";
import { makePolicy } from "../eval/backends";
import { episodeUsd, pricesForPolicy } from "../eval/cost";
import { HARNESS_VERSION, resolveEnvironment } from "../eval/eval-split";
import { runPool } from "../eval/pool";
import { runEnvEpisode, type Episode, type Policy } from "../../harness";
import {
  BudgetExceededError,
  CostLedger,
  EpisodeSizeTracker,
  estimateEpisodesUsd,
  TYPICAL_EPISODE,
} from "../../base/ledger";
import { writeJsonAtomic } from "../../base/util/atomic-write";
import { checkRunName } from "../../base/runs/run-name";
import { sha256File } from "../../base/runs/manifest";
import { ProgressWriter } from "../../base/runs/progress";
import {
  changedFields,
  openRunForWriting,
  refuseWriteIntoRun,
  RUN_FILES,
  type RunLock,
} from "../../base/runs/run-folder";
import { HeldOutQuestions } from "./held-out";
import { SFT_MANIFEST_FORMAT, type FileHash, type SftDataManifest } from "./lineage";
import { chooseAttempt, describeRule, solved, type AcceptanceRule } from "./select";
import {
  appendAttempt,
  appendSftRow,
  fileSha256,
  readAttempts,
  readSftRows,
  repairSftFiles,
  sftPath,
  SFT_FILE,
  type AttemptRecord,
  type SftRow,
  type TraceSource,
} from "./sft-files";
import type { PolicyChoice, StepContext } from "../specs/step-context";

export const SFT_MANIFEST_FILE = RUN_FILES.manifest;

export interface SftDataOptions extends StepContext, PolicyChoice {
  workspaceDir: string;
  /** The environment (default: config env). */
  env?: string | Environment<EnvItem>;
  /** Settings with CLI overrides merged (topK, maxSearches, maxTokens, concurrency, budgetUsd). */
  config: AgentLabConfig;
  /** Run folder name under runsDir. */
  name: string;
  /** Take train questions [offset, offset + questions). */
  questions: number;
  offset: number;
  /** `--train-tasks DIR`: a gen-tasks folder's tasks as the train questions (environments that take one); its tasks.jsonl is hashed as data.train. */
  trainTasksDir?: string;
  tries: number;
  temperature: number;
  minF1: number;
  /** Keep only attempts that searched (default true, the recipe's rule; a rehearsal keeps any). */
  requireSearch?: boolean;
  /** "self": the model being trained samples its own data; "teacher": another source to distil from. */
  role: "self" | "teacher";
  /** A ready policy instead of building one from `backend` (tests, the extension). */
  policy?: Policy;
  promptFile?: string;
  /** BM25 index folder (default `<dataDir>/bm25`). */
  indexDir?: string;
  resume: boolean;
}

export interface SftDataResult {
  runDir: string;
  manifest: SftDataManifest;
  /** Questions decided by earlier jobs of this run (resume). */
  resumed: number;
  /** Questions this job decided. */
  ran: number;
  /** Set when the budget cap stopped the job early. */
  budgetStop?: BudgetExceededError;
  /** The recipe's closing line. */
  finalLine: string;
}

const inWorkspace = (workspaceDir: string, p: string) => (isAbsolute(p) ? p : join(workspaceDir, p));

export async function collectSftData(o: SftDataOptions): Promise<SftDataResult> {
  checkRunName(o.name);
  if (!Number.isInteger(o.tries) || o.tries < 1) throw new UserError(`--tries must be an integer ≥ 1, got ${o.tries}`);
  if (!(o.minF1 >= 0 && o.minF1 <= 1)) throw new UserError(`--min-f1 must be between 0 and 1, got ${o.minF1}`);
  const env = resolveEnvironment(o.env, o.config);
  if (o.role === "teacher" && o.backend === "scripted" && !takesSftSource(env.name, "teacher")) {
    throw new UserError(
      `--teacher scripted: the scripted teacher only knows the search agent's protocol, not the ${env.name} environment; sample from a model (--backend) or build from scored runs (--from-runs)`,
    );
  }
  const dataDir = env.data.dir(inWorkspace(o.workspaceDir, o.config.dataDir));
  const runDir = join(inWorkspace(o.workspaceDir, o.config.runsDir), o.name);
  refuseWriteIntoRun(runDir, { flag: "--name", own: true });

  // Questions come from train only, and never one that val or test holds (by id or by text).
  if (o.trainTasksDir && !env.data.loadTrainTasks)
    throw new UserError(`--train-tasks: the ${env.name} environment does not train on gen-tasks folders`);
  const tasks = o.trainTasksDir
    ? env.data.loadTrainTasks!(inWorkspace(o.workspaceDir, o.trainTasksDir), dataDir)
    : undefined;
  const train = tasks?.items ?? env.data.load(dataDir, "train");
  const range = train.slice(o.offset, o.offset + o.questions);
  if (range.length === 0)
    throw new UserError(
      `no train questions in [${o.offset}, ${o.offset + o.questions}): train.jsonl has ${train.length}`,
    );
  const heldOut = HeldOutQuestions.fromDataDir(dataDir);
  const { allowed, excluded } = heldOut.filter(range);
  if (excluded.length > 0) {
    const shown = excluded
      .slice(0, 3)
      .map((h) => `${h.id} (= ${h.split} ${h.heldOutId}, by ${h.by})`)
      .join(", ");
    o.log?.(
      `left out ${excluded.length} train question(s) that ${excluded.length === 1 ? "is" : "are"} also in val/test: ${shown}${excluded.length > 3 ? ", …" : ""}`,
    );
  }

  const policy = o.policy ?? (await makePolicy({ ...o, env }));
  try {
    return await collectWithPolicy(
      o,
      env,
      policy,
      allowed,
      excluded,
      dataDir,
      runDir,
      tasks && { file: join(o.trainTasksDir!, tasks.record.file), sha256: tasks.record.sha256 },
    );
  } finally {
    policy.close?.();
  }
}

async function collectWithPolicy(
  o: SftDataOptions,
  env: Environment<EnvItem>,
  policy: Policy,
  questions: EnvItem[],
  excluded: SftDataManifest["held_out_excluded"],
  dataDir: string,
  runDir: string,
  /** The tasks file when the questions came from --train-tasks (else train.jsonl is hashed). */
  trainHash?: FileHash,
): Promise<SftDataResult> {
  const info = policy.describe();
  // An unpriced paid model is refused here, before a token is sampled.
  const prices = pricesForPolicy(o.config, info);
  const prompt = environmentPrompt(env, { promptFile: o.promptFile, config: o.config, workspaceDir: o.workspaceDir });
  const envRun = await env.open({
    workspaceDir: o.workspaceDir,
    config: o.config,
    dataDir,
    ...(o.indexDir ? { indexDir: inWorkspace(o.workspaceDir, o.indexDir) } : {}),
  });
  const rule: AcceptanceRule = { minF1: o.minF1, requireSearch: o.requireSearch ?? env.sftRequiresToolUse };
  const source: TraceSource = {
    role: o.role,
    kind: info.kind,
    model: info.model,
    ...(info.checkpoint ? { checkpoint: info.checkpoint } : {}),
  };
  const hash = (split: string): FileHash | undefined => {
    const file = join(dataDir, `${split}.jsonl`);
    return existsSync(file) ? { file: `${split}.jsonl`, sha256: sha256File(file) } : undefined;
  };
  const fingerprint: SftDataManifest["fingerprint"] = {
    ...environmentField(env),
    source: { ...source, logprobs: info.logprobs },
    acceptance: { ...rule, tries: o.tries, rule: describeRule(rule) },
    sampling: { temperature: o.temperature, max_tokens: o.config.maxTokens },
    system_prompt: prompt.manifest,
    harness_version: HARNESS_VERSION,
    scorer_version: env.scorerVersion,
    tokenizer: policy.tokenizer.name,
    ...envRun.fingerprint,
    data: {
      train: trainHash ?? hash("train")!,
      ...(hash("val") ? { val: hash("val") } : {}),
      ...(hash("test") ? { test: hash("test") } : {}),
    },
  };

  const { previous, lock } = openRunDir(runDir, o, fingerprint);
  try {
    // An empty sft.jsonl from the start: a run that keeps nothing still has a file (and a hash) to point to.
    mkdirSync(runDir, { recursive: true });
    if (!existsSync(sftPath(runDir))) writeFileSync(sftPath(runDir), "");
    const created = previous?.job.created ?? new Date().toISOString();
    const attempts: AttemptRecord[] = previous ? readAttempts(runDir) : [];
    const kept: SftRow[] = previous ? readSftRows(sftPath(runDir)) : [];
    // A question is decided once its attempts line is written; a kept row whose attempts line was
    // lost to a crash also counts, so the resumed job does not append it twice.
    const attemptIds = new Set(attempts.map((a) => a.id));
    for (const row of kept) {
      if (attemptIds.has(row.id)) continue;
      // Killed between the two appends: the tries themselves are lost, the kept trace is not.
      const recovered: AttemptRecord = { id: row.id, tries: [], solved: true, kept: true, usd: 0 };
      appendAttempt(runDir, recovered);
      attempts.push(recovered);
    }
    const decided = new Set(attempts.map((a) => a.id));
    const todo = questions.filter((q) => !decided.has(q.id));
    const resumed = decided.size;

    const ledger = CostLedger.open(runDir, { prices, budgetUsd: o.config.budgetUsd });
    const sizes = new EpisodeSizeTracker();
    const planned = resumed + todo.length;

    const estimate = estimateEpisodesUsd(prices, todo.length * o.tries);
    o.log?.(
      prices
        ? `estimate ≈ $${estimate.toFixed(2)} for ${todo.length} questions × ${o.tries} tries (~${TYPICAL_EPISODE.prefill.toLocaleString("en-US")} prefill + ~${TYPICAL_EPISODE.generated} generated tokens per episode, an upper bound)` +
            (ledger.hasCap
              ? `; budget cap $${ledger.budgetUsd.toFixed(2)}, $${ledger.totalUsd.toFixed(2)} already spent in this run`
              : "")
        : `estimate $0: ${info.kind} runs on this machine (tokens are still recorded in the ledger)`,
    );
    if (resumed > 0) o.log?.(`resuming: ${resumed} questions already decided, ${todo.length} to go`);

    const writeManifest = (status: SftDataManifest["status"]) => {
      const manifest = buildManifest(
        o,
        fingerprint,
        attempts,
        kept,
        ledger.totalUsd,
        runDir,
        excluded,
        created,
        status,
      );
      writeJsonAtomic(join(runDir, SFT_MANIFEST_FILE), manifest);
      return manifest;
    };
    writeManifest("running");
    const progress = new ProgressWriter(runDir, {
      step: "sft-data",
      label: "SFT data",
      unit: "question",
      planned,
      done: resumed,
      usd: ledger.totalUsd,
      onUpdate: o.onProgress,
    });

    const every = planned >= 1000 ? 100 : Math.max(1, Math.ceil(planned / 10));
    let ran = 0;
    let budgetStop: BudgetExceededError | undefined;
    // The recipe keeps ~64 episodes in flight; here `concurrency` episodes, all tries of a question together.
    const questionsInFlight = Math.max(1, Math.floor(o.config.concurrency / o.tries));
    try {
      await runPool(
        todo,
        questionsInFlight,
        async (q, signal) => {
          if (budgetStop) return;
          let reservation;
          try {
            reservation = ledger.reserve(
              estimateEpisodesUsd(prices, o.tries, sizes.mean),
              `the next question (${o.tries} tries)`,
            );
          } catch (e) {
            if (!(e instanceof BudgetExceededError)) throw e;
            budgetStop = e;
            o.log?.(`  stopping: ${e.message}`);
            return;
          }
          let episodes: Episode[];
          try {
            episodes = await Promise.all(
              Array.from({ length: o.tries }, () =>
                runEnvEpisode(policy, q, envRun.start(q, { tokenizer: policy.tokenizer, systemPrompt: prompt.text }), {
                  temperature: o.temperature,
                  maxTokens: o.config.maxTokens,
                  signal,
                }),
              ),
            );
          } catch (e) {
            reservation.release();
            throw e;
          }
          const usd = episodes.reduce((s, e) => s + episodeUsd(prices, e.prefill, e.generated), 0);
          ledger.record({
            kind: "sample",
            prefill: episodes.reduce((s, e) => s + e.prefill, 0),
            sampled: episodes.reduce((s, e) => s + e.generated, 0),
            usd,
            label: `sft-data ${q.id} (${o.tries} tries)`,
            reservation,
          });
          for (const e of episodes) sizes.add(e);
          const best = chooseAttempt(episodes, rule);
          // The kept row first, then the attempts line that marks the question decided.
          if (best) {
            const row = toRow(best, source);
            appendSftRow(runDir, row);
            kept.push(row);
          }
          const record: AttemptRecord = {
            id: q.id,
            tries: episodes.map((e) => ({
              length: e.tokens.length,
              reward: e.reward,
              searches: e.searches.length,
              end: e.end,
            })),
            solved: solved(episodes, rule),
            kept: best !== undefined,
            ...(best ? { kept_try: episodes.indexOf(best) } : {}),
            usd,
          };
          appendAttempt(runDir, record);
          attempts.push(record);
          ran++;
          progress.update({ done: attempts.length, usd: ledger.totalUsd });
          if (attempts.length % every === 0 || attempts.length === planned) {
            o.log?.(`  ${attempts.length}/${planned}  kept ${kept.length}  $${ledger.totalUsd.toFixed(2)}`);
          }
        },
        o.signal,
      );
    } catch (e) {
      const failed = o.signal?.aborted ? "interrupted" : "failed";
      writeManifest(failed);
      progress.finish(failed, { done: attempts.length, usd: ledger.totalUsd });
      throw e;
    }
    const stopped = (o.signal?.aborted || budgetStop !== undefined) && attempts.length < planned;
    progress.finish(stopped ? "interrupted" : "done", { done: attempts.length, usd: ledger.totalUsd });
    const manifest = writeManifest(stopped ? "interrupted" : "done");
    return {
      runDir,
      manifest,
      resumed,
      ran,
      ...(stopped && budgetStop ? { budgetStop } : {}),
      finalLine: sftFinalLine(manifest),
    };
  } finally {
    lock.release();
  }
}

/** Opens the run folder under its writer lock: new, or a resume whose fingerprint still matches. */
function openRunDir(
  runDir: string,
  o: SftDataOptions,
  fingerprint: SftDataManifest["fingerprint"],
): { previous: SftDataManifest | undefined; lock: RunLock } {
  const { stored, release } = openRunForWriting<SftDataManifest>({
    runDir,
    resume: o.resume,
    what: ["agent-lab", "sft-data", "--name", o.name].join(" "),
    changes: (old) => {
      if (old.format !== SFT_MANIFEST_FORMAT)
        throw new UserError(
          `${join(runDir, SFT_MANIFEST_FILE)} is not an sft-data manifest (format ${JSON.stringify(old.format)})`,
        );
      return changedFields(old.fingerprint, fingerprint);
    },
  });
  if (stored) repairSftFiles(runDir);
  return { previous: stored, lock: { release } };
}

function toRow(ep: Episode, source: TraceSource): SftRow {
  return {
    id: ep.id,
    question: ep.question,
    answers: ep.answers,
    prompt: ep.prompt,
    tokens: ep.tokens,
    sampled: ep.sampled,
    logprobs: ep.hasLogprobs ? ep.logprobs : null,
    searches: ep.searches,
    reward: ep.reward,
    source,
  };
}

function buildManifest(
  o: SftDataOptions,
  fingerprint: SftDataManifest["fingerprint"],
  attempts: readonly AttemptRecord[],
  kept: readonly SftRow[],
  usd: number,
  runDir: string,
  excluded: SftDataManifest["held_out_excluded"],
  created: string,
  status: SftDataManifest["status"],
): SftDataManifest {
  const questions = attempts.length;
  const solvedCount = attempts.filter((a) => a.solved).length;
  return {
    format: SFT_MANIFEST_FORMAT,
    status,
    fingerprint,
    counts: {
      questions,
      tries: o.tries,
      episodes: attempts.reduce((s, a) => s + a.tries.length, 0),
      kept: kept.length,
      solved: solvedCount,
    },
    solved_at_n: questions ? solvedCount / questions : 0,
    avg_searches: kept.length ? kept.reduce((s, r) => s + r.searches.length, 0) / kept.length : 0,
    usd,
    output: { file: SFT_FILE, rows: kept.length, sha256: fileSha256(sftPath(runDir)) },
    held_out_excluded: excluded,
    job: { command: o.command, created, updated: new Date().toISOString(), offset: o.offset, questions: o.questions },
  };
}

/**
 * The recipe's advice after collecting: under 300 kept traces is too little to train on; over 90%
 * kept means the questions are too easy for the model to learn much (and where the environment's info
 * says harder ones are). Undefined when neither applies.
 */
export function sftAdvice(m: SftDataManifest): string | undefined {
  if (m.counts.questions === 0) return undefined;
  if (m.counts.kept < 300)
    return `only ${m.counts.kept} traces kept: too few to train on yet; raise --tries (e.g. 8) or loosen --min-f1 (e.g. 0.6), or take more --questions`;
  if (m.counts.kept / m.counts.questions > 0.9) {
    const where = environmentInfo(manifestEnvironment(m).name)?.harderQuestions;
    return `kept ${((100 * m.counts.kept) / m.counts.questions).toFixed(0)}% of questions: the set is too easy for this model; take harder questions${where ? ` (${where})` : ""}`;
  }
  return undefined;
}

/** `kept K/N questions  |  solved@T x%  |  avg searches s  |  $…`, as the recipe prints it. */
export function sftFinalLine(m: SftDataManifest): string {
  return (
    `kept ${m.counts.kept}/${m.counts.questions} questions  |  solved@${m.counts.tries} ${(m.solved_at_n * 100).toFixed(1)}%  |  ` +
    `avg searches ${m.avg_searches.toFixed(2)}  |  $${m.usd.toFixed(2)}`
  );
}
