/**
 * Builds one index in its own process so the benchmark can report that process's peak RSS.
 *
 *   npx tsx bench/search/build-child.ts CORPUS INDEX_DIR
 *
 * Progress (phase, chunk, pace, ETA, the work folder's size) goes to stderr about once a minute.
 */
import { buildIndex, type BuildProgress } from "../../src/core/base/search/build-index";

const [corpus, indexDir] = process.argv.slice(2);
const started = performance.now();
let lastReport = -60;
const onProgress = (documents: number, p: BuildProgress) => {
  const seconds = (performance.now() - started) / 1000;
  if (seconds - lastReport < 60) return;
  lastReport = seconds;
  const where =
    p.phase === "chunks"
      ? `chunk ${p.chunk}/${p.chunks}, ${documents.toLocaleString()} documents, ${p.perSecond.toFixed(0)}/s`
      : `merge, ${((100 * p.postingsMerged) / Math.max(1, p.postings)).toFixed(0)}% of ${p.postings.toLocaleString()} postings`;
  const eta = p.etaSeconds === undefined ? "" : `, phase ETA ${p.etaSeconds.toFixed(0)} s`;
  const rss = (process.memoryUsage.rss() / 2 ** 30).toFixed(2);
  console.error(
    `build: ${where}, ${seconds.toFixed(0)} s${eta}, RSS ${rss} GiB, work folder ${(p.workBytes / 2 ** 30).toFixed(2)} GiB`,
  );
};
const onNote = (line: string) => console.error(`build: ${line}`);
buildIndex(corpus, indexDir, { onProgress, onNote }).then(
  (s) => {
    console.log(
      JSON.stringify({
        ...s,
        seconds: s.seconds,
        bytes: s.bytes,
        peak_rss: process.resourceUsage().maxRSS * 1024,
        docs: s.documents,
        terms: s.terms,
        postings: s.postings,
      }),
    );
  },
  (e) => {
    console.error(e);
    process.exitCode = 1;
  },
);
