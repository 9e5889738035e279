/**
 * Runs questions through an episode function into a run folder: bounded concurrency, every
 * finished episode appended at once, summary rewritten periodically and at the end. `resume`
 * finishes an interrupted run without redoing or duplicating episodes, and refuses when the
 * fingerprint changed. An abort (Ctrl-C / SIGTERM) starts nothing new and marks the run
 * "interrupted"; a crash or `kill -9` loses at most the episodes in flight.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ModelPrices } from "../config";
import { UserError } from "../errors";
import { BudgetExceededError, CostLedger, EpisodeSizeTracker, estimateEpisodeUsd } from "../ledger";
import type { Question, Split } from "../data/question";
import { describeDifferences, fingerprintDiff, type RunManifest } from "../runs/manifest";
import {
  appendEpisode,
  ensureRunDir,
  episodesPath,
  MANIFEST_FILE,
  readEpisodes,
  readJsonFile,
  repairTornTail,
  SUMMARY_FILE,
  writeJsonAtomic,
  type EpisodeRecord,
} from "../runs/run-files";
import { summarize, type RunStatus, type RunSummary } from "../runs/summary";
import { runPool } from "./pool";

export interface EvalJob {
  runDir: string;
  /** Questions this job should cover, in split order (after --limit). */
  questions: readonly Question[];
  manifest: RunManifest;
  resume: boolean;
  concurrency: number;
  /** Runs one question to a finished, scored, priced record. */
  runQuestion: (question: Question, signal: AbortSignal) => Promise<EpisodeRecord>;
  split: Split;
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
  const { previousSeconds, done } = openRunDir(job);
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
    });
    writeJsonAtomic(join(job.runDir, SUMMARY_FILE), summary);
    return summary;
  };

  const ledger = job.cost ? openEvalLedger(job.runDir, job.cost, done) : undefined;
  const sizes = new EpisodeSizeTracker();
  for (const e of done) sizes.add(e);
  let budgetStop: BudgetExceededError | undefined;

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
        ledger?.record({ kind: "eval", prefill: record.prefill, sampled: record.generated, usd: record.usd, label: record.id, reservation });
        sizes.add(record);
        episodes.push(record);
        ran++;
        if (episodes.length % every === 0 || episodes.length === planned) {
          const f1 = episodes.reduce((s, e) => s + e.f1, 0) / episodes.length;
          job.log?.(`  ${episodes.length}/${planned}  F1 so far ${f1.toFixed(3)}`);
        }
        if (Date.now() - lastWrite >= interval) {
          writeSummary("running");
          lastWrite = Date.now();
        }
      },
      job.signal,
    );
  } catch (e) {
    writeSummary(job.signal?.aborted ? "interrupted" : "failed");
    throw e;
  }
  const stopped = (job.signal?.aborted || budgetStop !== undefined) && episodes.length < planned;
  const status: RunStatus = stopped ? "interrupted" : "done";
  return { summary: writeSummary(status), resumed: done.length, ran, ...(budgetStop && stopped ? { budgetStop } : {}) };
}

/** The run's ledger; episodes finished before the run kept one are carried over as one line, so the cap sees them. */
function openEvalLedger(runDir: string, cost: NonNullable<EvalJob["cost"]>, done: readonly EpisodeRecord[]): CostLedger {
  const ledger = CostLedger.open(runDir, cost);
  if (done.length > 0 && ledger.totalUsd === 0) {
    const usd = done.reduce((s, e) => s + e.usd, 0);
    if (usd > 0) {
      const prefill = done.reduce((s, e) => s + e.prefill, 0);
      const sampled = done.reduce((s, e) => s + e.generated, 0);
      ledger.record({ kind: "eval", prefill, sampled, usd, label: `${done.length} episodes run before this run kept a ledger` });
    }
  }
  return ledger;
}

/** Creates the folder for a new run, or checks a resumed one; returns what is already there. */
function openRunDir(job: EvalJob): { previousSeconds: number; done: EpisodeRecord[] } {
  const manifestFile = join(job.runDir, MANIFEST_FILE);
  const exists = existsSync(manifestFile) || existsSync(episodesPath(job.runDir));
  if (!job.resume) {
    if (exists) throw new UserError(`${job.runDir} already holds a run: pass --resume to finish it, or choose another --name`);
    ensureRunDir(job.runDir);
    writeJsonAtomic(manifestFile, job.manifest);
    return { previousSeconds: 0, done: [] };
  }
  const old = readJsonFile<RunManifest>(manifestFile);
  if (!old) throw new UserError(`nothing to resume: ${manifestFile} does not exist (run without --resume to start)`);
  const diffs = fingerprintDiff(old, job.manifest);
  if (diffs.length > 0) {
    throw new UserError(
      `cannot resume ${job.runDir}: its fingerprint differs in ${diffs.length} field(s): ${describeDifferences(diffs)}. ` +
        `Resume with the flags it was started with (${old.job?.command?.join(" ") ?? "see its manifest.json"}), or start a new run with another --name.`,
    );
  }
  repairTornTail(episodesPath(job.runDir));
  const summary = readJsonFile<RunSummary>(join(job.runDir, SUMMARY_FILE));
  return { previousSeconds: summary?.seconds ?? 0, done: readEpisodes(job.runDir) };
}
