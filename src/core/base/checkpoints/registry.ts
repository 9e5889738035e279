/**
 * The checkpoint registry: one append-only file, `<runsDir>/checkpoints.jsonl` (the recipe's path),
 * with one line per saved checkpoint of every training run, so `agent-lab ckpt NAME` can turn a
 * short name into a tinker:// path for eval (sampler) or for further training (state).
 *
 * Rules: lines are only ever appended (one write each, so a crash tears at most the last line,
 * which readers skip); when two lines share a name the **later one wins** (re-running a training
 * under the same name re-points the name, as the recipe's `paths[-1]` does).
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { FileFormatError, UserError } from "../errors";
import { appendJsonl, readJsonlLines } from "../util/jsonl";
import { repairTornTail } from "../runs/run-files";
import { RUN_FILES } from "../runs/run-folder";

export const REGISTRY_FILE = RUN_FILES.registry;

export type CheckpointKindName = "sft" | "grpo";

export interface CheckpointEntry {
  /** Short name: `<run>-e<epoch>` (SFT) or `<run>-s<step>` (GRPO). */
  name: string;
  /** tinker://…/sampler_weights/… — what eval samples from. */
  sampler_path: string;
  /** tinker://…/weights/… — what training resumes or continues from. */
  state_path: string;
  base_model: string;
  /** The registry name or state path this training started from; null = the base model. */
  parent: string | null;
  /** SFT: the content hash of the SFT data; GRPO: the train-question range, e.g. "train[1500:1532]". */
  data_hash: string;
  /** Optimizer steps done when it was saved. */
  step: number;
  epoch?: number;
  /** The training run folder (relative to the workspace's runsDir parent, e.g. "runs/sft"). */
  run: string;
  kind: CheckpointKindName;
  /** ISO time of registration. */
  created: string;
}

export function registryPath(runsDir: string): string {
  return join(runsDir, REGISTRY_FILE);
}

/** Every entry in file order (torn last line skipped); [] when the file does not exist yet. */
export function readRegistry(file: string): CheckpointEntry[] {
  if (!existsSync(file)) return [];
  return readJsonlLines<Partial<CheckpointEntry> | null>(file, { tolerateTornTail: true }).map(
    ({ value: row, line }) => {
      if (
        typeof row !== "object" ||
        row === null ||
        typeof row.name !== "string" ||
        typeof row.sampler_path !== "string" ||
        typeof row.state_path !== "string"
      ) {
        throw new FileFormatError(
          file,
          line,
          'a checkpoint entry needs string "name", "sampler_path" and "state_path"',
        );
      }
      return row as CheckpointEntry;
    },
  );
}

/** Appends one entry (one write). A torn line a crash left is cut first so the new one is not glued to it. */
export function appendRegistry(file: string, entry: CheckpointEntry): void {
  mkdirSync(dirname(file), { recursive: true });
  repairTornTail(file);
  appendJsonl(file, entry);
}

/** Names in first-registered order, each once. */
export function knownNames(entries: readonly CheckpointEntry[]): string[] {
  return [...new Set(entries.map((e) => e.name))];
}

/** The entry a name means now: the last one with that name. */
export function findCheckpoint(entries: readonly CheckpointEntry[], name: string): CheckpointEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].name === name) return entries[i];
  return undefined;
}

/** Like findCheckpoint, but an unknown name is a user error that lists the known names. */
export function requireCheckpoint(file: string, name: string): CheckpointEntry {
  const entries = readRegistry(file);
  const found = findCheckpoint(entries, name);
  if (!found) {
    const names = knownNames(entries);
    throw new UserError(
      `no checkpoint named "${name}" in ${file}; ` +
        (names.length
          ? `known names: ${names.join(", ")}`
          : "it has no checkpoints yet (train-sft or train-grpo add them)"),
    );
  }
  return found;
}

/** A tinker:// path passes through; anything else is a registry name resolved to its sampler or state path. */
export function resolveCheckpointPath(runsDir: string, nameOrPath: string, which: "sampler" | "state"): string {
  if (nameOrPath.startsWith("tinker://")) return nameOrPath;
  const entry = requireCheckpoint(registryPath(runsDir), nameOrPath);
  return which === "state" ? entry.state_path : entry.sampler_path;
}

/**
 * Registers an entry unless the registry already holds one with the same name and state path
 * (a resumed run re-registering what it saved before a crash). Returns true when it appended.
 */
export function registerOnce(file: string, entry: CheckpointEntry): boolean {
  const existing = readRegistry(file);
  if (existing.some((e) => e.name === entry.name && e.state_path === entry.state_path)) return false;
  appendRegistry(file, entry);
  return true;
}
