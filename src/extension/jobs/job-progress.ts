/**
 * What a running job has done so far, read from the files it writes (so it works the same for a job
 * this window started and one it re-attached to after a reload): the run folder's summary.json
 * (episodes done / planned, spend), its ledger.jsonl (spend of training jobs), and the log's tail.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";

export interface JobProgress {
  /** Episodes (or steps) done and planned, when the job says. */
  done?: number;
  planned?: number;
  /** USD spent so far, when the run folder says. */
  usd?: number;
  /** The log's last non-blank line. */
  lastLine?: string;
}

/** Reads up to `maxBytes` from `offset` of a file; returns the text and the new offset. */
export function readFrom(file: string, offset: number, maxBytes = 256 * 1024): { text: string; offset: number } {
  if (!existsSync(file)) return { text: "", offset };
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < offset) offset = 0; // truncated or replaced: start over
    const n = Math.min(maxBytes, size - offset);
    if (n <= 0) return { text: "", offset };
    const buf = Buffer.alloc(n);
    readSync(fd, buf, 0, n, offset);
    // Mid-file, stop after the last newline (or, for one very long line, before a partial UTF-8
    // character) so a multi-byte character is never cut in two.
    const cut = n === size - offset ? n : buf.lastIndexOf(0x0a) + 1 || utf8Boundary(buf, n);
    return { text: buf.subarray(0, cut).toString("utf8"), offset: offset + cut };
  } finally {
    closeSync(fd);
  }
}

/** The largest length ≤ n that does not end inside a multi-byte UTF-8 character. */
function utf8Boundary(buf: Buffer, n: number): number {
  let i = n;
  // Step back over continuation bytes (10xxxxxx) to the lead byte, and cut before it.
  while (i > 0 && (buf[i - 1] & 0xc0) === 0x80) i--;
  if (i > 0 && buf[i - 1] >= 0xc0) {
    const lead = buf[i - 1];
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (n - (i - 1) < length) return i - 1;
  }
  return n;
}

/** The last non-blank lines of a file (oldest first), reading only its end. */
export function lastLines(file: string, tailBytes = 8192): string[] {
  if (!existsSync(file)) return [];
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - tailBytes);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    return buf.toString("utf8").split(/\r?\n|\r/).map((l) => l.trim()).filter(Boolean);
  } finally {
    closeSync(fd);
  }
}

/** The last non-blank line of a file, reading only its end. */
export function lastLine(file: string, tailBytes = 8192): string | undefined {
  return lastLines(file, tailBytes).at(-1);
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // absent or being rewritten
  }
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * "12/100 …" or "step 3/30 …" at the start of a log line: the CLI's own progress lines (eval prints
 * one every tenth of a run; summary.json is only rewritten at the start and the end).
 */
export function progressFromLine(line: string | undefined): { done: number; planned: number } | undefined {
  const m = /^(?:step\s+)?(\d+)\s*\/\s*(\d+)\b/i.exec(line ?? "");
  if (!m) return undefined;
  const done = Number(m[1]);
  const planned = Number(m[2]);
  return planned > 0 && done <= planned ? { done, planned } : undefined;
}

/** Progress of a job from its run folder and its log. */
export function readProgress(runDir: string | undefined, log: string): JobProgress {
  const progress: JobProgress = { lastLine: lastLine(log) };
  const fromLog = progressFromLine(progress.lastLine);
  if (runDir) {
    const summary = readJson(join(runDir, "summary.json"));
    if (summary) {
      progress.done = num(summary.n);
      progress.planned = num(summary.planned);
      progress.usd = num(summary.usd_total);
    }
    // The newest complete ledger line: the very last one may be torn while the job appends.
    for (const line of lastLines(join(runDir, "ledger.jsonl")).reverse()) {
      try {
        const usd = num((JSON.parse(line) as Record<string, unknown>).cumulative_usd);
        if (usd !== undefined) progress.usd = Math.max(progress.usd ?? 0, usd);
        break;
      } catch {
        continue;
      }
    }
  }
  if (fromLog && (progress.done === undefined || fromLog.done > progress.done)) {
    progress.done = fromLog.done;
    progress.planned = fromLog.planned;
  }
  return progress;
}

/** "12/100 · $0.04 · 3m 05s" */
export function describeProgress(p: JobProgress, elapsedMs: number): string {
  const parts: string[] = [];
  if (p.done !== undefined) parts.push(p.planned ? `${p.done}/${p.planned}` : `${p.done} done`);
  if (p.usd !== undefined && p.usd > 0) parts.push(`$${p.usd.toFixed(p.usd < 1 ? 3 : 2)}`);
  parts.push(formatElapsed(elapsedMs));
  return parts.join(" · ");
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}

/** Hides a secret wherever it would be shown (a defence in depth: jobs are not meant to print it). */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join("[redacted]");
  return out;
}
