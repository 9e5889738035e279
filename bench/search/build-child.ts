/**
 * Builds one index in its own process so the benchmark can report that process's peak RSS.
 *
 *   npx tsx bench/search/build-child.ts CORPUS INDEX_DIR
 *
 * Progress (phase, chunk, pace, ETA, the work folder's size) goes to stderr about once a minute.
 */
import { buildIndex, type BuildProgress } from "../../src/core/base/search/build-index";
import { progressLine } from "../../src/core/base/search/build-progress";

const [corpus, indexDir] = process.argv.slice(2);
const started = performance.now();
let lastReport = -60;
const onProgress = (_documents: number, p: BuildProgress) => {
  const seconds = (performance.now() - started) / 1000;
  if (seconds - lastReport < 60) return;
  lastReport = seconds;
  const rss = (process.memoryUsage.rss() / 2 ** 30).toFixed(2);
  console.error(`build: ${progressLine(p)} · ${seconds.toFixed(0)} s · RSS ${rss} GiB`);
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
