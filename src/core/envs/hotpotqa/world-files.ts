/**
 * The synthetic multi-hop world's files in a workspace (HotpotQA's JSON shape, as prepare reads it)
 * and prepare's lines over HotpotQA-shaped records: shared by the offline world (offline.ts), the
 * real data of the paid path (recipe-data.ts), the demo's world and the experiment's stages.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../base/util/atomic-write";
import { prepareData, type PrepareInput, type SplitSizes } from "./prepare";
import { buildSyntheticHotpot, generateSyntheticHotpot, type SyntheticDataset } from "./synthetic-world";
import { runInterruptibly } from "../../base/util/stepwise";
import { WORLD_INFO } from "./world-info";

/** Where a workspace's synthetic world lives. */
export const WORLD_DIR = "hotpot";
export const WORLD_TRAIN_FILE = "synthetic_train.json";
export const WORLD_DEV_FILE = "synthetic_dev.json";

/** How prepare names the pipeline's world in splits.json's `source` (its info declares it; reports recognise it by it). */
export const WORLD_SOURCE: string = WORLD_INFO.preparedSource!;

export interface WorldSpec {
  seed: number;
  train: number;
  dev: number;
  /** The generator's style (the pipeline and experiments: compact; the demo: the default). */
  style?: "compact";
  /** The dev file's name (default synthetic_dev.json). */
  devFile?: string;
}

export interface WorldFiles {
  trainFile: string;
  devFile: string;
  train: number;
  dev: number;
}

/** The world's files in a workspace (where `writeSyntheticWorld` writes them). */
export function worldFiles(dir: string, w: Pick<WorldSpec, "devFile">): { trainFile: string; devFile: string } {
  return {
    trainFile: join(dir, WORLD_DIR, WORLD_TRAIN_FILE),
    devFile: join(dir, WORLD_DIR, w.devFile ?? WORLD_DEV_FILE),
  };
}

/** Writes the synthetic multi-hop world (invented entities) under `dir`/hotpot/; the dev file last. */
export function writeSyntheticWorld(dir: string, w: WorldSpec): WorldFiles {
  return writeWorld(dir, w, generateSyntheticHotpot(generatorOptions(w)));
}

/** The same, stopping between two questions once `signal` aborts (nothing is written then). */
export async function writeSyntheticWorldInterruptibly(
  dir: string,
  w: WorldSpec,
  signal?: AbortSignal,
): Promise<WorldFiles> {
  return writeWorld(dir, w, await runInterruptibly(buildSyntheticHotpot(generatorOptions(w)), signal));
}

const generatorOptions = (w: WorldSpec) => ({
  seed: w.seed,
  train: w.train,
  dev: w.dev,
  ...(w.style ? { style: w.style } : {}),
});

function writeWorld(dir: string, w: WorldSpec, world: SyntheticDataset): WorldFiles {
  mkdirSync(join(dir, WORLD_DIR), { recursive: true });
  const files = worldFiles(dir, w);
  writeFileAtomic(files.trainFile, JSON.stringify(world.train));
  writeFileAtomic(files.devFile, JSON.stringify(world.dev));
  return { ...files, train: world.train.length, dev: world.dev.length };
}

/** Splits and the corpus from HotpotQA-shaped files (the world's, local files or the hub's), as `agent-lab prepare` writes them. */
export function prepareHotpot(dataDir: string, input: PrepareInput, log?: (line: string) => void, sizes?: SplitSizes) {
  return prepareData(dataDir, input, log, sizes ? { sizes } : undefined);
}

/** Prepare, then the lines the pipeline prints: its notes and the counts. */
export async function prepareLines(
  dataDir: string,
  input: PrepareInput,
  log: (line: string) => void,
  sizes?: SplitSizes,
): Promise<string[]> {
  const r = await prepareHotpot(dataDir, input, log, sizes);
  const c = r.counts;
  return [
    ...r.notes.map((remark) => `note: ${remark}`),
    `corpus ${c.corpus} paragraphs | train ${c.train} | val ${c.val} | test ${c.test}`,
  ];
}
