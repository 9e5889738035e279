/**
 * What in a workspace still needs a checkpoint, so deleting it is refused (unless forced) and its
 * expiry is warned about: another registered checkpoint trained from it (its `parent`), or a run
 * folder (a training job, running or resumable, an experiment's arm) that starts from it (its
 * manifest's `init_state` or `parent`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { RUN_FILES } from "../runs/run-folder";
import type { CheckpointEntry } from "./registry";

/** How deep under the runs folder run folders are looked for (experiments nest their arms). */
const MAX_DEPTH = 3;

export interface Dependent {
  /** A registered checkpoint name, or a run folder relative to the runs folder's parent (e.g. "runs/grpo"). */
  who: string;
  /** Why, in words: "was trained from it", "starts from it (manifest.json init_state)". */
  why: string;
}

function manifestFiles(runsDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > MAX_DEPTH || !existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const sub = join(dir, entry.name);
      const manifest = join(sub, RUN_FILES.manifest);
      if (existsSync(manifest)) out.push(manifest);
      walk(sub, depth + 1);
    }
  };
  walk(runsDir, 1);
  return out.sort();
}

function readManifest(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    // A half-written or foreign manifest names no init; the views report unreadable runs elsewhere.
    return undefined;
  }
}

/**
 * Everything that needs `target` (a registered entry, or a bare tinker:// path), in a stable order.
 * `entries` is the registry; the entry's own training run (entry.run) is not counted: it made it.
 */
export function checkpointDependents(
  runsDir: string,
  entries: readonly CheckpointEntry[],
  target: { name?: string; paths: readonly string[]; run?: string },
): Dependent[] {
  const refs = new Set<string>([...target.paths, ...(target.name ? [target.name] : [])]);
  const out: Dependent[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    if (e.name === target.name || seen.has(e.name)) continue;
    if (e.parent !== null && e.parent !== undefined && refs.has(e.parent)) {
      seen.add(e.name);
      out.push({ who: e.name, why: "was trained from it" });
    }
  }
  const base = join(runsDir, "..");
  for (const file of manifestFiles(runsDir)) {
    const runFolder = relative(base, join(file, "..")).split("\\").join("/");
    if (target.run !== undefined && runFolder === target.run) continue;
    const manifest = readManifest(file);
    if (!manifest) continue;
    for (const field of ["init_state", "parent"] as const) {
      const value = manifest[field];
      if (typeof value === "string" && refs.has(value)) {
        out.push({ who: runFolder, why: `starts from it (${RUN_FILES.manifest} ${field})` });
        break;
      }
    }
  }
  return out;
}

/** "grpo-s10 (was trained from it), runs/grpo (starts from it …)" */
export function describeDependents(dependents: readonly Dependent[]): string {
  return dependents.map((d) => `${d.who} (${d.why})`).join(", ");
}
