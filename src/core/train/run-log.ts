/**
 * A training run's folder, in the cookbook's `log_path` layout (spec §5.5) where it overlaps:
 *   metrics.jsonl      one line per optimizer step ({"step": n, …})
 *   checkpoints.jsonl  one line per saved checkpoint ({"name", "batch", "epoch"?, "state_path", "sampler_path"})
 *   manifest.json      provenance: what was trained from what, with which settings
 * plus ledger.jsonl (the cost ledger). The last line of checkpoints.jsonl is what `--resume` continues from.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileFormatError, UserError } from "../errors";
import { readJsonFile, repairTornTail, writeJsonAtomic } from "../runs/run-files";
import { appendJsonl, parseJsonl } from "../util/jsonl";

export const METRICS_FILE = "metrics.jsonl";
export const RUN_CHECKPOINTS_FILE = "checkpoints.jsonl";
export const TRAIN_MANIFEST_FILE = "manifest.json";

/** One line of a run's checkpoints.jsonl (cookbook key names; `batch` = optimizer steps done). */
export interface RunCheckpoint {
  name: string;
  batch: number;
  epoch?: number;
  state_path: string;
  sampler_path: string;
  final?: boolean;
}

export { checkRunName } from "../runs/run-name";

/** Rows of a JSONL file with a torn last line skipped; [] when absent. */
export function readRows<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return parseJsonl<T>(readFileSync(file, "utf8"), file, { tolerateTornTail: true });
}

export function readRunCheckpoints(runDir: string): RunCheckpoint[] {
  const file = join(runDir, RUN_CHECKPOINTS_FILE);
  const rows = readRows<Partial<RunCheckpoint>>(file);
  rows.forEach((r, i) => {
    if (typeof r?.state_path !== "string" || typeof r.sampler_path !== "string" || typeof r.batch !== "number") {
      throw new FileFormatError(file, undefined, `checkpoint ${i + 1} needs "state_path", "sampler_path" and a numeric "batch"`);
    }
  });
  return rows as RunCheckpoint[];
}

export function appendRow(file: string, row: unknown): void {
  repairTornTail(file);
  appendJsonl(file, row);
}

/**
 * Keeps only rows whose `step` is ≤ `lastStep` (a resumed run redoes the steps after its last saved
 * state, so their old lines go). Written through a temp file and a rename: a crash keeps one version.
 * Returns the number of rows dropped.
 */
export function keepStepsUpTo(file: string, lastStep: number): number {
  if (!existsSync(file)) return 0;
  const rows = readRows<{ step?: unknown }>(file);
  const kept = rows.filter((r) => typeof r?.step === "number" && r.step <= lastStep);
  const dropped = rows.length - kept.length;
  const tornBytes = readFileSync(file, "utf8").endsWith("\n") || rows.length === 0 ? 0 : 1;
  if (dropped === 0 && tornBytes === 0) return 0;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, kept.map((r) => JSON.stringify(r) + "\n").join(""));
  renameSync(tmp, file);
  return dropped;
}

/**
 * The manifest of a new run, or on --resume the check that the settings that decide what is being
 * trained still match (a resumed run with another lr or data would not be the run its folder says).
 */
export function writeOrCheckManifest<T extends object>(runDir: string, manifest: T, resume: boolean, mustMatch: readonly (keyof T & string)[]): void {
  mkdirSync(runDir, { recursive: true });
  const file = join(runDir, TRAIN_MANIFEST_FILE);
  const old = readJsonFile<T>(file);
  if (resume && old) {
    const diffs = mustMatch.filter((k) => JSON.stringify(old[k]) !== JSON.stringify(manifest[k]));
    if (diffs.length) {
      throw new UserError(
        `cannot resume ${runDir}: ${diffs.map((k) => `${k} was ${JSON.stringify(old[k])}, now ${JSON.stringify(manifest[k])}`).join("; ")}. ` +
          "Resume with the original settings or train under a new --name.",
      );
    }
    writeJsonAtomic(file, { ...old, resumed: [...(((old as Record<string, unknown>).resumed as unknown[]) ?? []), { at: new Date().toISOString(), command: (manifest as Record<string, unknown>).command }] });
    return;
  }
  writeJsonAtomic(file, manifest);
}

/** A new run must not write into a folder that already holds a training run. */
export function refuseExistingRun(runDir: string): void {
  if (existsSync(join(runDir, METRICS_FILE)) || existsSync(join(runDir, RUN_CHECKPOINTS_FILE)) || existsSync(join(runDir, TRAIN_MANIFEST_FILE))) {
    throw new UserError(`${runDir} already holds a training run: add --resume to continue it, or pick another --name`);
  }
}
