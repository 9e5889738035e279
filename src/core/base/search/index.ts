/** BM25 search: build an index folder from corpus.jsonl, open it as a Searcher. */

export { buildIndex, type BuildOptions, type BuildProgress, type BuildSummary } from "./build-index";
export { openIndex, Bm25Searcher } from "./bm25-index";
export type { SearchHit, Searcher } from "./searcher";
export { defaultCorpusFile, defaultIndexDir, indexIsCurrent } from "./index-location";
