/**
 * The Compare panel's report computed in a worker thread (compare-worker.ts): the extension host
 * stays free to answer the webviews while ablate resamples (seconds at 10,000 episodes). One
 * worker per panel, started on its first request, stopped with the panel.
 */
import type { Worker } from "node:worker_threads";
import { requireWorkerScript, startWorkerThread } from "../util/worker-thread";
import type { CompareOrigin, CompareSetup } from "./compare-setup";
import type { AblationReport } from "./report-types";

export interface CompareRequest {
  id: number;
  runDirs: string[];
  origin: CompareOrigin;
  expect: string[] | undefined;
  searchDirs: string[];
}

export type CompareReply = { id: number; ok: { report: AblationReport; setup: CompareSetup } } | { id: number; failed: string };

/** The bundled worker next to the extension, or the .ts source next to this module (tests, tsx). */
const workerScript = () => requireWorkerScript(__dirname, ["compare-worker.js", "compare-worker.ts"], "the Compare panel's worker");

export class CompareWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { worker: Worker; resolve: (r: { report: AblationReport; setup: CompareSetup }) => void; reject: (e: Error) => void }>();

  private start(): Worker {
    const worker = startWorkerThread(workerScript());
    worker.on("message", (m: CompareReply) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
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
    worker.on("error", (e) => fail(`the Compare worker failed: ${e.message}`));
    worker.on("exit", (code) => fail(`the Compare worker exited (code ${code})`));
    return worker;
  }

  /** The report and setup for these runs (the first is the baseline), as compareView makes them. */
  view(req: Omit<CompareRequest, "id">): Promise<{ report: AblationReport; setup: CompareSetup }> {
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject });
      worker.postMessage({ ...req, id } satisfies CompareRequest);
    });
  }

  /** Whether a request is being computed (or waits for the one before it). */
  get busy(): boolean {
    return [...this.pending.values()].some((p) => p.worker === this.worker);
  }

  /** Stops the worker: what it was computing is dropped (never answered). */
  dispose(): void {
    const w = this.worker;
    if (!w) return;
    this.worker = undefined;
    for (const [id, p] of this.pending) if (p.worker === w) this.pending.delete(id);
    void w.terminate();
  }
}
