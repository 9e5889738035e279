/**
 * The stages every driver runs, written once: the default environment's declared offline world, the
 * index, the local backend's start and the scripted teacher's SFT data. The pipeline, an experiment
 * and the demo call these instead of restating them (each keeps its own lines and its record's names).
 */
import { join } from "node:path";
import { buildIndex } from "../../base/search";
import { requireLocalBackend, type LocalBackendHandle, type StartLocalBackend } from "../../base/tinker/local-backend";
import { DEFAULT_ENVIRONMENT, offlineWorld } from "../../envs/registry";
import type { OfflineWorld } from "../../harness/offline-world";
import type { Policy } from "../../harness/policy";
import { localBackendDir } from "../eval/backends";
import { readSummaryHead } from "../../base/runs/run-files";

/** The default environment's declared offline world (its folder's offline.ts): the pipeline's and the demo's own. */
export function defaultWorld(): OfflineWorld {
  const world = offlineWorld(DEFAULT_ENVIRONMENT);
  if (!world)
    throw new Error(`envs/${DEFAULT_ENVIRONMENT}/offline.ts: the default environment declares no offline world`);
  return world;
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

/** The scripted teacher the SFT data is distilled from on the default offline world (the tiny model starts knowing nothing). */
export function teacherPolicy(): Promise<Policy> {
  return defaultWorld().teacher();
}

/** The scripted teacher's SFT data settings: one greedy try per question, kept at F1 ≥ 0.8. */
export const TEACHER_SFT = Object.freeze({ role: "teacher" as const, tries: 1, temperature: 0, minF1: 0.8 });
