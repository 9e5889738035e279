/**
 * Reads one file into shared memory on a worker thread and computes its CRC-32 there, while the
 * calling thread reads the others: opening an index costs what the slower thread takes, and the
 * page faults of the fresh memory (most of a read's cost) are taken on the other core too.
 */
import { Worker } from "node:worker_threads";

export interface PendingRead {
  /** Blocks until the worker is done; undefined when it could not do the job (then read the file here, which also reports why). */
  result(): { bytes: Buffer; crc: number } | undefined;
}

/** Plain JavaScript (no TypeScript, no imports of ours) so it runs the same from source, tests and the bundle. */
const READ_WORKER = `
const { workerData } = require("node:worker_threads");
const { openSync, readSync, closeSync, fstatSync } = require("node:fs");
const { crc32 } = require("node:zlib");
const state = new Int32Array(workerData.state);
let status = 2;
try {
  const fd = openSync(workerData.file, "r");
  try {
    const out = new Uint8Array(workerData.bytes);
    if (fstatSync(fd).size === out.length) {
      let value = 0;
      let at = 0;
      while (at < out.length) {
        const n = readSync(fd, out, at, Math.min(8 << 20, out.length - at), at);
        if (n === 0) break;
        value = crc32(out.subarray(at, at + n), value);
        at += n;
      }
      if (at === out.length) {
        state[1] = value | 0;
        status = 1;
      }
    }
  } finally {
    closeSync(fd);
  }
} catch (e) {
  status = 2;
}
Atomics.store(state, 0, status);
Atomics.notify(state, 0);
`;

/** Starts reading `file`, expected to be `size` bytes; result() waits for it (Atomics.wait, so open stays synchronous). */
export function readOnWorker(file: string, size: number): PendingRead {
  const state = new Int32Array(new SharedArrayBuffer(8));
  const bytes = new SharedArrayBuffer(size);
  let worker: Worker;
  try {
    // execArgv: [] keeps loader hooks of the parent (tsx in tests and benchmarks) out of this small worker.
    worker = new Worker(READ_WORKER, { eval: true, workerData: { file, bytes, state: state.buffer }, execArgv: [] });
  } catch (e) {
    // No worker threads here (e.g. a restricted host): the caller reads the file itself.
    void e;
    return { result: () => undefined };
  }
  worker.unref();
  worker.on("error", () => {
    // Reported through state (the worker sets 2, or never finishes and the wait times out).
  });
  return {
    result: () => {
      // Bounded: a worker that died before starting cannot report it while this thread waits.
      Atomics.wait(state, 0, 0, 20_000);
      return Atomics.load(state, 0) === 1 ? { bytes: Buffer.from(bytes), crc: state[1] >>> 0 } : undefined;
    },
  };
}
