/**
 * Builds one index in its own process so the benchmark can report that process's peak RSS.
 *
 *   npx tsx bench/search/build-child.ts CORPUS INDEX_DIR [TOTAL_DOCS]
 *
 * With TOTAL_DOCS, progress (documents, rate, ETA) goes to stderr about once a minute.
 */
import { buildIndex } from "../../src/core/base/search/build-index";

const [corpus, indexDir, total] = process.argv.slice(2);
const started = performance.now();
let lastReport = 0;
const onProgress = (documents: number) => {
  const seconds = (performance.now() - started) / 1000;
  if (!total || seconds - lastReport < 60) return;
  lastReport = seconds;
  const rate = documents / seconds;
  const eta = (Number(total) - documents) / rate;
  console.error(
    `build: ${documents.toLocaleString()} / ${Number(total).toLocaleString()} documents, ${rate.toFixed(0)}/s, ${seconds.toFixed(0)} s, ETA ${eta.toFixed(0)} s`,
  );
};
buildIndex(corpus, indexDir, { onProgress }).then(
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
