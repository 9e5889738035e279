/**
 * The stages every driver runs, written once: the synthetic world, prepare, the index, the local
 * backend's start and the scripted teacher's SFT data. The pipeline, an experiment and the demo
 * call these instead of restating them (each keeps its own lines and its record's names).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { offlineTokenizer } from "../../base/chat";
import { buildIndex } from "../../base/search";
import { writeFileAtomic } from "../../base/util/atomic-write";
import { requireLocalBackend, type LocalBackendHandle, type StartLocalBackend } from "../../base/tinker/local-backend";
import { prepareData, type SplitSizes } from "../../envs/hotpotqa/prepare";
import { generateSyntheticHotpot } from "../../envs/hotpotqa/synthetic-world";
import { TeacherPolicy } from "../../envs/hotpotqa/teacher";
import { localBackendDir } from "../eval/backends";
import { readSummaryHead } from "../../base/runs/run-files";

/** Where a workspace's synthetic world lives: HotpotQA's JSON shape, as prepare reads it. */
export const WORLD_DIR = "hotpot";
export const WORLD_TRAIN_FILE = "synthetic_train.json";
export const WORLD_DEV_FILE = "synthetic_dev.json";

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

/** Writes the synthetic multi-hop world (invented entities) under `dir`/hotpot/. */
export function writeSyntheticWorld(dir: string, w: WorldSpec): WorldFiles {
  const world = generateSyntheticHotpot({
    seed: w.seed,
    train: w.train,
    dev: w.dev,
    ...(w.style ? { style: w.style } : {}),
  });
  mkdirSync(join(dir, WORLD_DIR), { recursive: true });
  const files = worldFiles(dir, w);
  writeFileAtomic(files.trainFile, JSON.stringify(world.train));
  writeFileAtomic(files.devFile, JSON.stringify(world.dev));
  return { ...files, train: world.train.length, dev: world.dev.length };
}

/** Splits and the corpus from HotpotQA-shaped files (the world's, local files or the hub's), as `agent-lab prepare` writes them. */
export function prepareHotpot(
  dataDir: string,
  input: { trainFiles: string[]; devFiles: string[]; source: string },
  log?: (line: string) => void,
  sizes?: SplitSizes,
) {
  return prepareData(dataDir, input, log, sizes ? { sizes } : undefined);
}

/** The BM25 index over `dataDir`'s corpus (`workers: 0`: one thread, for the small offline corpora). */
export function indexCorpus(dataDir: string, options: { workers?: number } = {}) {
  return buildIndex(join(dataDir, "corpus.jsonl"), join(dataDir, "bm25"), options);
}

/** An eval run is complete: its summary says done, with every planned episode scored. */
export function evalComplete(runDir: string): boolean {
  const s = readSummaryHead(runDir);
  return s?.status === "done" && s.n === s.planned;
}

/** Starts the local backend for a workspace (or reuses one on `port`), through the starter the caller was given. */
export function openLocalBackend(
  start: StartLocalBackend | undefined,
  step: string,
  workspaceDir: string,
  port?: number,
): Promise<LocalBackendHandle> {
  return requireLocalBackend(start, step)({ port: port ?? 0, dir: localBackendDir(workspaceDir), seed: 0 });
}

/** The scripted teacher the SFT data is distilled from on the offline world (the tiny model starts knowing nothing). */
export async function teacherPolicy(): Promise<TeacherPolicy> {
  return new TeacherPolicy(await offlineTokenizer("qwen3"));
}

/** The scripted teacher's SFT data settings: one greedy try per question, kept at F1 ≥ 0.8. */
export const TEACHER_SFT = Object.freeze({ role: "teacher" as const, tries: 1, temperature: 0, minF1: 0.8 });
