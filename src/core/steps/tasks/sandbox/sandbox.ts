/**
 * Runs untrusted Python `solution()` functions and returns what they return. Three layers, each
 * enough for some escapes and together meant for all of them:
 *
 * 1. A separate Node process under Node's permission model: it may read only the Pyodide folder and
 *    its own script; no file writes, no child processes, no workers, no native addons, no code
 *    generation from strings; an empty environment; a V8 heap cap; killed at the wall-time limit.
 * 2. lockdown.ts inside that process: the network (which the permission model does not cover),
 *    signals to other processes, host facts and WebAssembly memory beyond the per-task cap.
 * 3. guest.ts inside the interpreter: no `js`/`pyodide_js`/`pyodide` bridge, an audit hook on
 *    files, sockets, processes and heap walks, a hidden environment, a state reset after each task.
 *
 * One worker serves many tasks (loading Pyodide takes seconds). At the time limit the worker
 * interrupts the task itself; one that ignores the interrupt is killed a second later, and a killed
 * or crashed worker costs a restart. Every escape attempt is reported as the task's rejection reason.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import type { Readable, Writable } from "node:stream";
import { UserError } from "../../../base/errors";
import { sha256Hex } from "../../../base/runs/manifest";
import { MAX_MESSAGE_BYTES, parseWorkerMessage, type SandboxOutcome, type WorkerMessage } from "./protocol";
import { workerFiles, type WorkerFiles } from "./worker-files";
import type { WorkerConfig } from "./worker";

export interface SandboxLimits {
  /** Wall time one task may take, from sending it to its answer (default 5 s). */
  timeoutMs: number;
  /** Most bytes the interpreter's WebAssembly heap may grow to (default 512 MiB; Pyodide itself needs ~30 MiB). */
  memoryBytes: number;
  /** Wall time the worker may take to load Pyodide (default 60 s). */
  startupMs: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 5000, memoryBytes: 512 * 2 ** 20, startupMs: 60_000 };

/** How much longer than the time limit the host waits before it kills a worker that ignored its interrupt. */
export const KILL_GRACE_MS = 1000;

/** The V8 heap of the worker (JS objects only; Python lives in the WebAssembly heap). */
const WORKER_HEAP_MIB = 256;

/** Node's flags for the worker: the permission model and the caps (layer 1). */
export function workerNodeArgs(files: WorkerFiles): string[] {
  const [major, minor] = process.versions.node.split(".").map(Number);
  // Node 22.13 and 23.5 made the permission model stable under a new flag name.
  const permission =
    major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13)
      ? "--permission"
      : "--experimental-permission";
  return [
    permission,
    `--allow-fs-read=${files.pyodideDir}${sep}*`,
    `--allow-fs-read=${files.script}`,
    "--disallow-code-generation-from-strings",
    `--max-old-space-size=${WORKER_HEAP_MIB}`,
    "--no-warnings",
  ];
}

/** The worker's environment: nothing of the parent's, so no key or token can be read inside. */
export function workerEnv(): NodeJS.ProcessEnv {
  // Under VS Code's Electron the same binary is only Node when told so.
  return process.versions.electron ? { ELECTRON_RUN_AS_NODE: "1" } : {};
}

/** What the task filters need from a sandbox (PythonSandbox; tests of the filter logic script one). */
export interface TaskSandbox {
  readonly limits: SandboxLimits;
  readonly codeSha256: string;
  readonly starts: number;
  run(code: string): Promise<SandboxOutcome>;
  close(): void;
}

interface Pending {
  id: number;
  resolve(outcome: SandboxOutcome): void;
  timer: NodeJS.Timeout;
}

export class PythonSandbox implements TaskSandbox {
  readonly limits: SandboxLimits;
  private readonly files: WorkerFiles;
  private child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;
  private ready: Promise<void> | undefined;
  private pending: Pending | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private closed = false;
  /** Worker processes started so far (a timeout or crash costs one). */
  starts = 0;

