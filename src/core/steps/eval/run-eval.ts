/**
 * Runs questions through an episode function into a run folder: bounded concurrency, every
 * finished episode appended at once, summary rewritten periodically and at the end. `resume`
 * finishes an interrupted run without redoing or duplicating episodes, and refuses when the
 * fingerprint changed. An abort (Ctrl-C / SIGTERM) starts nothing new and marks the run
 * "interrupted"; a crash or `kill -9` loses at most the episodes in flight.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { metricRoles, metricValue, UNKNOWN_ENV_METRICS, type MetricDeclaration } from "../../base/runs/metrics";
import type { ModelPrices } from "../../base/config";
import { BudgetExceededError, CostLedger, EpisodeSizeTracker, estimateEpisodeUsd } from "../../base/ledger";
import type { EnvItem } from "../../harness/environment";
import type { RunManifest, RunSplit } from "../../base/runs/manifest";
import { withThinking } from "../../base/runs/manifest-thinking";
import { changedFields, openRunForWriting, runFile, type RunLock } from "../../base/runs/run-folder";
import { ProgressWriter, type Progress } from "../../base/runs/progress";
import {
  appendEpisode,
  episodesPath,
  readEpisodes,
  readSummaryHead,
  repairTornTail,
  SUMMARY_FILE,
  type EpisodeRecord,
} from "../../base/runs/run-files";
import { writeFileAtomic, writeJsonAtomic } from "../../base/util/atomic-write";
import { summarize, type RunStatus, type RunSummary } from "../../base/runs/summary";
import { runPool } from "./pool";
import { environmentMetrics } from "../../envs/catalog";

export interface EvalJob {
  runDir: string;
  /** Questions this job should cover, in split order (after --limit). */
  questions: readonly EnvItem[];
  manifest: RunManifest;
  /** The system prompt's text the run sends (hashed in the manifest), kept in the run folder (RUN_FILES.systemPrompt). */
  systemPrompt?: string;
  resume: boolean;
  concurrency: number;
  /** Runs one question to a finished, scored, priced record. */
  runQuestion: (question: EnvItem, signal: AbortSignal) => Promise<EpisodeRecord>;
  /** What the progress line calls the mean of the primary metric (its declared label; default "F1"). */
  metricLabel?: string;
  /** The primary metric's name (the progress line's number) and every declared metric (the summary's). */
  metric?: string;
  metrics?: readonly MetricDeclaration[];
  split: RunSplit;
  model: string;
  checkpoint?: string;
  signal?: AbortSignal;
  /** Progress lines ("25/200  F1 so far 0.412"); default: none. */
  log?: (line: string) => void;
  /** Print progress every this many episodes (default: 25, or a tenth of a run under 100). */
  progressEvery?: number;
  /** Rewrite summary.json at most this often while running (ms). */
  summaryIntervalMs?: number;
  /**
   * Cost ledger of the run: every episode is recorded in ledger.jsonl, and no episode starts when
   * its estimate would take the run's total over `budgetUsd` (0 = no cap). prices null = free.
   */
  cost?: { prices: ModelPrices | null; budgetUsd: number };
  /** progress.json: which step this is ("eval", "sft-data") and what it counts; also told to the caller. */
  progress?: { step: string; label: string; onUpdate?: (p: Progress) => void };
}

export interface EvalResult {
  summary: RunSummary;
  /** Episodes found already finished when resuming. */
  resumed: number;
  /** Episodes this job ran. */
  ran: number;
  /** Set when the budget cap stopped the run before every question was done. */
  budgetStop?: BudgetExceededError;
}

export async function runEval(job: EvalJob): Promise<EvalResult> {
  const started = Date.now();
  const { previousSeconds, done, lock } = openRunDir(job);
  try {
    keepSystemPrompt(job);
    return await runOpenedEval(job, started, previousSeconds, done);
  } finally {
    lock.release();
  }
}

