/**
 * Reads files into shared memory on a worker thread, one after the other, and computes each one's
 * CRC-32 there, while the calling thread reads the others: opening an index costs what the slower
 * thread takes, and the page faults of the fresh memory (most of a read's cost) are taken on the
 * other core too.
 */
import { Worker } from "node:worker_threads";

export interface PendingRead {
  /** Blocks until the worker is done with this file; undefined when it could not do the job (then read the file here, which also reports why). */
  result(): { bytes: Buffer; crc: number } | undefined;
}

/** Plain JavaScript (no TypeScript, no imports of ours) so it runs the same from source, tests and the bundle. */
const READ_WORKER = `
const { workerData } = require("node:worker_threads");
const { openSync, readSync, closeSync, fstatSync } = require("node:fs");
const { crc32 } = require("node:zlib");
const state = new Int32Array(workerData.state);
workerData.files.forEach(({ file, bytes }, i) => {
  let status = 2;
  try {
    const fd = openSync(file, "r");
    try {
      const out = new Uint8Array(bytes);
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
          state[2 * i + 1] = value | 0;
          status = 1;
        }
      }
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    status = 2;
  }
  Atomics.store(state, 2 * i, status);
  Atomics.notify(state, 2 * i);
});
`;

/**
 * Starts reading each file, expected to be `size` bytes, in this order; each result() waits for its
 * file (Atomics.wait, so open stays synchronous). A size that is not a plausible byte count is not
 * handed to the worker: that file is left to the caller, whose own read reports the mismatch.
 */
export function readOnWorker(files: readonly { file: string; size: number }[]): PendingRead[] {
  const none: PendingRead = { result: () => undefined };
  const state = new Int32Array(new SharedArrayBuffer(8 * files.length));
  const jobs = files.map(({ file, size }) => ({
    file,
    bytes: Number.isSafeInteger(size) && size >= 0 && size < 2 ** 32 ? new SharedArrayBuffer(size) : undefined,
  }));
  const taken = jobs.filter((j) => j.bytes !== undefined);
  let worker: Worker;
  try {
    // execArgv: [] keeps loader hooks of the parent (tsx in tests and benchmarks) out of this small worker.
    worker = new Worker(READ_WORKER, { eval: true, workerData: { files: taken, state: state.buffer }, execArgv: [] });
  } catch (e) {
    // No worker threads here (e.g. a restricted host): the caller reads the files itself.
    void e;
    return files.map(() => none);
  }
  worker.unref();
  worker.on("error", () => {
    // Reported through state (the worker sets 2, or never finishes and the wait times out).
  });
  return jobs.map((job) => {
    const i = taken.indexOf(job);
    if (i < 0) return none;
    return {
      result: () => {
        // Bounded: a worker that died before starting cannot report it while this thread waits.
        Atomics.wait(state, 2 * i, 0, 20_000);
        return Atomics.load(state, 2 * i) === 1
          ? { bytes: Buffer.from(job.bytes!), crc: state[2 * i + 1] >>> 0 }
          : undefined;
      },
    };
  });
}
