/**
 * The environment a checkpoint was trained on, from its training run's manifest, so evaluating it
 * uses that environment rather than whatever the workspace defaults to now. A GRPO manifest names
 * it directly; an SFT manifest names its data's lineage manifest (the `sft-data` run), which does.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { manifestEnvironment, type EnvironmentId } from "./manifest-environment";
import { RUN_FILES } from "../base/runs/run-folder";
import type { CheckpointEntry } from "../base/checkpoints/registry";

/** The training run folder a registry entry's `run` names, as the Checkpoints view resolves it (its folder name under runsDir). */
export function checkpointRunDir(runsDir: string, run: string): string {
  return isAbsolute(run) ? run : join(runsDir, basename(run));
}

function readJson(file: string): Record<string, unknown> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const v: unknown = JSON.parse(readFileSync(file, "utf8"));
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    // A damaged manifest is for the run's own commands to report; here it only means "unknown".
    return undefined;
  }
}

/**
 * The environment of the run that made `entry`; undefined when no manifest says (the registry names no
 * training run, its folder is gone, or SFT data with no lineage manifest), and the caller falls back to its default.
 */
export function checkpointEnvironment(
  workspaceDir: string,
  runsDir: string,
  entry: Partial<Pick<CheckpointEntry, "run">>,
): EnvironmentId | undefined {
  if (!entry.run) return undefined;
  const manifest = readJson(join(checkpointRunDir(runsDir, entry.run), RUN_FILES.manifest));
  if (!manifest) return undefined;
  if (manifest.environment !== undefined || manifest.kind !== "sft") return manifestEnvironment(manifest);
  const data = manifest.data as { lineage_manifest?: unknown } | undefined;
  const lineage = typeof data?.lineage_manifest === "string" ? data.lineage_manifest : undefined;
  if (!lineage) return undefined;
  const source = readJson(isAbsolute(lineage) ? lineage : join(workspaceDir, lineage));
  return source ? manifestEnvironment(source) : undefined;
}
