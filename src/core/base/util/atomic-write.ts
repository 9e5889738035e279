/**
 * The one "write a temporary file, then rename it over the target" in the project. A rename within
 * one folder is atomic on every filesystem we run on, so a reader (a panel polling summary.json, a
 * resumed run reading its manifest) sees either the old file or the new one, never half of one, and
 * a crash between the write and the rename leaves the old file untouched.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";

/** Per-process counter: worker threads share a pid, so the pid alone would not keep temp names apart. */
let sequence = 0;

/**
 * The temporary name sits beside the target (the same folder, so the same filesystem: rename never
 * degrades to a copy) and is unique per process and call, so two writers never share one temp file.
 */
export function atomicTempPath(file: string): string {
  return `${file}.${process.pid}.${++sequence}.tmp`;
}

/** Writes `data` exactly as given (default file mode, like writeFileSync) and renames it into place. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = atomicTempPath(file);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true }); // a failed write (disk full) leaves no stray temp file behind
    throw err;
  }
}

/** JSON plus a trailing newline (`indent` 0: one line, for large caches). */
export function writeJsonAtomic(file: string, value: unknown, indent = 2): void {
  writeFileAtomic(file, JSON.stringify(value, null, indent) + "\n");
}
