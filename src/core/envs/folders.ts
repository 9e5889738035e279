/**
 * An environment is a folder under src/core/envs/ that holds an info.ts; adding one is adding a
 * folder (README "Add your own environment"). Which files a folder may hold and what each exports
 * is folder-convention.json, read here and by the bundler's plugin (scripts/env-folders.mjs), so the
 * sources and the bundles find the same folders with the same files:
 *  - light (the catalog; the extension loads these at activation): info.ts → INFO, world-info.ts → WORLD_INFO;
 *  - code (the registry): environment.ts → ENVIRONMENT, world-env.ts → WORLD_ENVIRONMENT,
 *    offline.ts → OFFLINE_WORLD, gen-tasks.ts → GEN_TASKS, scripted.ts → SCRIPTED_READER, failures.ts → FAILURE_LABELS.
 * Decision: run from source (tests, `npx tsx`), the folders are read from this directory at run
 * time (discovered-info.ts, discovered-code.ts, through load-folders.ts); a bundle cannot read its
 * sources, so the plugin replaces those two modules' bodies with static imports of the folders it
 * finds at build time (a test runs the bundled CLI against the in-process list). Order is not the
 * folders' names: each info's `order` decides it (catalog.ts), the same code in both.
 */
import convention from "./folder-convention.json";

export type FolderPart = "light" | "code";

/** One environment folder's modules of one part, by file name (without .ts). */
export interface FolderModules {
  folder: string;
  modules: Readonly<Record<string, unknown>>;
}

interface ConventionFile {
  file: string;
  export: string;
  required: boolean;
}

export const FOLDER_FILES: Record<FolderPart, readonly ConventionFile[]> = convention;

/** The file every environment folder holds (a folder without it is not an environment). */
export const MARKER_FILE = `${convention.light.find((f) => f.required)!.file}.ts`;

/**
 * The value a folder's file exports under the convention's name: undefined when the optional file
 * is absent; a missing required file or export is a programming error naming the file.
 */
export function folderExport<T>(f: FolderModules, part: FolderPart, file: string): T | undefined {
  const spec = FOLDER_FILES[part].find((c) => c.file === file);
  if (!spec) throw new Error(`envs/folder-convention.json has no ${part} file ${file}`);
  const mod = f.modules[file] as Record<string, unknown> | undefined;
  if (mod === undefined) {
    if (spec.required) throw new Error(`envs/${f.folder}/${file}.ts is missing: every environment folder has one`);
    return undefined;
  }
  if (!(spec.export in mod)) throw new Error(`envs/${f.folder}/${file}.ts must export ${spec.export}`);
  return mod[spec.export] as T;
}
