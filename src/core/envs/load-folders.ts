/**
 * Reads the environment folders from a directory at run time: what discovered-info.ts and
 * discovered-code.ts do when run from source. Never part of a bundle (scripts/env-folders.mjs
 * replaces both with static imports), so the browser bundles that read the catalog load no fs.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { FOLDER_FILES, MARKER_FILE, type FolderModules, type FolderPart } from "./folders";

/** The folders under `dir` that are environments, by name (the bundler's plugin sorts the same way). */
export function environmentFolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, MARKER_FILE)))
    .map((d) => d.name)
    .sort();
}

/** Loads `part`'s files of every environment folder under `dir` (source runs only: a bundle holds no folders). */
export function loadFolders(dir: string, part: FolderPart): FolderModules[] {
  const folders = environmentFolders(dir);
  if (folders.length === 0)
    throw new Error(
      `${dir}: no environment folder (a subfolder with ${MARKER_FILE}); a bundle must be built with scripts/env-folders.mjs's plugin`,
    );
  return folders.map((folder) => ({
    folder,
    modules: Object.fromEntries(
      FOLDER_FILES[part]
        .filter((f) => existsSync(join(dir, folder, `${f.file}.ts`)))
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        .map((f) => [f.file, require(join(dir, folder, `${f.file}.ts`)) as unknown]),
    ),
  }));
}
