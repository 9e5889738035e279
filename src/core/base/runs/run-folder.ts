/**
 * The one run-folder API: every file name a run holds, the run-name rule, and opening a run for
 * writing — a new one (refused when the folder already holds a run) or a resumed one (refused when
 * there is none, or when the settings that decide its numbers changed, naming the fields) — under
 * a lock that admits one writer at a time.
 *
 * The lock (`.lock`) records the writer's pid, its start time and what it is (an extension job or
 * a terminal command). A second writer is refused naming the holder; a lock whose process is gone
 * (crashed, kill -9) is taken over safely: takers take turns removing it (removeStale).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { UserError } from "../errors";
import { createFileExclusive, writeJsonAtomic } from "../util/atomic-write";

/** Every file a run folder may hold. Nothing else writes these names as literals. */
export const RUN_FILES = Object.freeze({
  manifest: "manifest.json",
  summary: "summary.json",
  episodes: "episodes.jsonl",
  metrics: "metrics.jsonl",
  checkpoints: "checkpoints.jsonl",
  /** Not in a run folder: `<runsDir>/checkpoints.jsonl`, the registry of every run's checkpoints (base/checkpoints). */
  registry: "checkpoints.jsonl",
  groups: "groups.jsonl",
  ledger: "ledger.jsonl",
  progress: "progress.json",
  sft: "sft.jsonl",
  attempts: "attempts.jsonl",
  lock: ".lock",
  /** The trace viewer's cache of the run's decoded text: search index, gold-in-results, drift counts (run-text-cache.ts). */
  textIndex: ".text-index.json",
  /** Compare's cache of the run: the episode fields ablate reads and its resampled results (steps/ablate/compare-cache.ts). */
  compareCache: ".compare-cache.json",
  /**
   * The system prompt's text as the run sent it (an eval writes it; its sha256 is the manifest's
   * system_prompt.sha256), so a diff of two runs' prompts reads it after the prompt file is edited.
   */
  systemPrompt: "system-prompt.md",
  /**
   * An experiment's run: the hash of the spec it ran under (`{ experiment, spec_sha256 }`), kept out of
   * the manifest so it is no part of the run's fingerprint or evaluator (experiments/spec-binding.ts).
   */
  experimentSpec: "experiment-spec.json",
});

/** Files whose presence makes a folder a run (what the views list and `new` refuses to overwrite). */
export const RUN_MARKERS: readonly string[] = [
  RUN_FILES.manifest,
  RUN_FILES.episodes,
  RUN_FILES.summary,
  RUN_FILES.metrics,
  RUN_FILES.sft,
  RUN_FILES.attempts,
  RUN_FILES.checkpoints,
];

/** The run-name rule lives in run-name.ts (the step specs' --name flags use it too). */
export { checkRunName, RUN_NAME_MAX_LENGTH } from "./run-name";

export function runFile(runDir: string, file: keyof typeof RUN_FILES): string {
  return join(runDir, RUN_FILES[file]);
}

export function isRunFolder(dir: string): boolean {
  return RUN_MARKERS.some((f) => existsSync(join(dir, f)));
}

// ---------------------------------------------------------------------------------------------
// No command writes over a run's own files

/** What makes a folder a run for the write rule: a runs folder holds the checkpoint registry, which alone is not a run. */
const OWNING_MARKERS = RUN_MARKERS.filter((f) => f !== RUN_FILES.registry);

export interface OutputPathOptions {
  /** The flag the path came from, as the refusal names it ("--out"). */
  flag: string;
  /**
   * Whether `path` is the command's own run folder: `true` whatever it holds (the command's
   * openRunForWriting decides whether it may be resumed), or a manifest `kind` ("gen-tasks") an
   * existing run there must have. Absent: `path` is no run of the command's own.
   */
  own?: true | string;
}

/**
 * Refuses an output path inside a run folder the command does not own, or one that is such a run
 * folder: `export-chat --out runs/R/episodes.jsonl` would replace the run's episodes. Checked before
 * anything is written; every command that takes an output path calls it.
 */
