/**
 * What a running job has done so far, read from the files it writes (so it works the same for a job
 * this window started and one it re-attached to after a reload): progress from the run folder's
 * progress.json (src/core/base/runs/progress.ts), and the log, streamed into the output channel.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { describeProgress, formatDuration, readProgress, type Progress } from "../../core/base/runs/progress";

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
    return buf
      .toString("utf8")
      .split(/\r?\n|\r/)
      .map((l) => l.trim())
      .filter(Boolean);
  } finally {
    closeSync(fd);
  }
}

/** The last non-blank line of a file, reading only its end. */
export function lastLine(file: string, tailBytes = 8192): string | undefined {
  return lastLines(file, tailBytes).at(-1);
}

/**
 * A job's progress: its run folder's progress.json, as the step itself wrote it (core's one
 * reader). Undefined for a job with no run folder, or before this job's first write: a file last
 * written before the job started is an earlier run's (a resume, a rerun) and is not shown.
 * Nothing here reads progress from the log: its last line is only ever shown, as a detail.
 */
export function jobProgress(runDir: string | undefined, jobStarted: string): Progress | undefined {
  const p = runDir ? readProgress(runDir) : undefined;
  if (!p) return undefined;
  const written = Date.parse(p.updated);
  const started = Date.parse(jobStarted);
  return Number.isFinite(written) && Number.isFinite(started) && written < started ? undefined : p;
}

/**
 * The one line a job shows (Jobs view, notification, status bar): core's describeProgress, or how
 * long it has run when the step writes no progress (prepare, index, search, serve-local).
 */
export function describeJob(progress: Progress | undefined, elapsedMs: number): string {
  return progress ? describeProgress(progress) : formatElapsed(elapsedMs);
}

/** "3m 05s": how long a job has run (core's duration format). */
export function formatElapsed(ms: number): string {
  return formatDuration(Math.floor(ms / 1000));
}

/** Hides a secret wherever it would be shown (a defence in depth: jobs are not meant to print it). */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join("[redacted]");
  return out;
}
