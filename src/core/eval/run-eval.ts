/**
 * Runs questions through an episode function into a run folder: bounded concurrency, every
 * finished episode appended at once, summary rewritten periodically and at the end. `resume`
 * finishes an interrupted run without redoing or duplicating episodes, and refuses when the
 * fingerprint changed. An abort (Ctrl-C / SIGTERM) starts nothing new and marks the run
 * "interrupted"; a crash or `kill -9` loses at most the episodes in flight.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../errors";
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
}

export interface EvalResult {
  summary: RunSummary;
  /** Episodes found already finished when resuming. */
  resumed: number;
  /** Episodes this job ran. */
  ran: number;
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

  writeSummary("running");
  let lastWrite = Date.now();
  let ran = 0;
  try {
    await runPool(
      todo,
      job.concurrency,
      async (question, signal) => {
        const record = await job.runQuestion(question, signal);
        // An episode that finishes after a stop request is still a finished episode: keep it.
        appendEpisode(job.runDir, record);
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
  const status: RunStatus = job.signal?.aborted && episodes.length < planned ? "interrupted" : "done";
  return { summary: writeSummary(status), resumed: done.length, ran };
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