async function runOpenedEval(
  job: EvalJob,
  started: number,
  previousSeconds: number,
  done: EpisodeRecord[],
): Promise<EvalResult> {
  const episodes: EpisodeRecord[] = [...done];
  const doneIds = new Set(done.map((e) => e.id));
  const todo = job.questions.filter((q) => !doneIds.has(q.id));
  const planned = new Set([...job.questions.map((q) => q.id), ...doneIds]).size;
  // The recipe prints every 25 episodes; a small run gets about ten lines instead.
  const every = job.progressEvery ?? (planned >= 100 ? 25 : Math.max(1, Math.ceil(planned / 10)));
  const interval = job.summaryIntervalMs ?? 2000;

  const writeSummary = (status: RunStatus) => {
    const summary = summarize(episodes, {
      planned,
      seconds: previousSeconds + (Date.now() - started) / 1000,
      status,
      split: job.split,
      model: job.model,
      checkpoint: job.checkpoint,
      metrics: job.metrics,
    });
    writeJsonAtomic(join(job.runDir, SUMMARY_FILE), summary);
    return summary;
  };

  const ledger = job.cost ? openEvalLedger(job.runDir, job.cost, done) : undefined;
  const sizes = new EpisodeSizeTracker();
  for (const e of done) sizes.add(e);
  let budgetStop: BudgetExceededError | undefined;

  const progress = new ProgressWriter(job.runDir, {
    step: job.progress?.step ?? "eval",
    label: job.progress?.label ?? "eval",
    unit: "episode",
    planned,
    done: done.length,
    usd: done.reduce((s, e) => s + e.usd, 0),
    onUpdate: job.progress?.onUpdate,
  });
  const usdSoFar = () => episodes.reduce((s, e) => s + e.usd, 0);
  writeSummary("running");
  let lastWrite = Date.now();
  let ran = 0;
  try {
    await runPool(
      todo,
      job.concurrency,
      async (question, signal) => {
        // Over budget: start nothing more, let the episodes in flight finish (they are paid for).
        if (budgetStop) return;
        let reservation;
        try {
          reservation = ledger?.reserve(estimateEpisodeUsd(ledger.prices, sizes.mean), "the next episode");
        } catch (e) {
          if (!(e instanceof BudgetExceededError)) throw e;
          budgetStop = e;
          job.log?.(`  stopping: ${e.message}`);
          return;
        }
        let record: EpisodeRecord;
        try {
          record = await job.runQuestion(question, signal);
        } catch (e) {
          reservation?.release();
          throw e;
        }
        // An episode that finishes after a stop request is still a finished episode: keep it.
        appendEpisode(job.runDir, record);
        ledger?.record({
          kind: "eval",
          prefill: record.prefill,
          sampled: record.generated,
          usd: record.usd,
          label: record.id,
          reservation,
        });
        sizes.add(record);
        episodes.push(record);
        ran++;
        progress.update({ done: episodes.length, usd: usdSoFar() });
        if (episodes.length % every === 0 || episodes.length === planned) {
          const primary = metricRoles(job.metrics ?? UNKNOWN_ENV_METRICS).primary;
          const mean = episodes.reduce((s, e) => s + metricValue(e, job.metric ?? primary.name), 0) / episodes.length;
          job.log?.(`  ${episodes.length}/${planned}  ${job.metricLabel ?? primary.label} so far ${mean.toFixed(3)}`);
        }
        if (Date.now() - lastWrite >= interval) {
          writeSummary("running");
          lastWrite = Date.now();
        }
      },
      job.signal,
    );
  } catch (e) {
    const failed = job.signal?.aborted ? "interrupted" : "failed";
    writeSummary(failed);
    progress.finish(failed, { done: episodes.length, usd: usdSoFar() });
    throw e;
  }
  const stopped = (job.signal?.aborted || budgetStop !== undefined) && episodes.length < planned;
  const status: RunStatus = stopped ? "interrupted" : "done";
  progress.finish(status, { done: episodes.length, usd: usdSoFar() });
  return { summary: writeSummary(status), resumed: done.length, ran, ...(budgetStop && stopped ? { budgetStop } : {}) };
}

/** The run's ledger; episodes finished before the run kept one are carried over as one line, so the cap sees them. */
function openEvalLedger(
  runDir: string,
  cost: NonNullable<EvalJob["cost"]>,
  done: readonly EpisodeRecord[],
): CostLedger {
  const ledger = CostLedger.open(runDir, cost);
  if (done.length > 0 && ledger.totalUsd === 0) {
    const usd = done.reduce((s, e) => s + e.usd, 0);
    if (usd > 0) {
      const prefill = done.reduce((s, e) => s + e.prefill, 0);
      const sampled = done.reduce((s, e) => s + e.generated, 0);
      ledger.record({
        kind: "eval",
        prefill,
        sampled,
        usd,
        label: `${done.length} episodes run before this run kept a ledger`,
      });
    }
  }
  return ledger;
}

/**
 * Writes the prompt's text beside the manifest that hashes it; a resumed run has the same prompt
 * (the hash is a fingerprint field), and one from before this file was written gets it now.
 */
function keepSystemPrompt(job: EvalJob): void {
  if (job.systemPrompt === undefined) return;
  const file = runFile(job.runDir, "systemPrompt");
  if (!existsSync(file)) writeFileAtomic(file, job.systemPrompt);
}

/** Opens the run folder (new, or a checked resume) under its writer lock; returns what is already there. */
function openRunDir(job: EvalJob): { previousSeconds: number; done: EpisodeRecord[]; lock: RunLock } {
  const lock = openRunForWriting({
    runDir: job.runDir,
    resume: job.resume,
    create: job.manifest,
    what: job.manifest.job.command.join(" "),
    // A run from before the thinking field resumes under the setting it is read as.
    changes: (stored) => changedFields(withThinking(stored), withThinking(job.manifest), ["job"]),
  });
  if (!job.resume) return { previousSeconds: 0, done: [], lock };
  repairTornTail(episodesPath(job.runDir));
  const summary = readSummaryHead(job.runDir);
  return { previousSeconds: summary?.seconds ?? 0, done: readEpisodes(job.runDir, environmentMetrics), lock };
}