export function refuseWriteIntoRun(path: string, o: OutputPathOptions): void {
  const target = resolve(path);
  const shown = (dir: string) => (isAbsolute(path) ? dir : relative(process.cwd(), dir) || ".");
  for (let dir = target; ; dir = dirname(dir)) {
    const owned = dir === target && (o.own === true || (o.own !== undefined && manifestKind(dir) === o.own));
    if (!owned && OWNING_MARKERS.some((f) => existsSync(join(dir, f)))) {
      const where = dir === target ? "is the run folder" : "is inside the run folder";
      throw new UserError(
        `${o.flag} ${path} ${where} ${shown(dir)}: give a path outside any run folder (no command writes over a run's own files)`,
      );
    }
    if (dirname(dir) === dir) return;
  }
}

function manifestKind(runDir: string): unknown {
  try {
    return (JSON.parse(readFileSync(runFile(runDir, "manifest"), "utf8")) as { kind?: unknown }).kind;
  } catch {
    return undefined; // no manifest or an unreadable one: not a run of the command's kind
  }
}

// ---------------------------------------------------------------------------------------------
// One writer per run folder

export interface LockHolder {
  pid: number;
  /** When the holding process started (ms since epoch), to tell a live holder from a reused pid. */
  process_started: number;
  /** "agent-lab eval --name base" or "extension job 3f2a…". */
  what: string;
  since: string;
}

/** The extension sets this on its jobs, so a refusal can say "held by the extension's job …". */
export const JOB_ENV = "AGENT_LAB_JOB";

const processStarted = Date.now() - Math.round(process.uptime() * 1000);

function alive(holder: LockHolder): boolean {
  if (holder.pid === process.pid) return holder.process_started === processStarted;
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    // EPERM: the pid exists under another user, so it is alive; ESRCH: gone.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  // A pid can be reused after a crash: a process that started after the lock was taken is not its holder.
  const started = linuxProcessStart(holder.pid);
  return started === undefined || started <= Date.parse(holder.since) + 1000;
}

/** Start time (ms since epoch) of a process from /proc on Linux; undefined elsewhere. */
function linuxProcessStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[19]);
    const bootLine = readFileSync("/proc/stat", "utf8")
      .split("\n")
      .find((l) => l.startsWith("btime "));
    if (!bootLine || !Number.isFinite(ticks)) return undefined;
    return Number(bootLine.slice(6)) * 1000 + (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined; // not Linux, or /proc hidden: fall back to "the pid is alive"
  }
}

function readHolder(file: string): LockHolder | undefined {
  const text = readText(file);
  return text === undefined ? undefined : parseHolder(text);
}

/** Who is writing the run folder now (its lock's live holder), or undefined when nobody is. */
export function runWriter(runDir: string): LockHolder | undefined {
  const holder = readHolder(runFile(runDir, "lock"));
  return holder && alive(holder) ? holder : undefined;
}

export function describeHolder(h: LockHolder): string {
  return `${h.what} (pid ${h.pid}, since ${h.since})`;
}

export interface RunLock {
  release(): void;
}

/** The locks this process holds (file → its taking's `since`), released when it exits. */
const held = new Map<string, string>();
process.on("exit", releaseHeldLocks);

/**
 * Takes the run folder's writer lock, or refuses naming who holds it. Released by `release()` or
 * when this process exits; a crashed holder's lock is taken over.
 */
export function lockRunFolder(runDir: string, what: string): RunLock {
  mkdirSync(runDir, { recursive: true });
  return takeFileLock(runFile(runDir, "lock"), what, {
    held: (holder) =>
      new UserError(
        `${runDir} is being written by ${describeHolder(holder)}: wait for it to finish or stop it first (one writer per run folder)`,
      ),
    noTurn: (file) =>
      new UserError(
        `${runDir}: could not take the writer lock (${file}) after several tries; is another job starting on this run?`,
      ),
  });
}

