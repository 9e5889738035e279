/**
 * The memory a process holds, from /proc/<pid>/status (Linux): the resident set, how much of it is
 * anonymous (the heap and buffers the process owns) and how much file-backed (pages of mapped files
 * the kernel can drop and read again), and the resident peak. Elsewhere every field is undefined.
 */
import { readFileSync } from "node:fs";

export interface ProcessMemory {
  rss?: number;
  rssAnon?: number;
  rssFile?: number;
  rssShmem?: number;
  peakRss?: number;
}

const FIELDS: Record<string, keyof ProcessMemory> = {
  VmRSS: "rss",
  RssAnon: "rssAnon",
  RssFile: "rssFile",
  RssShmem: "rssShmem",
  VmHWM: "peakRss",
};

export function processMemory(pid: number | "self" = "self"): ProcessMemory {
  const out: ProcessMemory = {};
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return out; // no /proc (not Linux) or the process is gone: nothing to report
  }
  for (const line of status.split("\n")) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    const key = m ? FIELDS[m[1]] : undefined;
    if (m && key) out[key] = Number(m[2]) * 1024;
  }
  return out;
}

/** The memory the kernel could still give out without swapping (MemAvailable), or undefined off Linux. */
export function availableMemory(): number | undefined {
  try {
    const m = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined; // no /proc/meminfo: not Linux
  }
}
