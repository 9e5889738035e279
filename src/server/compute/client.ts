/**
 * The HTTP thread's side of the compute worker: sends jobs, resolves each with its answer. The
 * worker holds every model, so the event loop that serves HTTP never runs model code and keeps
 * answering (healthz, other sessions, long-polls) while a long sample or training step runs.
 */
import type { Worker } from "node:worker_threads";
import { requireWorkerScript, startWorkerThread } from "../../core/base/util/worker-thread";
import { UserInputError } from "../model/errors";
import type { ComputeJob, ComputeResult, JobFailure } from "./jobs";

export interface WorkerRequest {
  id: number;
  job: ComputeJob;
}
export type WorkerReply = { id: number; ok: ComputeResult } | { id: number; failed: JobFailure };

/** A job that failed for a reason other than the caller's input. */
export class ComputeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ComputeError";
  }
}

/** The bundled worker next to the CLI, or the .ts source next to this module (tests, tsx). */
const workerScript = () =>
  requireWorkerScript(__dirname, ["local-backend-worker.js", "worker.ts"], "the local backend's compute worker");

export class ComputeClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: ComputeResult) => void; reject: (e: Error) => void }>();
  private dead: string | undefined;

  constructor() {
    this.worker = startWorkerThread(workerScript());
    this.worker.on("message", (m: WorkerReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if ("ok" in m) p.resolve(m.ok);
      else p.reject(m.failed.user ? new UserInputError(m.failed.message) : new ComputeError(m.failed.message));
    });
    this.worker.on("error", (e) => this.fail(`the compute worker failed: ${e.message}`));
    this.worker.on("exit", (code) => this.fail(`the compute worker exited (code ${code})`));
  }

  private fail(reason: string): void {
    this.dead ??= reason;
    for (const p of this.pending.values()) p.reject(new ComputeError(`${reason}; restart the local backend`));
    this.pending.clear();
  }

  /** Jobs waiting for or being computed. */
  get inFlight(): number {
    return this.pending.size;
  }

  run(job: ComputeJob): Promise<ComputeResult> {
    if (this.dead) return Promise.reject(new ComputeError(`${this.dead}; restart the local backend`));
    const id = this.nextId++;
    return new Promise<ComputeResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, job } satisfies WorkerRequest);
    });
  }

  /** Stops the worker at once, even in the middle of a job (checkpoint files are written atomically). */
  async close(): Promise<void> {
    this.dead ??= "the local backend is shutting down";
    await this.worker.terminate();
  }
}
