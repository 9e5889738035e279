/** Opens the searcher eval uses: the BM25 index built by `agent-lab index` (or the demo). */
import { openIndex } from "../search";
import type { Searcher } from "../search/searcher";

export async function openSearcher(indexDir: string): Promise<Searcher> {
  return openIndex(indexDir);
}
