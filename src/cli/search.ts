/** `agent-lab search "query" [-k N] [--data DIR] [--workspace DIR]`: try the BM25 index, printed like the recipe. */
import { join } from "node:path";
import { UserError } from "../core/base/errors";
import { openIndex } from "../core/base/search";
import { SEARCH_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(SEARCH_STEP, argv);
  if (!args) return;
  const { values, positionals, config, workspaceDir } = args;
  const query = positionals.join(" ").trim();
  if (!query) throw new UserError(`give a query, e.g. agent-lab search "Scott Derrickson nationality"`);
  const dataDir = values.data ?? join(workspaceDir, config.dataDir);
  // One query: no background fill of the cache (the process would wait for it before exiting).
  const hits = openIndex(join(dataDir, "bm25"), { fill: false }).search(query, values.k);
  if (hits.length === 0) {
    console.log("no results (no word of the query is in the index, or it has only stopwords)");
    return;
  }
  for (const h of hits) console.log(`[${h.title}] ${h.text.slice(0, 200)}\n`);
}
