/**
 * A worker thread that answers requests one message each (`{ id, ...request }` in, `{ id, ok }` or
 * `{ id, failed }` out), started on the first request and stopped by dispose. Before its answer a
 * worker may send what it has so far (`{ id, progress }`: e.g. a table before its intervals), handed
 * to the request's `onProgress`. A crashed worker fails what it had; the next request starts another.
 */
import type { Worker } from "node:worker_threads";
import { startWorkerThread } from "./worker-thread";

export type WorkerReply<T> = { id: number; ok: T } | { id: number; failed: string };

/** The worker's side of a failure: the reply to request `id` that rejects it with `e`'s message. */
export function failedReply(id: number, e: unknown): { id: number; failed: string } {
  return { id, failed: e instanceof Error ? e.message : String(e) };
}

/** What a worker may send before its reply to request `id`. */
export type WorkerProgress<P> = { id: number; progress: P };

export class RequestWorker<Request extends object, Answer, Progress = never> {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    {
      worker: Worker;
      resolve: (a: Answer) => void;
      reject: (e: Error) => void;
      onProgress: ((p: Progress) => void) | undefined;
    }
  >();

  /**
   * `script`: the worker's entry (asked for on the first start); `what` names it in errors.
   * `unrefWhenIdle`: the worker keeps the process alive only while it has requests to answer (one
   * that lives as long as its host and is idle most of the time).
   */
  constructor(
    private readonly script: () => string,
    private readonly what: string,
    private readonly options: { unrefWhenIdle?: boolean } = {},
  ) {}

  /** With unrefWhenIdle: the worker holds the process while a request waits for it, not after. */
  private holdWhileBusy(worker: Worker): void {
    if (!this.options.unrefWhenIdle) return;
    if ([...this.pending.values()].some((p) => p.worker === worker)) worker.ref();
    else worker.unref();
  }

  private start(): Worker {
    const worker = startWorkerThread(this.script());
    worker.on("message", (m: WorkerReply<Answer> | WorkerProgress<Progress>) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      if ("progress" in m) {
        p.onProgress?.(m.progress);
        return;
      }
      this.pending.delete(m.id);
      this.holdWhileBusy(worker);
      if ("ok" in m) p.resolve(m.ok);
      else p.reject(new Error(m.failed));
    });
    // A crashed worker fails what it had (not a newer worker's requests); the next request starts another.
    const fail = (reason: string) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, p] of this.pending) {
        if (p.worker !== worker) continue;
        this.pending.delete(id);
        p.reject(new Error(reason));
      }
    };
    worker.on("error", (e) => fail(`${this.what} failed: ${e.message}`));
    worker.on("exit", (code) => fail(`${this.what} exited (code ${code})`));
    return worker;
  }

  /** The worker's answer to `req`; `onProgress` gets what it sends before (never after the answer). */
  request(req: Request, onProgress?: (p: Progress) => void): Promise<Answer> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject, onProgress });
      this.holdWhileBusy(worker);
      worker.postMessage({ ...req, id });
    });
  }

  /** Whether the worker is running (started by a request, not stopped or crashed since). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** Whether a request is being answered (or waits for the one before it). */
  get busy(): boolean {
    return [...this.pending.values()].some((p) => p.worker === this.worker);
  }

  /** Stops the worker: what it was answering is dropped (never answered). */
  dispose(): void {
    const w = this.worker;
    if (!w) return;
    this.worker = undefined;
    for (const [id, p] of this.pending) if (p.worker === w) this.pending.delete(id);
    void w.terminate();
  }
}
