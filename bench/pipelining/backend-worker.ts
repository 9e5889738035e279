/**
 * Runs the local backend in a worker thread for the pipelining bench, so the server has its own
 * event loop like a real remote service and the client's work does not delay it (nor the reverse).
 * Messages: in { type: "start", options } | { type: "opLog", from } | { type: "faults", faults } | { type: "close" };
 * out { type: "started", url } | { type: "opLog", records, count } | { type: "ok" }.
 */
import { parentPort } from "node:worker_threads";
import { startLocalBackend, type RunningLocalBackend, type LocalBackendOptions } from "../../src/server";

let running: RunningLocalBackend | undefined;
parentPort!.on(
  "message",
  (msg: { type: string; options?: LocalBackendOptions; from?: number; faults?: Record<string, number> }) => {
    void (async () => {
      if (msg.type === "start") {
        running = await startLocalBackend(msg.options!);
        parentPort!.postMessage({ type: "started", url: running.url });
      } else if (msg.type === "opLog") {
        // Durations only are compared across threads, so the worker's clock origin does not matter.
        parentPort!.postMessage({
          type: "opLog",
          records: running!.backend.opLog.slice(msg.from ?? 0),
          count: running!.backend.opLog.length,
        });
      } else if (msg.type === "faults") {
        Object.assign(running!.faults, msg.faults);
        parentPort!.postMessage({ type: "ok" });
      } else if (msg.type === "close") {
        await running?.close();
        parentPort!.postMessage({ type: "ok" });
        parentPort!.close();
      }
    })();
  },
);