/** The one-line refusals of a lock's taker. */
export interface LockRefusals {
  /** A live process holds the lock. */
  held: (holder: LockHolder) => UserError;
  /** Other takers kept the turn through every attempt. */
  noTurn: (file: string) => UserError;
}

/**
 * Takes `file` as this process's exclusive lock (a LockHolder, created exclusively), or throws
 * `refuse.held` while a live process holds it. A lock whose holder is gone (or garbage) is taken
 * over, by one taker only however many race for it (removeStale). Released by `release()` or when
 * this process exits. The run folders' writer lock and the index build's lock are both this.
 */
export function takeFileLock(file: string, what: string, refuse: LockRefusals): RunLock {
  const me: LockHolder = {
    pid: process.pid,
    process_started: processStarted,
    what: process.env[JOB_ENV] ? `the extension's job ${process.env[JOB_ENV]} (${what})` : what,
    since: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    if (createFileExclusive(file, JSON.stringify(me) + "\n")) {
      held.set(file, me.since);
      // Once per taking: a second release of a spent handle must not remove a newer lock of this
      // process taken within the same millisecond (the same `since`, so the file cannot tell them apart).
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          releaseLock(file, me.since);
        },
      };
    }
    const text = readText(file);
    if (text === undefined) continue; // released between our create and our read: create again
    const holder = parseHolder(text);
    if (holder && alive(holder)) throw refuse.held(holder);
    removeStale(file, text);
  }
  throw refuse.noTurn(file);
}

/** Tries to take a lock before giving up; with the waits for another taker, about LOCK_ATTEMPTS × 10 ms. */
const LOCK_ATTEMPTS = 100;

