/** `agent-lab search "query" [-k N] [--data DIR] [--workspace DIR]`: try the BM25 index, printed like the recipe. */
import { join } from "node:path";
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { openIndex } from "../core/search";
import { intFlag, parse } from "./args";

const HELP = `usage: agent-lab search "query words" [-k N] [--data DIR] [--workspace DIR]

  -k N             paragraphs to show (default: the config's topK)
  --data DIR       data folder holding the bm25 index (default: the config's dataDir)
  --workspace DIR  folder holding agent-lab.json (default .)`;

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(
    "search",
    argv,
    {
      k: { type: "string", short: "k" },
      data: { type: "string" },
      workspace: { type: "string", default: "." },
      help: { type: "boolean", short: "h" },
    },
    true,
  );
  if (values.help) {
    console.log(HELP);
    return;
  }
  const query = positionals.join(" ").trim();
  if (!query) throw new UserError(`give a query, e.g. agent-lab search "Scott Derrickson nationality"`);
  const config = loadConfig(values.workspace!);
  const k = intFlag("k", values.k, 1) ?? config.topK;
  const dataDir = values.data ?? join(values.workspace!, config.dataDir);
  const hits = openIndex(join(dataDir, "bm25")).search(query, k);
  if (hits.length === 0) {
    console.log("no results (no word of the query is in the index, or it has only stopwords)");
    return;
  }
  for (const h of hits) console.log(`[${h.title}] ${h.text.slice(0, 200)}\n`);
}
