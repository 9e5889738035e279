import { statSync } from "node:fs";

/**
 * A file's size and mtime as one string, "" when it cannot be read (absent): what caches and
 * watchers compare to tell a file changed since they read it.
 */
export function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return "";
  }
}
