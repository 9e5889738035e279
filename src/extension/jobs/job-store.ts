/**
 * Jobs on disk, so a job outlives the window that started it. Each job leaves, in the workspace's
 * `.agent-lab/jobs/` (hidden, and outside runs/: job records are not runs, and a pipeline may claim
 * an otherwise empty folder that the job itself was started in):
 *   <id>.json       the record (pid, command, run folder, log file, started; cancel_requested)
 *   <id>.log        the job's stdout and stderr
 *   <id>.exit.json  written by the job's wrapper process when the CLI exits (code, signal, ended)
 * A reloaded window lists the records, and derives each state from the exit file or, while there is
 * none, from whether the pid is alive. Nothing here imports `vscode`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { initialStatus, transition, type JobStatus } from "./job-state";
import { writeJsonAtomic } from "../../core/base/util/atomic-write";

/** Under the workspace folder. */
export const JOBS_DIR = join(".agent-lab", "jobs");
export const JOB_RECORD_FORMAT = 1;

export interface JobRecord {
  format: number;
  id: string;
  /** What the user sees: "Evaluate val (base)". */
  title: string;
  /** CLI arguments after `agent-lab` (never a key: keys travel in the environment only). */
  command: string[];
  /** The wrapper's pid: signals sent to it reach the CLI. */
  pid: number;
  started: string;
  log: string;
  /** The run folder the job writes, when it has one (progress and spend are read from it). */
  run_dir?: string;
  /** Whether the job bills Tinker (for the status bar and the finish notification). */
  spends_money?: boolean;
  estimate_usd?: number;
  cancel_requested?: boolean;
  /** A runs folder the job writes runs into (a pipeline): its runs with running progress are live. */
  runs_root?: string;
  /** The action the "finished" notification offers (a command, given the run folder). */
  finish?: JobFinishAction;
}

export interface JobFinishAction {
  /** The button: "Open Results". */
  title: string;
  /** The command it runs, with the run folder as its argument. */
  command: string;
}

export interface ExitRecord {
  code: number | null;
  signal: string | null;
  ended: string;
}

export function jobsDir(root: string): string {
  return join(root, JOBS_DIR);
}

export function recordPath(root: string, id: string): string {
  return join(jobsDir(root), `${id}.json`);
}

export function exitPath(root: string, id: string): string {
  return join(jobsDir(root), `${id}.exit.json`);
}

export function logPath(root: string, id: string): string {
  return join(jobsDir(root), `${id}.log`);
}

/** A sortable, file-safe id: time first so listings come out in start order. */
export function newJobId(kind: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
  const slug =
    kind
      .replace(/[^a-z0-9-]+/gi, "-")
      .toLowerCase()
      .slice(0, 24) || "job";
  return `${stamp}-${slug}-${Math.random().toString(36).slice(2, 6)}`;
}

export function writeJobRecord(root: string, record: JobRecord): void {
  mkdirSync(jobsDir(root), { recursive: true });
  writeJsonAtomic(recordPath(root, record.id), record);
}

function readJsonOrUndefined<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined; // absent, or torn by a crash mid-write: treated as not there
  }
}

export function readExitRecord(root: string, id: string): ExitRecord | undefined {
  return readJsonOrUndefined<ExitRecord>(exitPath(root, id));
}

/** Every readable job record, oldest first; unreadable ones are skipped (and reported). */
export function listJobRecords(root: string): { records: JobRecord[]; unreadable: string[] } {
  const dir = jobsDir(root);
  if (!existsSync(dir)) return { records: [], unreadable: [] };
  const records: JobRecord[] = [];
  const unreadable: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".json") || name.endsWith(".exit.json")) continue;
    const rec = readJsonOrUndefined<JobRecord>(join(dir, name));
    if (rec && typeof rec.id === "string" && Number.isInteger(rec.pid) && Array.isArray(rec.command)) records.push(rec);
    else unreadable.push(name);
  }
  return { records, unreadable };
}

/** Whether a process with this pid exists (EPERM: it exists but is someone else's). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A process's command line (NUL-separated) from /proc; undefined where there is no /proc. */
export function procCmdline(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Whether the job's wrapper process still runs. Where /proc exists (Linux, remotes, Codespaces) its
 * command line must name the job (the exit file path holds the id), so a pid reused by another
 * process after a reboot is neither mistaken for the job nor sent a signal; elsewhere the pid decides.
 */
export function jobProcessAlive(
  id: string,
  pid: number,
  readCmdline: (pid: number) => string | undefined = procCmdline,
): boolean {
  if (!pidAlive(pid)) return false;
  const cmdline = readCmdline(pid);
  return cmdline === undefined || cmdline.includes(id);
}

/**
 * A job's state from its files: the exit record decides; without one a live pid is running and a
 * dead one is lost (the wrapper was killed before it could write, e.g. `kill -9` or a reboot).
 */
export function statusFromDisk(
  root: string,
  record: JobRecord,
  isAlive: (pid: number) => boolean = (pid) => jobProcessAlive(record.id, pid),
): JobStatus {
  let status = transition(initialStatus(), { type: "spawned", pid: record.pid });
  if (record.cancel_requested) status = transition(status, { type: "cancel-requested" });
  const exit = readExitRecord(root, record.id);
  if (exit) return transition(status, { type: "exited", code: exit.code, signal: exit.signal });
  if (isAlive(record.pid)) return status;
  return transition(status, { type: "lost" });
}

/** Removes a finished job's files (record, exit record, log). */
export function deleteJobFiles(root: string, id: string): void {
  for (const file of [recordPath(root, id), exitPath(root, id), logPath(root, id)]) {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  }
}

/** Keeps the newest `keep` finished jobs' files; running jobs are never touched. */
export function pruneFinishedJobs(root: string, keep: number, isAlive?: (pid: number) => boolean): string[] {
  const finished = listJobRecords(root).records.filter((r) => statusFromDisk(root, r, isAlive).state !== "running");
  const drop = finished.slice(0, Math.max(0, finished.length - keep));
  for (const r of drop) deleteJobFiles(root, r.id);
  return drop.map((r) => r.id);
}
