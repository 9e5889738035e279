/**
 * Worker thread entry for index builds: tokenizes corpus batches sent by build-index.ts and, after
 * the last one, sorts the terms it has seen (term-order.ts) and scatters half the postings
 * (posting-scatter.ts).
 * Bundled as its own file (dist/bm25-build-worker.js) next to the CLI; under tsx it runs as .ts.
 */
import { parentPort } from "node:worker_threads";
import { CorpusBatcher, type BatchRequest, type TermOrderRequest } from "./corpus-batch";
import { scatterPostings, type ScatterRequest } from "./posting-scatter";

const batcher = new CorpusBatcher();
parentPort?.on("message", (req: BatchRequest | TermOrderRequest | ScatterRequest) => {
  if ("scatter" in req) {
    const r = scatterPostings(req.scatter);
    parentPort!.postMessage(r, [r.maxById.buffer as ArrayBuffer]);
    return;
  }
  if ("termOrder" in req) {
    const o = batcher.termOrder();
    parentPort!.postMessage(o, [o.order.buffer as ArrayBuffer]);
    return;
  }
  const r = batcher.tokenize(req);
  parentPort!.postMessage(r, [
    r.docIds.buffer,
    r.docLengths.buffer,
    r.distinct.buffer,
    r.termIds.buffer,
    r.tfs.buffer,
    r.textLengths.buffer,
    r.textBytes.buffer,
  ] as ArrayBuffer[]);
});
