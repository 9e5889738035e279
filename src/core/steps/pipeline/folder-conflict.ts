/**
 * A folder that already holds a pipeline run with other settings (a smoke run where a full one is
 * asked for): the pipeline refuses to mix them, and this module names what the folder holds and
 * takes the old run away when the user chooses to replace it. The CLI's refusal and the editor's
 * "run in a new subfolder / replace it" choice read the same comparison.
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PIPELINE_ENVIRONMENTS } from "../../envs/catalog";
import { readJsonFile } from "../../base/runs/run-files";
import { PIPELINE_SIZES } from "../specs/common-flags";
import { PIPELINE_MARKER } from "./pipeline-folder";
import { STATE_FILE } from "./plan";
import { settingsFor, type PipelineBackend, type PipelineSettings, type PipelineSize } from "./settings";

/** The settings of the pipeline run `dir` holds, when they are not `settings` (a rerun there is refused). */
export function otherPipelineRun(dir: string, settings: PipelineSettings): PipelineSettings | undefined {
  const existing = readJsonFile<{ settings?: PipelineSettings }>(join(dir, STATE_FILE))?.settings;
  return existing !== undefined && JSON.stringify(existing) !== JSON.stringify(settings) ? existing : undefined;
}

/**
 * What `dir` holds that a local pipeline of `env` at `size` cannot continue, in words ("a smoke
 * pipeline run of ENV"), or undefined when it is free for that run (empty, or the same settings: a
 * rerun continues).
 */
export function pipelineFolderConflict(
  dir: string,
  backend: PipelineBackend,
  choice: { env: string; size: PipelineSize },
): string | undefined {
  const held = otherPipelineRun(dir, settingsFor(backend, choice));
  if (!held) return undefined;
  for (const env of PIPELINE_ENVIRONMENTS)
    for (const size of PIPELINE_SIZES) {
      let candidate: PipelineSettings;
      try {
        candidate = settingsFor(backend, { env, size });
      } catch {
        continue; // a size this backend does not run
      }
      if (JSON.stringify(candidate) === JSON.stringify(held)) return `a ${size} pipeline run of ${env}`;
    }
  return `a pipeline run with other settings (${held.backend} backend)`;
}

/**
 * What replacing the pipeline run in `dir` removes: every entry but hidden ones (an editor's .vscode,
 * .git), and the marker. The pipeline only starts in an empty folder or its own, so these are its
 * files and folders (data, runs, prompts, its world's files, the report) plus whatever was added
 * beside them since — the caller lists them to the user before anything is removed.
 */
export function pipelineRunEntries(dir: string): string[] {
  if (!existsSync(join(dir, PIPELINE_MARKER))) return [];
  const visible = readdirSync(dir).filter((name) => !name.startsWith("."));
  return [...visible.sort(), PIPELINE_MARKER];
}

/** Removes the pipeline run in `dir` (pipelineRunEntries), so a pipeline with other settings starts there afresh. */
export function removePipelineRun(dir: string): void {
  for (const name of pipelineRunEntries(dir)) rmSync(join(dir, name), { recursive: true, force: true });
}

/** `base`, or `base-2`, `base-3`…: the first name not taken in `dir`. */
export function freeSubfolder(dir: string, base: string): string {
  for (let i = 1; ; i++) {
    const name = i === 1 ? base : `${base}-${i}`;
    if (!existsSync(join(dir, name))) return name;
  }
}
