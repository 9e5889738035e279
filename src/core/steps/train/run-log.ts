/**
 * A training run's folder, in the cookbook's `log_path` layout (spec §5.5) where it overlaps:
 *   metrics.jsonl      one line per optimizer step ({"step": n, …})
 *   checkpoints.jsonl  one line per saved checkpoint ({"name", "batch", "epoch"?, "state_path", "sampler_path"})
 *   manifest.json      provenance: what was trained from what, with which settings
 * plus ledger.jsonl (the cost ledger). The last line of checkpoints.jsonl is what `--resume` continues from.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FileFormatError } from "../../base/errors";
import { RUN_FILES } from "../../base/runs/run-folder";
import { repairTornTail } from "../../base/runs/run-files";
import { appendJsonl, parseJsonl } from "../../base/util/jsonl";
import { writeFileAtomic } from "../../base/util/atomic-write";

export const METRICS_FILE = RUN_FILES.metrics;
export const RUN_CHECKPOINTS_FILE = RUN_FILES.checkpoints;

/** One line of a run's checkpoints.jsonl (cookbook key names; `batch` = optimizer steps done). */
export interface RunCheckpoint {
  name: string;
  batch: number;
  epoch?: number;
  state_path: string;
  sampler_path: string;
  final?: boolean;
}

export { checkRunName } from "../../base/runs/run-name";

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
      throw new FileFormatError(
        file,
        undefined,
        `checkpoint ${i + 1} needs "state_path", "sampler_path" and a numeric "batch"`,
      );
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
  writeFileAtomic(file, kept.map((r) => JSON.stringify(r) + "\n").join(""));
  return dropped;
}
