/**
 * Worker-thread entry of the Compare panel's failure labels of large runs (bundled as
 * dist/failures-worker.js next to the extension; under tsx it runs as .ts): see failures-off-thread.ts.
 */
import { parentPort } from "node:worker_threads";
import { failedReply, type WorkerReply } from "../../base/util/request-worker";
import { compareFailuresOfDirs, type FailuresRequest } from "./failures-off-thread";
import type { FailureComparison } from "./compare-failures";

parentPort!.on("message", (req: FailuresRequest & { id: number }) => {
  const reply = (r: WorkerReply<FailureComparison | undefined>) => parentPort!.postMessage(r);
  compareFailuresOfDirs(req).then(
    (ok) => reply({ id: req.id, ok }),
    (e: unknown) => reply(failedReply(req.id, e)),
  );
});
