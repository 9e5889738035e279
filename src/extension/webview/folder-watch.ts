/**
 * Calls back when any of a few files in a run folder changes (size or mtime), debounced: fs.watch
 * for promptness, plus a slow poll for file systems that do not report changes (network mounts,
 * some remote setups) and for a folder that does not exist yet when a job has just launched.
 */
import { watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { fileStamp } from "../../core/base/util/file-stamp";

const DEBOUNCE_MS = 150;
const POLL_MS = 2000;

export interface FolderWatch {
  /** Looks now, as the poll would: for a caller that knows a change is likely (a job moved on). */
  check(): void;
  dispose(): void;
}

export function watchRunFiles(dir: string, files: readonly string[], onChange: () => void): FolderWatch {
  const signature = () => files.map((f) => fileStamp(join(dir, f))).join("|");
  let last = signature();
  let debounce: NodeJS.Timeout | undefined;
  const check = () => {
    const now = signature();
    if (now === last) return;
    last = now;
    onChange();
  };
  const schedule = () => {
    clearTimeout(debounce);
    debounce = setTimeout(check, DEBOUNCE_MS);
  };
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dir, schedule);
    watcher.on("error", () => watcher?.close());
  } catch {
    // Folder not there yet: the poll notices it.
  }
  const poll = setInterval(check, POLL_MS);
  return {
    check,
    dispose() {
      watcher?.close();
      clearInterval(poll);
      clearTimeout(debounce);
    },
  };
}
