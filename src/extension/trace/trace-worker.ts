/**
 * Worker-thread entry of the trace viewer's decoding (bundled as dist/trace-worker.js next to the
 * extension; under tsx it runs as .ts): see trace-decoding.ts. Requests are answered in the order
 * they come; a trace's run-wide passes ask in slices, so an episode asked for meanwhile waits for
 * one slice at most.
 */
import { parentPort } from "node:worker_threads";
import { failedReply } from "../../core/base/util/request-worker";
import { traceDecoding, type TraceDecodeRequest } from "./trace-decoding";

const answer = traceDecoding();
let queue: Promise<void> = Promise.resolve();

parentPort!.on("message", (req: TraceDecodeRequest & { id: number }) => {
  queue = queue.then(async () => {
    try {
      parentPort!.postMessage({ id: req.id, ok: await answer(req) });
    } catch (e) {
      parentPort!.postMessage(failedReply(req.id, e)); // also an answer that cannot be sent
    }
  });
});
