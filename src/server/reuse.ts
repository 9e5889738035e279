/**
 * Start-or-reuse for commands like `agent-lab eval --backend local`: if a local backend serving
 * this backend folder already listens on the port (e.g. `agent-lab serve-local` in another terminal,
 * or another job), use it; otherwise start one in this process, on a free port when another folder's
 * backend (another workspace's, whose store and stop are not this job's) holds this one. Several
 * jobs starting at once in one workspace take turns through a lock file in the backend's folder
 * (created with O_EXCL, holding the holder's pid), so exactly one starts the server and the others
 * reuse it: no port race, no EADDRINUSE.
 *
 * The process that started the server keeps it up while other jobs still use it. Each job that
 * reuses it holds a lease (a file in the backend folder's clients/, named by its pid) from before
 * it decides to reuse until its close(); the starter's close() waits until no live lease is left,
 * then (holding the start lock, so no job can decide to reuse a server that is about to stop)
 * waits until no request has been in flight for a moment and stops the server. A job that finds
 * the lock held by a closing starter waits for it and then starts a backend of its own.
 */
import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/base/errors";
import type { LocalBackendHandle } from "../core/base/tinker/local-backend";
import { localStoreId } from "./checkpoint-store";
import { startLocalBackend, type LocalBackendOptions, type RunningLocalBackend } from "./http-server";

export type { LocalBackendHandle };

/** The lock file that serialises starts (and the starter's stop) in one backend folder. */
export const START_LOCK = "start.lock";
/** The folder of leases: one file per job using a backend it did not start, named `<pid>-<id>`. */
export const CLIENT_LEASES = "clients";
/** A lock older than this is stale even if its pid is alive (pids are reused); a start takes well under it. */
const STALE_LOCK_MS = 60_000;
const START_WAIT_MS = 60_000;

/**
 * The local backend answering at this URL: which backend folder it serves (its localStoreId; ""
 * from a backend too old to say), or undefined when no local backend (nothing, or some other
 * server) answers there.
 */
