/**
 * Where a workspace's corpus and BM25 index live, and whether an index is of the format this
 * version reads: light (no index code), so the extension's data check can ask at activation.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentLabConfig } from "../config";
import { INDEX_FORMAT, INDEX_VERSION, META_FILE } from "./bm25-format";

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
