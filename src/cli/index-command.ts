/**
 * `agent-lab index [--data DIR] [--workspace DIR]`: builds the BM25 index of <data>/corpus.jsonl into
 * <data>/bm25 (step 2.1 of the recipe). Safe to interrupt: the old index stays until the new one is
 * done, and a re-run resumes after the chunks the interrupted build finished (in <data>/bm25.build).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/base/errors";
import { refuseWriteIntoRun } from "../core/base/runs/run-folder";
import { buildIndex, type BuildProgress } from "../core/base/search";
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

/** "chunk 3/21 · 2,500,000 paragraphs · 41,200/s · ETA 6 min · work 3.1 GiB" or "merge 45% · … ". */
export function progressLine(p: BuildProgress): string {
  const eta = p.etaSeconds === undefined ? "" : ` · ETA ${duration(p.etaSeconds)}`;
  const work = ` · work ${mib(p.workBytes)}`;
  if (p.phase === "merge") {
    const pct = p.postings > 0 ? Math.floor((100 * p.postingsMerged) / p.postings) : 100;
    return `merge ${pct}% of ${p.postings.toLocaleString("en-US")} postings · ${Math.round(p.perSecond).toLocaleString("en-US")}/s${eta}${work}`;
  }
  return (
    `chunk ${p.chunk}/${p.chunks} · ${p.documents.toLocaleString("en-US")} paragraphs · ` +
    `${Math.round(p.perSecond).toLocaleString("en-US")}/s${eta}${work}`
  );
}

function mib(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