  constructor(limits: Partial<SandboxLimits> = {}) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
    this.files = workerFiles();
  }

  private codeHash: string | undefined;

  /** sha256 of the worker script (lockdown, guest setup and Pyodide's loader are bundled in it) and of Pyodide's version. */
  get codeSha256(): string {
    this.codeHash ??= sha256Hex(
      Buffer.concat([readFileSync(this.files.script), readFileSync(join(this.files.pyodideDir, "package.json"))]),
    );
    return this.codeHash;
  }

  /** Runs one solution; calls are queued, one task in the worker at a time. */
  run(code: string): Promise<SandboxOutcome> {
    const next = this.queue.then(() => this.runNow(code));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The running worker's process id, if one is running. */
  get workerPid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the worker now (otherwise the first run does). */
  async start(): Promise<void> {
    await this.ensureWorker();
  }

  close(): void {
    this.closed = true;
    this.kill();
  }

  private async runNow(code: string): Promise<SandboxOutcome> {
    if (this.closed) throw new Error("sandbox is closed");
    await this.ensureWorker();
    const child = this.child!;
    const id = this.nextId++;
    return new Promise<SandboxOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.settle(id, {
          ok: false,
          reason: "timeout",
          detail: `no answer within ${this.limits.timeoutMs} ms; worker killed`,
        });
        this.kill();
      }, this.limits.timeoutMs + KILL_GRACE_MS);
      this.pending = { id, resolve, timer };
      child.stdin.write(JSON.stringify({ id, code }) + "\n");
    });
  }

  private settle(id: number, outcome: SandboxOutcome): void {
    const p = this.pending;
    if (!p || p.id !== id) return;
    clearTimeout(p.timer);
    this.pending = undefined;
    p.resolve(outcome);
  }

  private kill(): void {
    const child = this.child;
    this.child = undefined;
    this.ready = undefined;
    if (child && child.exitCode === null) child.kill("SIGKILL");
  }

  private ensureWorker(): Promise<void> {
    if (!this.ready) this.ready = this.spawnWorker();
    return this.ready;
  }

  private spawnWorker(): Promise<void> {
    const config: WorkerConfig = {
      indexDir: this.files.pyodideDir,
      wasmMemoryBytes: this.limits.memoryBytes,
      timeoutMs: this.limits.timeoutMs,
    };
    const child = spawn(process.execPath, [...workerNodeArgs(this.files), this.files.script, JSON.stringify(config)], {
      cwd: this.files.pyodideDir,
      env: workerEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    this.starts++;
    let stderrTail = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    child.stdin.on("error", () => undefined); // a dead worker's closed pipe; its exit handler answers the task
    return new Promise<void>((resolve, reject) => {
      let started = false;
      const startTimer = setTimeout(() => {
        this.kill();
        reject(new UserError(`the Python sandbox did not start within ${this.limits.startupMs} ms`));
      }, this.limits.startupMs);
      const onMessage = (m: WorkerMessage) => {
        if (m.type === "ready") {
          started = true;
          clearTimeout(startTimer);
          resolve();
        } else if (this.pending && m.id === this.pending.id) {
          this.settle(m.id, m.outcome);
        } else {
          this.protocolViolation(child);
        }
      };
      readLines(child.stdout, (line) => {
        const m = line === undefined ? undefined : parseWorkerMessage(line);
        if (!m) this.protocolViolation(child);
        else onMessage(m);
      });
      child.on("exit", (code, signal) => {
        clearTimeout(startTimer);
        if (this.child === child) {
          this.child = undefined;
          this.ready = undefined;
        }
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
            ok: false,
            reason: "crash",
            detail: `the sandbox worker exited (${code ?? signal})`,
          });
      });
      child.on("error", (e) => {
        clearTimeout(startTimer);
        reject(new UserError(`could not start the Python sandbox: ${e.message}`));
      });
    });
  }

  /** A line that is not a well-formed answer to the current task: the worker is no longer trusted. */
  private protocolViolation(child: ChildProcessByStdio<Writable, Readable, Readable>): void {
    if (this.child !== child) return;
    if (this.pending)
      this.settle(this.pending.id, {
        ok: false,
        reason: "crash",
        detail: "the sandbox worker sent a malformed message",
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
