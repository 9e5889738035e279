/**
 * `agent-lab prepare --corpus FILE`: the agent searches the user's own paragraphs (e.g. the
 * open-domain setting's 5.2M Wikipedia abstracts, or wiki-18's 21M passages, converted to
 * corpus.jsonl's format: README "Bring your own corpus") instead of the questions' own.
 *
 * The index is built from the user's file first: every line is read and checked there, so a bad
 * line is refused (naming the file and line) before the data folder changes, and the old index stays
 * until the new one is whole. The file is copied beside corpus.jsonl before that long build (a full
 * disk says so at once; a copy-on-write filesystem clones it for free) and renamed into place after.
 */
import { constants, copyFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { CorpusImportOptions } from "../../harness/environment";
import { buildIndex } from "../../base/search";
import { atomicTempPath } from "../../base/util/atomic-write";
import { UserError } from "../../base/errors";

export async function importCorpus(o: CorpusImportOptions): Promise<string[]> {
  const target = join(o.outDir, "corpus.jsonl");
  const staged = atomicTempPath(target);
  try {
    try {
      copyFileSync(o.file, staged, constants.COPYFILE_FICLONE);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") throw new UserError(`--corpus ${o.file}: no such file`);
      if (code === "EISDIR") throw new UserError(`--corpus ${o.file} is a folder: give the corpus.jsonl-format file`);
      throw e;
    }
    o.log(`building the index of ${o.file}…`);
    const summary = await buildIndex(o.file, join(o.outDir, "bm25"), {
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
    renameSync(staged, target);
    const n = summary.documents.toLocaleString("en-US");
    return [
      `corpus ${n} paragraphs from ${o.file} → ${target}`,
      `indexed into ${summary.indexDir} in ${summary.seconds.toFixed(1)} s (${(summary.bytes / 2 ** 20).toFixed(0)} MiB, ${summary.terms.toLocaleString("en-US")} terms, sha256 ${summary.contentHash.slice(0, 12)})`,
    ];
  } finally {
    rmSync(staged, { force: true });
  }
}
