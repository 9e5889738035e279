/** BM25 search: build an index folder from corpus.jsonl, open it as a Searcher. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentLabConfig } from "../config";
import { INDEX_FORMAT, INDEX_VERSION, META_FILE } from "./bm25-format";

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

/**
 * Whether indexDir holds an index of the format this version reads. The pipeline rebuilds one
 * that is missing, torn or of an older format instead of stopping at its refusal.
 */
export function indexIsCurrent(indexDir: string): boolean {
  try {
    const meta = JSON.parse(readFileSync(join(indexDir, META_FILE), "utf8")) as { format?: unknown; version?: unknown };
    return meta.format === INDEX_FORMAT && meta.version === INDEX_VERSION;
  } catch {
    return false; // missing or unreadable: not an index to open
  }
}