/** A takeover mark older than this was left by a taker that crashed inside its few microseconds. */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes the stale lock `file` if it still holds `staleText`. Takers of a stale lock take turns
 * through a takeover mark (`.lock.takeover`, created exclusively): only its holder removes the lock,
 * and only after reading it again, so a fresh lock another taker wrote after our read is never
 * removed (a lock exists until removed, and nothing but the takeover removes someone else's).
 * Without the turns, the two steps "read: stale" and "remove" of one taker could straddle another
 * taker's whole takeover, and both would win.
 */
function removeStale(file: string, staleText: string): void {
  const mark = `${file}.takeover`;
  if (!createFileExclusive(mark, `${process.pid}\n`)) {
    // Another taker's turn: wait for it, unless its mark is from a crash.
    if (ageMs(mark) > TAKEOVER_STALE_MS) rmSync(mark, { force: true });
    else sleepMs(10);
    return;
  }
  try {
    if (readText(file) === staleText) rmSync(file, { force: true });
  } finally {
    rmSync(mark, { force: true });
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** The holder a lock file names; undefined for garbage (no lock is ever seen half-written: createFileExclusive): stale. */
function parseHolder(text: string): LockHolder | undefined {
  let holder: Partial<LockHolder> | null;
  try {
    holder = JSON.parse(text) as Partial<LockHolder> | null;
  } catch {
    return undefined;
  }
  // A pid of 0 or below would ask about a process group or every process: no holder names one.
  const named = typeof holder === "object" && holder !== null && Number.isInteger(holder.pid) && holder.pid! > 0;
  return named ? (holder as LockHolder) : undefined;
}

function ageMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0; // gone: the taker finished
  }
}

/** A synchronous pause: the lock is taken synchronously, and the wait is a few milliseconds. */
function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Removes `file` if it is still this taking's lock (this pid and this `since`): a lock someone else wrote since stays. */
function releaseLock(file: string, since: string): void {
  // A newer taking of the same file (ours, after the old lock vanished) keeps its entry.
  if (held.get(file) === since) held.delete(file);
  const holder = readHolder(file);
  if (holder && holder.pid === process.pid && holder.since === since) rmSync(file, { force: true });
}

/** Releases every lock this process still holds: what it does when it exits (exported for its test). */
export function releaseHeldLocks(): void {
  for (const [file, since] of [...held]) releaseLock(file, since);
}

// ---------------------------------------------------------------------------------------------
// Opening a run for writing

export interface FieldChange {
  field: string;
  was: unknown;
  now: unknown;
}

export interface OpenRunOptions<M> {
  runDir: string;
  resume: boolean;
  /** What is writing, for the lock ("agent-lab eval --name base"). */
  what: string;
  /** A new run's manifest, written at once (absent: the step writes its own right after). */
  create?: M;
  /** On resume: the settings that decide the run's numbers and differ from the stored manifest's. */
  changes: (stored: M) => FieldChange[];
  /** On resume: the manifest to store (e.g. the old one with a "resumed" entry); default: keep it. */
  onResume?: (stored: M) => M;
}

export interface OpenRun<M> extends RunLock {
  /** The manifest as stored before this resume, or undefined for a new run. */
  stored: M | undefined;
}

/** Opens a run folder for writing: new (refuses an existing run) or resumed (refuses none or a changed one). */
export function openRunForWriting<M>(o: OpenRunOptions<M>): OpenRun<M> {
  const manifestFile = runFile(o.runDir, "manifest");
  if (!o.resume && isRunFolder(o.runDir)) {
    throw new UserError(`${o.runDir} already holds a run: pass --resume to continue it, or choose another --name`);
  }
  if (o.resume && !existsSync(manifestFile)) {
    throw new UserError(
      `nothing to resume: ${o.runDir} holds no run (no ${RUN_FILES.manifest}); run the same command without --resume to start it`,
    );
  }
  const lock = lockRunFolder(o.runDir, o.what);
  try {
    if (!o.resume) {
      if (o.create !== undefined) writeJsonAtomic(manifestFile, o.create);
      return { ...lock, stored: undefined };
    }
    const stored = readManifestFile<M>(manifestFile);
    const changes = o.changes(stored);
    if (changes.length > 0) {
      const what = changes
        .map((c) => `${c.field}: ${JSON.stringify(c.was) ?? "(absent)"} → ${JSON.stringify(c.now) ?? "(absent)"}`)
        .join("; ");
      throw new UserError(
        `cannot resume ${o.runDir}: its fingerprint differs in ${changes.length} field(s): ${what}. Resume with the settings it was started with, or start a new run with another --name.`,
      );
    }
    if (o.onResume) writeJsonAtomic(manifestFile, o.onResume(stored));
    return { ...lock, stored };
  } catch (e) {
    lock.release();
    throw e;
  }
}

function readManifestFile<M>(file: string): M {
  const text = readFileSync(file, "utf8");
  try {
    return JSON.parse(text) as M;
  } catch (e) {
    throw new UserError(
      `${file}: not valid JSON (${(e as Error).message}); the run's manifest is damaged — restore it or start a new run with another --name`,
    );
  }
}

/**
 * Every leaf field that differs between two settings objects (nested objects become dotted paths;
 * arrays and primitives are leaves; missing counts as different), skipping top-level `skip` keys.
 */
export function changedFields(was: object, now: object, skip: readonly string[] = []): FieldChange[] {
  const fa = flatten(was as Record<string, unknown>);
  const fb = flatten(now as Record<string, unknown>);
  const out: FieldChange[] = [];
  for (const field of [...new Set([...fa.keys(), ...fb.keys()])].sort()) {
    if (skip.includes(field.split(".")[0])) continue;
    const a = fa.get(field);
    const b = fb.get(field);
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ field, was: a, now: b });
  }
  return out;
}

function flatten(value: Record<string, unknown>, prefix = "", out = new Map<string, unknown>()): Map<string, unknown> {
  for (const [key, v] of Object.entries(value ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (v !== null && typeof v === "object" && !Array.isArray(v)) flatten(v as Record<string, unknown>, path, out);
    else if (v !== undefined) out.set(path, v);
  }
  return out;
}
