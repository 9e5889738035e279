/**
 * Start-or-reuse for commands like `agent-lab eval --backend local`: if a local backend already
 * listens on the port (e.g. `agent-lab serve-local` in another terminal, or another job), use it;
 * otherwise start one in this process. Several jobs starting at once in one workspace take turns
 * through a lock file in the backend's folder (created with O_EXCL, holding the holder's pid), so
 * exactly one starts the server and the others reuse it: no port race, no EADDRINUSE.
 *
 * The process that started the server keeps it up while other jobs still use it: its close()
 * waits until no request has been in flight for a moment, then stops the server.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/base/errors";
import type { LocalBackendHandle } from "../core/base/tinker/local-backend";
import { startLocalBackend, type LocalBackendOptions } from "./http-server";

export type { LocalBackendHandle };

/** The lock file that serialises starts in one backend folder. */
export const START_LOCK = "start.lock";
/** A lock older than this is stale even if its pid is alive (pids are reused); a start takes well under it. */
const STALE_LOCK_MS = 60_000;
const START_WAIT_MS = 60_000;

/** True when a local backend (not some other server) answers at this URL. */
export async function isLocalBackend(url: string, timeoutMs = 2_000): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/v1/get_server_capabilities`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return false;
    const body = (await res.json()) as { local_stand_in?: unknown };
    return body.local_stand_in === true;
  } catch {
    // Refused, timed out, or not JSON: whatever it is, it is not a local backend we can use.
    return false;
  }
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

export async function connectOrStartLocalBackend(
  options: LocalBackendOptions & { port: number },
): Promise<LocalBackendHandle> {
  const url = `http://127.0.0.1:${options.port}`;
  const reused: LocalBackendHandle = { url, started: false, close: async () => {} };
  if (options.port === 0) return start(options);
  if (await isLocalBackend(url)) return reused;
  mkdirSync(options.dir, { recursive: true });
  const lock = join(options.dir, START_LOCK);
  const deadline = Date.now() + START_WAIT_MS;
  while (!tryLock(lock)) {
    // Another job is starting one: wait for it to answer, then use it.
    if (await isLocalBackend(url, 500)) return reused;
    if (Date.now() > deadline)
      throw new UserError(
        `timed out waiting for another job to start the local backend on ${url} (lock ${lock}); remove the lock if no job is running`,
      );
    await sleep(100);
  }
  try {
    // The previous holder may have started it just before we took the lock.
    if (await isLocalBackend(url)) return reused;
    return await start(options);
  } finally {
    rmSync(lock, { force: true });
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
  return { url: running.url, started: true, close: () => running.closeWhenIdle() };
}
