/**
 * The one "write a temporary file, then rename it over the target" in the project. A rename within
 * one folder is atomic on every filesystem we run on, so a reader (a panel polling summary.json, a
 * resumed run reading its manifest) sees either the old file or the new one, never half of one, and
 * a crash between the write and the rename leaves the old file untouched.
 */
import { linkSync, renameSync, rmSync, writeFileSync } from "node:fs";

/** Per-process counter: worker threads share a pid, so the pid alone would not keep temp names apart. */
let sequence = 0;

/**
 * The temporary name sits beside the target (the same folder, so the same filesystem: rename never
 * degrades to a copy) and is unique per process and call, so two writers never share one temp file.
 */
export function atomicTempPath(file: string): string {
  return `${file}.${process.pid}.${++sequence}.tmp`;
}

/**
 * Creates `file` holding `data` only if no such file exists (false when one does), whole or not at
 * all: the data goes to a temporary file that is then hard-linked to the name, and a link fails on
 * an existing name. A reader never sees the file created but still empty, as it can after a
 * writeFileSync with flag "wx". Other errors (a read-only folder) are thrown.
 */
export function createFileExclusive(file: string, data: string): boolean {
  const tmp = atomicTempPath(file);
  try {
    writeFileSync(tmp, data);
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
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
