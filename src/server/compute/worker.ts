/**
 * Worker-thread entry of the local backend's compute (bundled as dist/local-backend-worker.js; under
 * tsx it runs as .ts). Jobs arrive as messages; each lane (one model or sampler) runs its jobs in
 * order, and lanes share the thread in slices of a few milliseconds, the lane whose current job
 * has had the least time going first: a short job never waits behind more than one slice of a
 * long one, and new messages are read between slices.
 */
import { parentPort } from "node:worker_threads";
import { ComputeEngine, jobFailure, laneOf, type ComputeJob, type ComputeResult } from "./jobs";
import type { WorkerReply, WorkerRequest } from "./client";

const SLICE_MS = 10;

interface Task {
  id: number;
  job: ComputeJob;
  steps?: Generator<void, ComputeResult>;
  /** Milliseconds this job has run so far. */
  spent: number;
}

const port = parentPort;
if (!port) throw new Error("the local backend's compute worker must run in a worker thread");
const engine = new ComputeEngine();
const lanes = new Map<string, Task[]>();
let scheduled = false;

function reply(message: WorkerReply): void {
  port!.postMessage(message);
}

function schedule(): void {
  if (scheduled || lanes.size === 0) return;
  scheduled = true;
  setImmediate(tick);
}

/** Runs the head task of the next lane for one slice. */
function tick(): void {
  scheduled = false;
  let lane: string | undefined;
  for (const [key, q] of lanes) if (lane === undefined || q[0].spent < lanes.get(lane)![0].spent) lane = key;
  if (lane === undefined) return;
  const queue = lanes.get(lane)!;
  const task = queue[0];
  const began = performance.now();
  const deadline = began + SLICE_MS;
  try {
    task.steps ??= engine.run(task.job);
    for (;;) {
      const r = task.steps.next();
      if (r.done) {
        reply({ id: task.id, ok: r.value });
        break;
      }
      if (performance.now() >= deadline) {
        task.spent += performance.now() - began;
        schedule();
        return;
      }
    }
  } catch (e) {
    reply({ id: task.id, failed: jobFailure(e) });
  }
  queue.shift();
  if (queue.length === 0) lanes.delete(lane);
  schedule();
}

port.on("message", (message: WorkerRequest) => {
  const lane = laneOf(message.job);
  const queue = lanes.get(lane);
  const task = { id: message.id, job: message.job, spent: 0 };
  if (queue) queue.push(task);
  else lanes.set(lane, [task]);
  schedule();
});
