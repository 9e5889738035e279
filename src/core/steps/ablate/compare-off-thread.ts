/**
 * The Compare panel's report computed in a worker thread (compare-worker.ts): the extension host
 * stays free to answer the webviews while ablate resamples (seconds at 10,000 episodes). One
 * worker per panel, started on its first request for runs too large to compare on the caller's
 * thread (ON_THREAD_MAX_BYTES) whose Compare caches (compare-cache.ts) do not remember every draw the
 * report needs (those make the report on the caller's thread in tens of milliseconds), stopped with
 * the panel. A view made before from the same request and files is posted again (compare-made.ts).
 */
import { statSync } from "node:fs";
import { requireWorkerScript } from "../../base/util/worker-thread";
import { RequestWorker, type WorkerProgress, type WorkerReply } from "../../base/util/request-worker";
import { runFile } from "../../base/runs/run-folder";
import type { MissedDraw, ResampleResult, Resampling } from "../../base/stats/resample-memo";
import { loadAblationInputs } from "./ablate";
import { cachedForCompare, loadCompareRuns } from "./compare-cache";
import { madeViews, type MadeViews } from "./compare-made";
import { compareView, type CompareOrigin, type CompareSetup } from "./compare-setup";
import { shownView } from "./compare-shown";
import type { AblationReport } from "./report-types";

export interface CompareRequest {
  id: number;
  runDirs: string[];
  origin: CompareOrigin;
  expect: string[] | undefined;
  searchDirs: string[];
}

export type CompareView = { report: AblationReport; setup: CompareSetup };

export type CompareReply = WorkerReply<CompareView>;

/** Draws a table made from the runs' Compare caches missed (ResampleMemo.rememberedOnly), for the worker. */
export interface DrawRequest {
  id: number;
  missed: MissedDraw[];
}

export type DrawReply = WorkerReply<[string, ResampleResult][]>;

/** Keep the Compare caches the runs under a folder miss (keepMissingForCompare), for the worker. */
export interface KeepRequest {
  id: number;
  keepIn: string;
  minBytes: number;
}

export type KeepReply = WorkerReply<string[]>;

/**
 * The table before its intervals: the report made with only what the runs' Compare caches remember
 * (ResampleMemo.rememberedOnly: the intervals and sign-flip p's not remembered, every Holm-adjusted
 * p and verdict are NaN or meaningless; means, Δ, counts and McNemar's p are final), sent before
 * the rest is drawn.
 */
export type CompareProgress = WorkerProgress<CompareView>;

/** The bundled worker next to the extension, or the .ts source next to this module (tests, tsx). */
const workerScript = () =>
  requireWorkerScript(__dirname, ["compare-worker.js", "compare-worker.ts"], "the Compare panel's worker");

/**
 * Runs whose episodes files add up to at most this many bytes are compared on the caller's
 * thread. A new worker's start and its modules' first run (136–168 ms for two 200-episode runs,
 * 0.9 MB, on 2 cores) took longer than the report made there (50–120 ms), and a new Compare panel
 * waits for it; larger runs hold the caller's thread for longer than that.
 */
export const ON_THREAD_MAX_BYTES = 1 << 20;

export function episodesBytes(runDirs: readonly string[]): number {
  let bytes = 0;
  for (const dir of runDirs) {
    try {
      bytes += statSync(runFile(dir, "episodes")).size;
    } catch {
      // missing: compareView names it
    }
  }
  return bytes;
}

/**
 * Gives every finished eval run under `runsDir` whose episodes.jsonl is larger than `minBytes`
 * (default: half of ON_THREAD_MAX_BYTES, past which a pair of such runs goes to a worker) the
 * Compare cache its eval would have kept, in a worker thread of its own, stopped after; resolves
 * to the runs given one.
 */
export async function keepMissingCachesOffThread(
  runsDir: string,
  minBytes = ON_THREAD_MAX_BYTES / 2,
): Promise<string[]> {
  const worker = new RequestWorker<Omit<KeepRequest, "id">, string[]>(workerScript, "the Compare worker");
  try {
    return await worker.request({ keepIn: runsDir, minBytes });
  } finally {
    worker.dispose();
  }
}

