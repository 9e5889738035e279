/**
 * Two runs of 4,000 simulated episodes on the real HotpotQA questions, large enough that the Compare
 * panel reads them off its thread (ON_THREAD_MAX_BYTES): the panel tests' runs for the worker paths.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendEpisode, ensureRunDir } from "../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../src/core/base/util/atomic-write";
import { requireSharedData } from "../../helpers/shared-data";
import { manifest, readDev, simulatedRun } from "../core/steps/ablate/fixtures";

/** Writes the two runs under a new temporary folder (`prefix`); skips the test without the shared data. */
export function largeCompareRuns(ctx: Mocha.Context, prefix: string): { root: string; dirs: string[] } {
  const source = readDev(requireSharedData(ctx, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
  const dev = Array.from({ length: 4000 }, (_, i) => ({
    ...source[i % source.length],
    id: `${source[i % source.length].id}-${i}`,
  }));
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dirs = [join(root, "base"), join(root, "other")];
  dirs.forEach((dir, k) => {
    ensureRunDir(dir);
    for (const e of simulatedRun(dev, k === 0 ? [0.4, 0.2, 0.3] : [0.5, 0.2, 0.2], 7 + k)) appendEpisode(dir, e);
    writeJsonAtomic(join(dir, "manifest.json"), manifest({ topK: k === 0 ? 5 : 10 }));
  });
  return { root, dirs };
}
