/**
 * `agent-lab index [--data DIR] [--workspace DIR]`: builds the BM25 index of <data>/corpus.jsonl into
 * <data>/bm25 (step 2.1 of the recipe). Safe to interrupt: the old index stays until the new one is
 * done, and a re-run resumes after the chunks the interrupted build finished (in <data>/bm25.build).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/base/errors";
import { refuseWriteIntoRun } from "../core/base/runs/run-folder";
import { buildIndex } from "../core/base/search";
import { mib, progressLine } from "../core/base/search/build-progress";
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
  let shown = false;
  const summary = await buildIndex(corpus, indexDir, {
    onNote: (line) => console.error(line),
    onProgress: (_docs, p) => {
      // A terminal gets one rewriting line; a log gets none (the summary line says it all).
      if (!process.stderr.isTTY) return;
      shown = true;
      process.stderr.write(`\r  ${progressLine(p)}\x1b[K`);
    },
  });
  if (shown) process.stderr.write("\r\x1b[K");
  const kept = summary.chunksKept > 0 ? `, ${summary.chunksKept} of ${summary.chunks} chunks kept from before` : "";
  console.log(
    `indexed ${summary.documents.toLocaleString("en-US")} paragraphs into ${indexDir} in ${summary.seconds.toFixed(1)} s ` +
      `(${mib(summary.bytes)}, ${summary.terms.toLocaleString("en-US")} terms, sha256 ${summary.contentHash.slice(0, 12)}; ` +
      `${summary.chunks} chunk(s)${kept}, work folder peak ${mib(summary.workPeakBytes)})`,
  );
}
