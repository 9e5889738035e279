/**
 * The environment folders' light files (info.ts, world-info.ts), read from this directory when run
 * from source; in a bundle, scripts/env-folders.mjs replaces this module with static imports of the
 * same files (folders.ts says why). Only catalog.ts reads it.
 */
import type { FolderModules } from "./folders";
import { loadFolders } from "./load-folders";

export const LIGHT_FOLDERS: readonly FolderModules[] = loadFolders(__dirname, "light");
