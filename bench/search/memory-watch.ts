/**
 * Runs a benchmark child under a memory cap: its resident set is polled from /proc and the child
 * is killed once it passes the cap, or once the whole machine has less than MACHINE_FLOOR left
 * (other jobs share it), so a build that does not fit (bm25s at millions of documents) is measured
 * up to the cap instead of pushing the swapless machine into out-of-memory kills of other
 * people's processes.
 */
import { spawn } from "node:child_process";
import { availableMemory, processMemory } from "./process-memory";

const MACHINE_FLOOR = 2 * 2 ** 30;

export interface WatchedRun {
  code: number | null;
  /** True when this watcher killed the child for passing the cap (or the machine running short). */
  overCap: boolean;
  /** Why it was killed: its own size or the machine's free memory. */
  stopReason?: string;
  /** Highest resident set seen (the kernel's high-water mark where /proc has it). */
  peakRss: number;
  seconds: number;
  stdout: string;
  /** The child's last stderr lines (its progress: which phase it had reached). */
  stderrTail: string[];
}

export function runWatched(
  cmd: string,
  args: string[],
  capBytes: number,
  onStderrLine?: (line: string) => void,
): Promise<WatchedRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let pending = "";
    const tail: string[] = [];
    let peakRss = 0;
    let overCap = false;
    let stopReason: string | undefined;
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      const lines = (pending + d).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        onStderrLine?.(line);
      }
    });
    const poll = setInterval(() => {
      if (child.pid === undefined) return;
      const m = processMemory(child.pid);
      peakRss = Math.max(peakRss, m.peakRss ?? 0, m.rss ?? 0);
      const left = availableMemory();
      if (overCap) return;
      if ((m.rss ?? 0) > capBytes) stopReason = "its resident set passed the cap";
      else if (left !== undefined && left < MACHINE_FLOOR) stopReason = "the machine had under 2 GiB available";
      if (stopReason) {
        overCap = true;
        child.kill("SIGKILL");
      }
    }, 200);
    child.on("error", (e) => {
      clearInterval(poll);
      reject(e);
    });
    child.on("close", (code) => {
      clearInterval(poll);
      if (pending) tail.push(pending);
      resolve({
        code,
        overCap,
        stopReason,
        peakRss,
        seconds: (performance.now() - started) / 1000,
        stdout,
        stderrTail: tail,
      });
    });
  });
}
