/**
 * The host's handle on one sandbox worker process: it starts the locked-down child, sends it one
 * task at a time and reads its answers as untrusted lines. A worker that crashed, was killed at a
 * task's limit, sent a malformed line or exited is `dead` from that moment on, before its exit is
 * observed: the pool (sandbox.ts) never hands a dead worker another task.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { UserError } from "../../../base/errors";
import { MAX_MESSAGE_BYTES, parseWorkerMessage, type SandboxOutcome, type WorkerMessage } from "./protocol";
import type { WorkerConfig } from "./worker";
import type { WorkerFiles } from "./worker-files";

/** How much longer than the time limit the host waits before it kills a worker that ignored its interrupt. */
export const KILL_GRACE_MS = 1000;

export interface WorkerAnswer {
  outcome: SandboxOutcome;
  /** The task started from the interpreter's snapshot (the worker says so; a kill at the limit keeps it). */
  restored: boolean;
  /** The worker cannot take another task (crashed, killed, exited, or asked to be replaced). */
  finished: boolean;
  /** The worker itself answered (false: the host made the answer up after a kill, an exit or a bad line). */
  answered: boolean;
}

export interface WorkerLaunch {
  files: WorkerFiles;
  config: WorkerConfig;
  nodeArgs: string[];
  env: NodeJS.ProcessEnv;
  startupMs: number;
}

interface Pending {
  id: number;
  resolve(answer: WorkerAnswer): void;
  timer: NodeJS.Timeout;
}

export class WorkerProcess {
  readonly ready: Promise<void>;
  /** Tasks answered so far: a crash on a worker that ran others may be theirs (the pool retries it). */
  tasksRun = 0;
  private child: ChildProcessByStdio<Writable, Readable, Readable>;
  private pending: Pending | undefined;
  private nextId = 1;
  private alive = true;

  constructor(private readonly launch: WorkerLaunch) {
    this.child = spawn(process.execPath, [...launch.nodeArgs, launch.files.script, JSON.stringify(launch.config)], {
      cwd: launch.files.pyodideDir,
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.ready = this.watch();
    // A start failure is the caller's to report (it awaits `ready`); this keeps an unawaited one quiet.
    this.ready.catch(() => undefined);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get dead(): boolean {
    return !this.alive;
  }

  /** Runs one task; the answer arrives once, from the worker, its exit, or the kill at the limit. */
  run(code: string): Promise<WorkerAnswer> {
    if (this.pending) throw new Error("internal: a sandbox worker was given a second task");
    if (!this.alive) {
      // Died while idle: an answer nobody gave, which the pool runs again on a fresh worker.
      const outcome: SandboxOutcome = { ok: false, reason: "crash", detail: "the sandbox worker had exited" };
      return Promise.resolve({ outcome, restored: true, finished: true, answered: false });
    }
    const id = this.nextId++;
    const { timeoutMs } = this.launch.config;
    return new Promise<WorkerAnswer>((resolve) => {
      const timer = setTimeout(() => {
        this.settle(id, {
          outcome: { ok: false, reason: "timeout", detail: `no answer within ${timeoutMs} ms; worker killed` },
          restored: true,
          finished: true,
          answered: false,
        });
        this.kill();
      }, timeoutMs + KILL_GRACE_MS);
      this.pending = { id, resolve, timer };
      this.child.stdin.write(JSON.stringify({ id, code }) + "\n");
    });
  }

  kill(): void {
    this.alive = false;
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  private settle(id: number, answer: WorkerAnswer): void {
    const p = this.pending;
    if (!p || p.id !== id) return;
    clearTimeout(p.timer);
    this.pending = undefined;
    this.tasksRun++;
    if (answer.finished) this.alive = false;
    p.resolve(answer);
  }

  private watch(): Promise<void> {
    const child = this.child;
    let stderrTail = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    child.stdin.on("error", () => undefined); // a dead worker's closed pipe; its exit handler answers the task
    return new Promise<void>((resolve, reject) => {
      let started = false;
      const startTimer = setTimeout(() => {
        this.kill();
        reject(new UserError(`the Python sandbox did not start within ${this.launch.startupMs} ms`));
      }, this.launch.startupMs);
      const onMessage = (m: WorkerMessage) => {
        if (m.type === "ready" && !started) {
          started = true;
          clearTimeout(startTimer);
          resolve();
        } else if (m.type === "done" && this.pending && m.id === this.pending.id) {
          // A crashed interpreter exits right after its answer: it is finished now, not when its exit is seen.
          const finished = m.retire || (!m.outcome.ok && m.outcome.reason === "crash");
          this.settle(m.id, { outcome: m.outcome, restored: m.restored, finished, answered: true });
          if (finished) this.kill();
        } else {
          this.protocolViolation();
        }
      };
      readLines(child.stdout, (line) => {
        const m = line === undefined ? undefined : parseWorkerMessage(line);
        if (!m) this.protocolViolation();
        else onMessage(m);
      });
      child.on("exit", (code, signal) => {
        clearTimeout(startTimer);
        this.alive = false;
        if (!started) {
          reject(
            new UserError(
              `the Python sandbox failed to start (exit ${code ?? signal}): ${stderrTail.trim().split("\n").slice(-1)[0] ?? ""}`,
            ),
          );
          return;
        }
        if (this.pending)
          this.settle(this.pending.id, {
            outcome: { ok: false, reason: "crash", detail: `the sandbox worker exited (${code ?? signal})` },
            restored: true,
            finished: true,
            answered: false,
          });
      });
      child.on("error", (e) => {
        clearTimeout(startTimer);
        this.alive = false;
        reject(new UserError(`could not start the Python sandbox: ${e.message}`));
      });
    });
  }

  /** A line that is not a well-formed answer to the current task: the worker is no longer trusted. */
  private protocolViolation(): void {
    if (this.pending)
      this.settle(this.pending.id, {
        outcome: { ok: false, reason: "crash", detail: "the sandbox worker sent a malformed message" },
        restored: true,
        finished: true,
        answered: false,
      });
    this.kill();
  }
}

/** Calls `onLine` per line; a line longer than MAX_MESSAGE_BYTES is reported once as undefined and reading stops. */
function readLines(stream: Readable, onLine: (line: string | undefined) => void): void {
  let buffer = "";
  let dead = false;
  stream.on("data", (chunk: Buffer) => {
    if (dead) return;
    buffer += chunk.toString("utf8");
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      onLine(line);
    }
    if (buffer.length > MAX_MESSAGE_BYTES) {
      dead = true;
      onLine(undefined);
    }
  });
}
