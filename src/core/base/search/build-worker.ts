/**
 * A build worker thread: tokenizes corpus batches for the index builder (corpus-batch.ts).
 * Bundled as its own file (dist/bm25-build-worker.js) next to the CLI; under tsx it runs as .ts.
 */
import { parentPort } from "node:worker_threads";
import { CorpusBatcher, type BatchRequest } from "./corpus-batch";

const batcher = new CorpusBatcher();
parentPort?.on("message", (req: BatchRequest) => {
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