export async function localBackendAt(url: string, timeoutMs = 2_000): Promise<{ storeId: string } | undefined> {
  try {
    const res = await fetch(`${url}/api/v1/get_server_capabilities`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { local_stand_in?: unknown; local_store_id?: unknown };
    if (body.local_stand_in !== true) return undefined;
    return { storeId: typeof body.local_store_id === "string" ? body.local_store_id : "" };
  } catch {
    // Refused, timed out, or not JSON: whatever it is, it is not a local backend we can use.
    return undefined;
  }
}

/** True when a local backend (not some other server) answers at this URL. */
export async function isLocalBackend(url: string, timeoutMs = 2_000): Promise<boolean> {
  return (await localBackendAt(url, timeoutMs)) !== undefined;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the pid exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the start lock, or returns false when a live holder has it. Removes a dead holder's lock. */
function tryLock(file: string): boolean {
  try {
    const fd = openSync(file, "wx");
    writeSync(fd, JSON.stringify({ pid: process.pid, time: new Date().toISOString() }));
    closeSync(fd);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  let holder: number | undefined;
  let age = 0;
  try {
    holder = (JSON.parse(readFileSync(file, "utf8")) as { pid?: number }).pid;
    age = Date.now() - statSync(file).mtimeMs;
  } catch {
    // Half-written or just removed by its holder: treat it as held and look again shortly.
    return false;
  }
  if (typeof holder === "number" && pidAlive(holder) && age < STALE_LOCK_MS) return false;
  rmSync(file, { force: true });
  return false;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Takes a lease in `dir`'s clients/ for this process; returns its file. */
function takeLease(dir: string): string {
  const folder = join(dir, CLIENT_LEASES);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${process.pid}-${randomUUID()}`);
  closeSync(openSync(file, "wx"));
  return file;
}

/** How many leases live processes hold in `dir`; those of dead processes are removed on the way. */
function liveLeases(dir: string): number {
  const folder = join(dir, CLIENT_LEASES);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return 0; // no job ever reused it
    throw e;
  }
  let live = 0;
  for (const name of names) {
    const pid = Number(name.split("-")[0]);
    if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) live++;
    else rmSync(join(folder, name), { force: true });
  }
  return live;
}

/** Takes the start lock, waiting while a live holder has it (a job starting the backend, or its starter stopping it). */
async function lock(dir: string, url: string): Promise<() => void> {
  const file = join(dir, START_LOCK);
  const deadline = Date.now() + START_WAIT_MS;
  while (!tryLock(file)) {
    if (Date.now() > deadline)
      throw new UserError(
        `timed out waiting for another job to start the local backend on ${url} (lock ${file}); remove the lock if no job is running`,
      );
    await sleep(100);
  }
  return () => rmSync(file, { force: true });
}

export async function connectOrStartLocalBackend(
  options: LocalBackendOptions & { port: number },
): Promise<LocalBackendHandle> {
  if (options.port === 0) return start(options);
  // Another folder's backend on the port (another workspace's job): its checkpoints would land in
  // that folder and its stop would not wait for this job, so serve ours on a free port.
  return leaseOr(options.dir, options.port, (running) => start(running ? { ...options, port: 0 } : options));
}

/**
 * The backend serving `dir` on the port, leased until the handle's close() (its starter stops it
 * only after), or undefined when none is there: for a short command that would rather start its
 * own on a free port than become the port's starter (whose stop waits for every job that reuses it).
 */
export async function reuseLocalBackend(dir: string, port: number): Promise<LocalBackendHandle | undefined> {
  return leaseOr(dir, port, async () => undefined);
}

/**
 * The backend serving `dir` on the port with a lease on it; else, still holding the start lock (so no
 * other job starts one meanwhile), `otherwise` of what answers there (another folder's backend, or none).
 */
async function leaseOr<T>(
  dir: string,
  port: number,
  otherwise: (running: { storeId: string } | undefined) => Promise<T>,
): Promise<LocalBackendHandle | T> {
  const url = `http://127.0.0.1:${port}`;
  mkdirSync(dir, { recursive: true });
  // The lease comes first: a starter deciding to stop either sees it, or has stopped before we look.
  const lease = takeLease(dir);
  const reused: LocalBackendHandle = { url, started: false, close: async () => rmSync(lease, { force: true }) };
  try {
    const unlock = await lock(dir, url);
    try {
      const running = await localBackendAt(url);
      if (running?.storeId === localStoreId(dir)) return reused;
      rmSync(lease, { force: true });
      return await otherwise(running);
    } finally {
      unlock();
    }
  } catch (e) {
    rmSync(lease, { force: true });
    throw e;
  }
}

/** Stops a backend this job started once no other job holds a lease on it. */
async function stopWhenUnused(dir: string, url: string, running: RunningLocalBackend): Promise<void> {
  try {
    for (;;) {
      while (liveLeases(dir) > 0) await sleep(200);
      const unlock = await lock(dir, url);
      try {
        if (liveLeases(dir) === 0) {
          await running.closeWhenIdle();
          return;
        }
      } finally {
        unlock();
      }
    }
  } catch (e) {
    // Stopped whatever kept the lock from being taken: a server left up holds the port (later jobs
    // of every workspace meet it there) and keeps this process alive with nothing left to stop it.
    await running.closeWhenIdle();
    // The folder deleted under the job (its workspace removed): no job can lease or reuse the
    // backend through it any more, so stopping it is all there was to do.
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

async function start(options: LocalBackendOptions & { port: number }): Promise<LocalBackendHandle> {
  let running;
  try {
    running = await startLocalBackend(options);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new UserError(
        `port ${options.port} on 127.0.0.1 is taken by a program that is not an Agent Lab local backend; stop it or pick another port (--local-port, or the agentLab.localBackendPort setting)`,
      );
    }
    throw e;
  }
  const stop =
    options.port === 0 ? () => running.closeWhenIdle() : () => stopWhenUnused(options.dir, running.url, running);
  return { url: running.url, started: true, close: stop };
}
