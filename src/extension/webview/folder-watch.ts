/**
 * Calls back when any of a few files in a run folder changes (size or mtime): fs.watch for
 * promptness, plus a slow poll for file systems that do not report changes (network mounts, some
 * remote setups). A folder that does not exist yet (a job has just launched, or the pipeline lays
 * out an empty workspace) is watched from the first poll or check that finds it.
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { fileStamp } from "../../core/base/util/file-stamp";

/**
 * A burst of events is looked at once, this long after its first event. Not after its last: a
 * step writing every few tens of milliseconds would otherwise hold every callback back until the
 * job paused or ended.
 */
const COALESCE_MS = 150;
const POLL_MS = 2000;

export interface FolderWatch {
  /** Looks now, as the poll would: for a caller that knows a change is likely (a job moved on). */
  check(): void;
  dispose(): void;
}

export function watchRunFiles(
  dir: string,
  files: readonly string[],
  onChange: () => void,
  pollMs = POLL_MS,
): FolderWatch {
  const signature = () => files.map((f) => fileStamp(join(dir, f))).join("|");
  let last = signature();
  let pending: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let disposed = false;
  const check = () => {
    // A watch on a folder that was deleted reports nothing about one made in its place.
    if (watcher && !existsSync(dir)) stopWatching();
    startWatching();
    const now = signature();
    if (now === last) return;
    last = now;
    onChange();
  };
  const soon = () => {
    pending ??= setTimeout(() => {
      pending = undefined;
      check();
    }, COALESCE_MS);
  };
  function startWatching(): void {
    if (watcher || disposed) return;
    try {
      const w = watch(dir, soon);
      // The watch broke: stop, and let the next poll or check start again.
      w.on("error", stopWatching);
      watcher = w;
    } catch {
      // Not there yet: the poll looks again.
    }
  }
  function stopWatching(): void {
    watcher?.close();
    watcher = undefined;
  }
  startWatching();
  const poll = setInterval(check, pollMs);
  return {
    check,
    dispose() {
      disposed = true;
      stopWatching();
      clearInterval(poll);
      clearTimeout(pending);
    },
  };
}
