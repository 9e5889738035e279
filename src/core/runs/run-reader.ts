/**
 * Reading any run folder, for steps and views alike: what kind of run it is (a manifest union
 * keyed on the kind), its summary, and its per-step files, with a torn last line (what a writer
 * killed mid-append leaves) skipped in one place.
 */
import { existsSync, readFileSync } from "node:fs";
import { FileFormatError } from "../errors";
import type { SftDataManifest } from "../sft/lineage";
import { parseJsonl } from "../util/jsonl";
import type { RunManifest } from "./manifest";
import { readJsonFile } from "./run-files";
import { isRunFolder, runFile, RUN_FILES } from "./run-folder";
import type { RunKind } from "../steps/spec";
import type { RunSummary } from "./summary";

/** What every training run's manifest (SFT and GRPO) records; each kind adds its own settings. */
export interface TrainManifest {
  kind: "sft" | "grpo";
  base_model: string;
  backend: "tinker" | "local";
  lora_rank: number | null;
  lr: number;
  parent: string | null;
  init_state: string | null;
  command: string[];
  created: string;
  [setting: string]: unknown;
}

export type AnyRunManifest =
  | { kind: "eval"; manifest: RunManifest }
  | { kind: "sft-data"; manifest: SftDataManifest }
  | { kind: "sft" | "grpo"; manifest: TrainManifest };

/** The kind of run a manifest describes: training runs say so; eval and sft-data manifests are told apart by their shape. */
export function manifestKind(m: unknown): AnyRunManifest["kind"] | undefined {
  if (typeof m !== "object" || m === null) return undefined;
  const r = m as Record<string, unknown>;
  if (r.kind === "sft" || r.kind === "grpo") return r.kind;
  if (typeof r.format === "string" && r.format.startsWith("agent-lab/sft-data")) return "sft-data";
  if (typeof r.split === "object" && typeof r.harness_version === "string") return "eval";
  return undefined;
}

/** A run folder's manifest with its kind, or undefined when it has none (or of no kind known here). */
export function readRunManifest(runDir: string): AnyRunManifest | undefined {
  const m = readJsonFile<unknown>(runFile(runDir, "manifest"));
  const kind = manifestKind(m);
  return kind ? ({ kind, manifest: m } as AnyRunManifest) : undefined;
}

/** The run's kind from its manifest, else from the files it holds (runs from before manifests had kinds). */
export function runKind(runDir: string): RunKind | undefined {
  const fromManifest = readRunManifestSafely(runDir)?.kind;
  if (fromManifest) return fromManifest;
  if (existsSync(runFile(runDir, "groups"))) return "grpo";
  if (existsSync(runFile(runDir, "metrics"))) return "sft";
  if (existsSync(runFile(runDir, "sft"))) return "sft-data";
  if (existsSync(runFile(runDir, "episodes")) || existsSync(runFile(runDir, "summary"))) return "eval";
  return isRunFolder(runDir) ? "eval" : undefined;
}

function readRunManifestSafely(runDir: string): AnyRunManifest | undefined {
  try {
    return readRunManifest(runDir);
  } catch (e) {
    if (e instanceof FileFormatError) return undefined; // a damaged manifest: the files still say what the run is
    throw e;
  }
}

export function readSummary(runDir: string): RunSummary | undefined {
  return readJsonFile<RunSummary>(runFile(runDir, "summary"));
}

/** Rows of one of a run's JSONL files (metrics, groups, episodes, ledger…); a torn last line is skipped; [] when absent. */
export function readRunRows<T>(runDir: string, file: Exclude<keyof typeof RUN_FILES, "manifest" | "summary" | "progress" | "lock" | "textIndex">): T[] {
  const path = runFile(runDir, file);
  if (!existsSync(path)) return [];
  return parseJsonl<T>(readFileSync(path, "utf8"), path, { tolerateTornTail: true });
}