export class CompareWorker {
  private readonly worker = new RequestWorker<Omit<CompareRequest, "id">, CompareView, CompareView>(
    workerScript,
    "the Compare worker",
  );
  /** The same script, asked only for draws (its own thread: a panel uses one of the two, seldom both). */
  private readonly drawer = new RequestWorker<Omit<DrawRequest, "id">, [string, ResampleResult][]>(
    workerScript,
    "the Compare worker",
  );

  /**
   * `onThreadMaxBytes`: ON_THREAD_MAX_BYTES; `cachedOnThread`: runs with Compare caches are compared
   * on the caller's thread. A test sets 0 and false to send any runs to the worker. `made`: the views
   * made before (compare-made.ts; the process's, shared by every panel); null: every view is made.
   */
  constructor(
    private readonly onThreadMaxBytes = ON_THREAD_MAX_BYTES,
    private readonly cachedOnThread = true,
    private readonly made: MadeViews | null = madeViews,
  ) {}

  /**
   * The report and setup for these runs (the first is the baseline), as compareView makes them with
   * only the question rows the panel shows (shownView): here for small runs, else in the worker.
   * `onTable`: the table without its intervals, when the worker resamples runs not compared before
   * (CompareProgress); called before the answer, if at all.
   */
  view(req: Omit<CompareRequest, "id">, onTable?: (table: CompareView) => void): Promise<CompareView> {
    const made = this.made;
    if (!made) return this.make(req, onTable);
    const key = made.key(req);
    try {
      const kept = made.get(key, req.runDirs, req.searchDirs);
      if (kept) return Promise.resolve(kept);
    } catch {
      // a run folder gone or torn since: made again below, which names what is wrong
    }
    return this.make(req, onTable).then((view) => {
      made.keep(key, view);
      return view;
    });
  }

  private make(req: Omit<CompareRequest, "id">, onTable?: (table: CompareView) => void): Promise<CompareView> {
    if (episodesBytes(req.runDirs) <= this.onThreadMaxBytes) {
      return new Promise((resolve) =>
        resolve(shownView(compareView(loadAblationInputs(req.runDirs), req.origin, req.expect, req.searchDirs))),
      );
    }
    // The panel's worker, once started, keeps the runs it read and saved in its memory (compare-cache.ts):
    // a later Compare there (another baseline, other expected differences) reads nothing, where this
    // thread would read both caches (about 5 MB of JSON at 10,000 episodes) and run ablate cold.
    if (this.worker.started) return this.worker.request(req, onTable);
    // Runs with Compare caches (an eval writes one at its end, a Compare adds its tests): their
    // records and what they remember make the table here, quicker than a worker starts. When the
    // caches remember everything this is the view; else the table goes first, a worker draws what
    // was missed (at 10,000 questions a pair's sign-flip test held this thread ~0.25 s while VS Code
    // was creating the page), and the view is made again here with it.
    if (this.cachedOnThread && cachedForCompare(req.runDirs)) {
      return new Promise((resolve) => {
        const runs = loadCompareRuns(req.runDirs);
        const view = (resampling: Resampling) =>
          shownView(compareView(runs.inputs, req.origin, req.expect, req.searchDirs, resampling));
        const remembered = runs.resampling.rememberedOnly();
        const table = view(remembered);
        if (remembered.missed.length === 0) return resolve(table);
        onTable?.(table);
        resolve(
          this.drawer.request({ missed: remembered.missed }).then((results) => {
            runs.resampling.remember(results);
            const whole = view(runs.resampling);
            setImmediate(runs.save); // the draws kept in the caches, after the reply
            return whole;
          }),
        );
      });
    }
    return this.worker.request(req, onTable);
  }

  /** Whether a request is being computed (or waits for the one before it). */
  get busy(): boolean {
    return this.worker.busy || this.drawer.busy;
  }

  /** Stops the worker: what it was computing is dropped (never answered). */
  dispose(): void {
    this.worker.dispose();
    this.drawer.dispose();
  }
}
