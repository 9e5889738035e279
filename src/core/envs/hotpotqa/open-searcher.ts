/**
 * The searcher a HotpotQA run uses: a running `agent-lab serve-search` when the searchUrl setting
 * (--search-url) names one, else the index opened in this process (--index, or <dataDir>/bm25).
 */
import { join } from "node:path";
import type { AgentLabConfig } from "../../base/config";
import { UserError } from "../../base/errors";
import { HttpSearcher, openIndex } from "../../base/search";
import type { Searcher } from "../../base/search/searcher";

export async function openSearcher(o: {
  config: Pick<AgentLabConfig, "searchUrl">;
  dataDir: string;
  indexDir?: string;
}): Promise<Searcher> {
  const url = o.config.searchUrl;
  if (!url) return openIndex(o.indexDir ?? join(o.dataDir, "bm25"));
  if (o.indexDir)
    throw new UserError(
      `--index ${o.indexDir} and the search URL ${url} (searchUrl, --search-url) both say where to search: give one`,
    );
  return HttpSearcher.connect(url);
}
