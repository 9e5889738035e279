/**
 * The environment folders' code (environment.ts, world-env.ts, offline.ts, gen-tasks.ts, scripted.ts), read from
 * this directory when run from source; in a bundle, scripts/env-folders.mjs replaces this module with
 * static imports of the same files (folders.ts says why). Only registry.ts reads it.
 */
import type { FolderModules } from "./folders";
import { loadFolders } from "./load-folders";

export const CODE_FOLDERS: readonly FolderModules[] = loadFolders(__dirname, "code");
