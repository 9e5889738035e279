/**
 * mmap for the search index's largest files, where it can be had: the addon src/native/file-map.cc,
 * built into dist/native/ by `npm run build` where a C++ compiler and this Node's headers are
 * (scripts/build-native.mjs). An index too large for the page cache's budget then reads its lists
 * in place (paged-file.ts, PagedFile.map): no read call, page lookup or copy per chunk, and the
 * pages are the OS's file cache, which the query process does not own. Everywhere else (no
 * addon, another Node version, Electron's extension host, not Linux) the files are read with
 * positional reads as before; AGENT_LAB_NO_FILE_MAP=1 asks for that too (benchmarks compare both).
 *
 * What a mapping cannot do that a read can: name a file cut short after the index was opened. A
 * read past its new end is refused in one line; a mapped page past it kills the process (SIGBUS).
 * `agent-lab index` never shortens a file in place (it builds a new folder and renames it over the
 * old one; the mapped files stay whole until the searcher lets them go), so this takes a file cut
 * by hand while a search process has it open.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { projectFile } from "../chat/package-files";
// Where the build writes the addon (scripts/build-native.mjs reads the same file).
import fileMap from "./file-map-addon.json";

/** The first `length` bytes of an open file as a private, writable mapping of it. */
export type FileMapper = (fd: number, length: number) => ArrayBuffer;

/** The environment variable that turns mapping off (any non-empty value). */
export const NO_FILE_MAP_ENV = "AGENT_LAB_NO_FILE_MAP";

let loaded: { mapper: FileMapper | undefined } | undefined;

/** The mapper, or undefined where there is none (see the file's header); looked for once per process. */
export function fileMapper(): FileMapper | undefined {
  if (process.env[NO_FILE_MAP_ENV]) return undefined;
  loaded ??= { mapper: loadMapper() };
  return loaded.mapper;
}

function loadMapper(): FileMapper | undefined {
  if (process.platform !== "linux" || process.versions.electron !== undefined) return undefined;
  let addon: string;
  try {
    addon = projectFile(fileMap.addon);
  } catch {
    return undefined; // not inside the project's folder (a copied bundle): no addon to find
  }
  if (!existsSync(addon)) return undefined;
  try {
    const { map } = createRequire(__filename)(addon) as { map?: unknown };
    return typeof map === "function" ? (map as FileMapper) : undefined;
  } catch {
    return undefined; // built for another Node version: positional reads
  }
}
