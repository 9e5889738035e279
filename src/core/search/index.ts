/** BM25 search: build an index folder from corpus.jsonl, open it as a Searcher. */
import { join } from "node:path";
import type { AgentLabConfig } from "../config";

export { buildIndex, type BuildOptions, type BuildSummary } from "./build-index";
export { openIndex, Bm25Searcher } from "./bm25-index";
export type { SearchHit, Searcher } from "./searcher";

/** Default index folder: `<dataDir>/bm25`, next to corpus.jsonl. */
export function defaultIndexDir(workspaceDir: string, config: Pick<AgentLabConfig, "dataDir">): string {
  return join(workspaceDir, config.dataDir, "bm25");
}

/** Default corpus: `<dataDir>/corpus.jsonl`. */
export function defaultCorpusFile(workspaceDir: string, config: Pick<AgentLabConfig, "dataDir">): string {
  return join(workspaceDir, config.dataDir, "corpus.jsonl");
}
