/**
 * A second thread for one heavy query: on a large index (lists mapped, not held) a long question
 * of common words reads millions of postings in one sweep, and the machine has a second core. The
 * helper thread (search-helper-worker.ts) opens the same index (its mapped pages are the OS's file
 * cache, shared) and searches the upper half of the windows while the caller's thread searches the
 * lower half; each half is exact for its documents, so the two top-k lists merged by (score desc,
 * doc asc) are the top k of the whole (window-top-k.ts).
 *
 * The search stays synchronous: the query goes over in shared memory and the caller waits on it
 * with Atomics.wait. A helper that has not taken the query when the caller's half is done gives it
 * back (the caller takes it with one compare-and-swap and searches that half too), so a busy or
 * slow helper never makes a query slower than one thread would by more than the handover.
 */
import type { Worker } from "node:worker_threads";
import { projectFile } from "../chat/package-files";
import { findWorkerScript, startWorkerThread } from "../util/worker-thread";
import { mergeTop, type ScoredDoc } from "./window-top-k";

/** The control words at the start of the shared memory. */
export const enum Ctl {
  State,
  K,
  From,
  To,
  Rows,
  /** Results the helper wrote (-1: its search failed). */
  Count,
  /** 1 once the helper's index is open and warmed. */
  Ready,
}
const CONTROL_WORDS = 8;

export const enum State {
  Idle,
  Posted,
  Taken,
  Done,
  Stop,
}

/** The helper's page cache (OpenOptions.cacheBytes): what its searches read that is not mapped. */
export const HELPER_CACHE_BYTES = 64 << 20;

/** A query splits only with at most this many words and this k (the shared memory's size). */
export const MAX_ROWS = 4096;
export const MAX_K = 1024;

/** The shared memory's views, laid out the same on both sides. */
export interface HelperMemory {
  control: Int32Array;
  rows: Int32Array;
  docs: Int32Array;
  scores: Float64Array;
}

const ROWS_AT = 4 * CONTROL_WORDS;
const DOCS_AT = ROWS_AT + 4 * MAX_ROWS;
const SCORES_AT = DOCS_AT + 4 * MAX_K;
const SHARED_BYTES = SCORES_AT + 8 * MAX_K;

export function helperMemory(shared: SharedArrayBuffer): HelperMemory {
  return {
    control: new Int32Array(shared, 0, CONTROL_WORDS),
    rows: new Int32Array(shared, ROWS_AT, MAX_ROWS),
    docs: new Int32Array(shared, DOCS_AT, MAX_K),
    scores: new Float64Array(shared, SCORES_AT, MAX_K),
  };
}

/** The environment variable that keeps searches on one thread (any non-empty value; benchmarks compare). */
export const NO_SEARCH_HELPER_ENV = "AGENT_LAB_NO_SEARCH_HELPER";

const WORKER_NAMES = ["search-helper-worker.js", "search-helper-worker.ts"];

/** The build's worker script, for a bundle elsewhere in the project (the benchmarks' query children). */
function builtWorker(): string | undefined {
  try {
    return findWorkerScript(projectFile("dist"), WORKER_NAMES.slice(0, 1));
  } catch {
    return undefined; // not inside the project's folder
  }
}

/** What the worker is started with. */
export interface HelperData {
  indexDir: string;
  shared: SharedArrayBuffer;
}

/**
 * The longest the caller waits for a helper that took a query (a half of the heaviest query at 21M
 * takes ~0.2 s): past it the helper counts as dead and the caller searches the half itself.
 */
const HELPER_TIMEOUT_MS = 10_000;

export class SearchHelper {
  /** The shared memory (tests watch its state word). */
  readonly memory: HelperMemory;
  private alive = true;
  /** Queries split, and those whose half the helper searched (it left the others to the caller). */
  readonly counts = { split: 0, byHelper: 0 };

  private constructor(
    private readonly worker: Worker,
    shared: SharedArrayBuffer,
  ) {
    this.memory = helperMemory(shared);
    // A helper that fails or exits is simply not used again: every query then runs on one thread.
    worker.on("error", () => (this.alive = false));
    worker.on("exit", () => (this.alive = false));
    worker.unref(); // it never keeps a process alive
  }

  /** A helper for the index in indexDir, or undefined where there is no worker script. */
  static start(indexDir: string): SearchHelper | undefined {
    const script = findWorkerScript(__dirname, WORKER_NAMES) ?? builtWorker();
    if (!script) return undefined;
    const shared = new SharedArrayBuffer(SHARED_BYTES);
    const data: HelperData = { indexDir, shared };
    return new SearchHelper(startWorkerThread(script, data), shared);
  }

  /** Whether the helper can take a query now (open, warmed, not failed). */
  get ready(): boolean {
    return this.alive && Atomics.load(this.memory.control, Ctl.Ready) === 1;
  }

  /** Resolves once the helper is ready or gone (polled: its readiness is a word in shared memory). */
  async whenSettled(): Promise<void> {
    while (this.alive && !this.ready) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /**
   * The top k of a query split at window `mid`: the helper searches windows [mid, to) while `own`
   * searches the ones below mid on this thread; `rest` searches [mid, to) here where the helper
   * did not take it, failed, or went silent.
   */
  split(
    rows: readonly number[],
    k: number,
    mid: number,
    to: number,
    own: () => ScoredDoc[],
    rest: () => ScoredDoc[],
  ): ScoredDoc[] {
    const { control } = this.memory;
    this.counts.split++;
    this.memory.rows.set(rows);
    control[Ctl.K] = k;
    control[Ctl.From] = mid;
    control[Ctl.To] = to;
    control[Ctl.Rows] = rows.length;
    Atomics.store(control, Ctl.State, State.Posted);
    Atomics.notify(control, Ctl.State, 1);
    const lower = own();
    return mergeTop(lower, this.helperHalf() ?? rest(), k);
  }

  /** The helper's top k of the posted half, or undefined where it did not take it, failed, or went silent. */
  private helperHalf(): ScoredDoc[] | undefined {
    const { control, docs, scores } = this.memory;
    if (Atomics.compareExchange(control, Ctl.State, State.Posted, State.Idle) === State.Posted) return undefined;
    const deadline = performance.now() + HELPER_TIMEOUT_MS;
    while (Atomics.load(control, Ctl.State) === State.Taken) {
      const left = deadline - performance.now();
      if (left <= 0) {
        this.close();
        return undefined;
      }
      Atomics.wait(control, Ctl.State, State.Taken, left);
    }
    const count = control[Ctl.Count];
    const upper: ScoredDoc[] = [];
    for (let i = 0; i < count; i++) upper.push({ doc: docs[i], score: scores[i] });
    Atomics.store(control, Ctl.State, State.Idle);
    if (count < 0) return undefined;
    this.counts.byHelper++;
    return upper;
  }

  close(): void {
    this.alive = false;
    Atomics.store(this.memory.control, Ctl.State, State.Stop);
    Atomics.notify(this.memory.control, Ctl.State);
    void this.worker.terminate();
  }
}
