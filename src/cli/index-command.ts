/**
 * `agent-lab index [--data DIR] [--workspace DIR]`: builds the BM25 index of <data>/corpus.jsonl into
 * <data>/bm25 (step 2.1 of the recipe). Safe to interrupt: the old index stays until the new one is done.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/base/errors";
import { refuseWriteIntoRun } from "../core/base/runs/run-folder";
import { buildIndex } from "../core/base/search";
import { INDEX_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(INDEX_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  const dataDir = values.data ?? join(workspaceDir, config.dataDir);
  refuseWriteIntoRun(dataDir, { flag: values.data !== undefined ? "--data" : "dataDir" });
  const corpus = join(dataDir, "corpus.jsonl");
  if (!existsSync(corpus))
    throw new UserError(`no corpus at ${corpus}: run "agent-lab prepare" first (or pass --data DIR)`);
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
