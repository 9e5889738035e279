/**
 * A build that kills itself (SIGKILL: no cleanup runs) at a chosen point, for the resume tests.
 * argv: corpus, index folder, chunk size, and where to die: "chunk:N" (once N − 1 chunks are
 * finished) or "merge:F" (once a fraction F of the postings is merged).
 */
import { buildIndex } from "../../../../../src/core/base/search/build-index";

const [corpus, indexDir, chunkDocuments, at] = process.argv.slice(2);
const [phase, value] = at.split(":");
buildIndex(corpus, indexDir, {
  chunkDocuments: Number(chunkDocuments),
  mergeReportPostings: 1,
  onProgress: (_docs, p) => {
    const due =
      p.phase === phase &&
      (phase === "chunks" ? p.chunk >= Number(value) : p.postingsMerged >= Number(value) * p.postings);
    if (due) process.kill(process.pid, "SIGKILL");
  },
}).then(
  () => process.exit(3), // not killed: the test's point never came
  (e: unknown) => {
    console.error(e);
    process.exit(4);
  },
);
