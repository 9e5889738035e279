/**
 * A workspace on the invented world (the demo's generator): its raw files written, then the real
 * prepare and BM25 index under `ws/data`, as `agent-lab prepare` and `agent-lab index` make them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareData } from "../../src/core/envs/hotpotqa/prepare";
import { generateSyntheticHotpot } from "../../src/core/envs/hotpotqa/synthetic-world";
import { buildIndex } from "../../src/core/base/search";

export async function prepareSyntheticWorkspace(
  ws: string,
  world: { seed: number; train: number; dev: number },
  { rawDir = join(ws, "raw"), source = "test" }: { rawDir?: string; source?: string } = {},
): Promise<void> {
  const data = generateSyntheticHotpot(world);
  mkdirSync(rawDir, { recursive: true });
  writeFileSync(join(rawDir, "train.json"), JSON.stringify(data.train));
  writeFileSync(join(rawDir, "dev.json"), JSON.stringify(data.dev));
  await prepareData(join(ws, "data"), {
    trainFiles: [join(rawDir, "train.json")],
    devFiles: [join(rawDir, "dev.json")],
    source,
  });
  await buildIndex(join(ws, "data", "corpus.jsonl"), join(ws, "data", "bm25"), { workers: 0 });
}
