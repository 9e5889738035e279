/**
 * `agent-lab index [--data DIR] [--workspace DIR]`: builds the BM25 index of <data>/corpus.jsonl into
 * <data>/bm25 (step 2.1 of the recipe). Safe to interrupt: the old index stays until the new one is done.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { buildIndex } from "../core/search";
import { parse } from "./args";

const HELP = `usage: agent-lab index [--data DIR] [--workspace DIR]

  --data DIR       data folder with corpus.jsonl; the index goes to DIR/bm25 (default: the config's dataDir)
  --workspace DIR  folder holding agent-lab.json (default .)`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parse("index", argv, {
    data: { type: "string" },
    workspace: { type: "string", default: "." },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const dataDir = values.data ?? join(values.workspace!, loadConfig(values.workspace!).dataDir);
  const corpus = join(dataDir, "corpus.jsonl");
  if (!existsSync(corpus)) throw new UserError(`no corpus at ${corpus}: run "agent-lab prepare" first (or pass --data DIR)`);
  const indexDir = join(dataDir, "bm25");
  let lastReport = 0;
  const summary = await buildIndex(corpus, indexDir, {
    onProgress: (docs) => {
      if (process.stderr.isTTY && docs - lastReport >= 50_000) {
        lastReport = docs;
        process.stderr.write(`\r  ${docs.toLocaleString("en-US")} paragraphs…`);
      }
    },
  });
  if (process.stderr.isTTY && lastReport > 0) process.stderr.write("\r");
  console.log(
    `indexed ${summary.documents.toLocaleString("en-US")} paragraphs into ${indexDir} in ${summary.seconds.toFixed(1)} s ` +
      `(${(summary.bytes / 2 ** 20).toFixed(0)} MiB, ${summary.terms.toLocaleString("en-US")} terms, sha256 ${summary.contentHash.slice(0, 12)})`,
  );
}
