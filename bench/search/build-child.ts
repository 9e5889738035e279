/** Builds one index in its own process so the benchmark can report that process's peak RSS. */
import { buildIndex } from "../../src/core/base/search/build-index";

const [corpus, indexDir] = process.argv.slice(2);
buildIndex(corpus, indexDir).then(
  (s) => {
    console.log(
      JSON.stringify({
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
