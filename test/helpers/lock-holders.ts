/** Lock files as a taker meets them (run-folder.ts's LockHolder), for the lock tests of every module that takes one. */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** A pid that was alive a moment ago and is gone now. */
export function deadPid(): number {
  return Number(spawnSync(process.execPath, ["-e", "console.log(process.pid)"]).stdout.toString().trim());
}

/** A lock's text naming `pid` as its holder since `since` (now by default). */
export function lockText(pid: number, since = new Date().toISOString()): string {
  return JSON.stringify({ pid, process_started: 0, what: "another build", since }) + "\n";
}

/** The pid a lock file names. */
export function holderPid(file: string): number {
  return (JSON.parse(readFileSync(file, "utf8")) as { pid: number }).pid;
}
