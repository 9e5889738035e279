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
 *    files, sockets, processes, heap walks and rewrites of its own helpers, a hidden environment.
 *
 * Isolation between tasks is by construction: each task starts from the same memory snapshot of
 * the interpreter (snapshot.ts), so no task's verdict depends on which tasks ran before it. A pool
 * of workers, one per core, runs tasks side by side (loading Pyodide takes seconds, so a worker
 * serves many tasks). At the time limit the worker interrupts the task itself; one that ignores
 * the interrupt or loops inside one C call is killed a second later on its own timer, and the
 * other workers carry on. A worker that crashed or was killed never gets another task; a crash on
 * a worker that had run other tasks is run once more on a fresh one. Every escape attempt is
 * reported as the task's rejection reason.
 */
import { readFileSync } from "node:fs";
import { availableParallelism, homedir } from "node:os";
import { dirname, join, sep } from "node:path";
import { sha256Hex } from "../../../base/runs/manifest";
import type { SandboxOutcome } from "./protocol";
import { workerFiles, type WorkerFiles } from "./worker-files";
import { KILL_GRACE_MS, WorkerProcess, type WorkerAnswer } from "./worker-process";

export { KILL_GRACE_MS };

export interface SandboxLimits {
  /** Wall time one task may take, from sending it to its answer (default 5 s). */
  timeoutMs: number;
  /** Most bytes the interpreter's WebAssembly heap may grow to (default 512 MiB; Pyodide itself needs ~30 MiB). */
  memoryBytes: number;
  /** Wall time the worker may take to load Pyodide (default 60 s). */
  startupMs: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeoutMs: 5000, memoryBytes: 512 * 2 ** 20, startupMs: 60_000 };

/** The V8 heap of the worker (JS objects only; Python lives in the WebAssembly heap). */
const WORKER_HEAP_MIB = 256;

/** Node's flags for the worker: the permission model and the caps (layer 1). */
export function workerNodeArgs(files: WorkerFiles, nodeVersion = process.versions.node): string[] {
  const [major, minor] = nodeVersion.split(".").map(Number);
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
export function workerEnv(electron = process.versions.electron): NodeJS.ProcessEnv {
  // Under VS Code's Electron the same binary is only Node when told so.
  return electron ? { ELECTRON_RUN_AS_NODE: "1" } : {};
}

/** What one run gives: the outcome, and whether it can be cached (see TaskSandbox.run). */
export interface SandboxRun {
  outcome: SandboxOutcome;
  /** The task ran from the interpreter's snapshot on a worker nothing else had disturbed. */
  clean: boolean;
}

/** What the task filters need from a sandbox (PythonSandbox; tests of the filter logic script one). */
export interface TaskSandbox {
  readonly limits: SandboxLimits;
  readonly codeSha256: string;
  readonly starts: number;
  /** How many tasks it runs at once (callers keep that many in flight). */
  readonly concurrency: number;
  /** Runs one solution. Only a `clean` run's outcome may be cached: another could carry a neighbour's doing. */
  execute(code: string): Promise<SandboxRun>;
  close(): void;
}

export interface SandboxOptions {
  /** Worker processes run side by side (default: one per core). */
  workers?: number;
  /** The worker's script and Pyodide's folder (default: workerFiles(); the pool's tests run a stand-in worker). */
  files?: WorkerFiles;
}

export function defaultWorkerCount(): number {
  return Math.max(1, availableParallelism());
}

export class PythonSandbox implements TaskSandbox {
  readonly limits: SandboxLimits;
  readonly concurrency: number;
  private readonly files: WorkerFiles;
  private readonly workers = new Set<WorkerProcess>();
  private readonly idle: WorkerProcess[] = [];
  /** Callers waiting for one of the `concurrency` slots, first come first served. */
  private readonly waiting: (() => void)[] = [];
  private busy = 0;
  private closed = false;
  /** Worker processes started so far (a timeout or crash costs one). */
  starts = 0;

  constructor(limits: Partial<SandboxLimits> = {}, options: SandboxOptions = {}) {
    this.limits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
    this.concurrency = Math.max(1, Math.floor(options.workers ?? defaultWorkerCount()));
    this.files = options.files ?? workerFiles();
  }

  private codeHash: string | undefined;

  /** sha256 of the worker script (lockdown, guest setup and Pyodide's loader are bundled in it) and of Pyodide's version. */
  get codeSha256(): string {
    this.codeHash ??= sha256Hex(
      Buffer.concat([readFileSync(this.files.script), readFileSync(join(this.files.pyodideDir, "package.json"))]),
    );
    return this.codeHash;
  }

  /** Runs one solution and gives its outcome (see `execute`). */
  async run(code: string): Promise<SandboxOutcome> {
    return (await this.execute(code)).outcome;
  }

  /** Runs one solution on a free worker; more calls than workers wait their turn. */
  async execute(code: string): Promise<SandboxRun> {
    await this.takeSlot();
    try {
      const worker = await this.checkout();
      const first = await this.runOn(worker, code);
      if (!first.unexplainedCrash) return first.run;
      // The worker died without answering after it had served other tasks: its death may be
      // theirs. Once more on a fresh worker; what that says is this task's own verdict.
      const retry = await this.runOn(await this.checkout(true), code);
      return retry.run;
    } finally {
      this.releaseSlot();
    }
  }

  /** The process id of a running worker, if one is running. */
  get workerPid(): number | undefined {
    for (const w of this.workers) if (!w.dead) return w.pid;
    return undefined;
  }

  /** Starts `count` workers now (default one; otherwise the first runs do). */
  async start(count = 1): Promise<void> {
    const started: WorkerProcess[] = [];
    for (let i = this.workers.size; i < Math.min(count, this.concurrency); i++) started.push(this.spawn());
    await Promise.all(started.map((w) => w.ready));
    this.idle.push(...started);
  }

  close(): void {
    this.closed = true;
    for (const w of this.workers) w.kill();
    this.workers.clear();
    this.idle.length = 0;
  }

  private async runOn(worker: WorkerProcess, code: string): Promise<{ run: SandboxRun; unexplainedCrash: boolean }> {
    const tasksBefore = worker.tasksRun;
    let answer: WorkerAnswer;
    try {
      answer = await worker.run(code);
    } finally {
      if (worker.dead || this.closed) this.discard(worker);
      else this.idle.push(worker);
    }
    if (answer.finished) this.discard(worker);
    const unexplainedCrash =
      !answer.outcome.ok && answer.outcome.reason === "crash" && !answer.answered && tasksBefore > 0;
    return {
      // A crash nobody explained, on a worker others used, is not this task's verdict to keep.
      run: { outcome: this.withoutHostPaths(answer.outcome), clean: answer.restored && !unexplainedCrash },
      unexplainedCrash,
    };
  }

  private async checkout(fresh = false): Promise<WorkerProcess> {
    if (this.closed) throw new Error("sandbox is closed");
    let worker = fresh ? undefined : this.idle.pop();
    while (worker?.dead) {
      this.discard(worker);
      worker = this.idle.pop();
    }
    worker ??= this.spawn();
    try {
      await worker.ready;
    } catch (e) {
      this.discard(worker);
      throw e;
    }
    return worker;
  }

  private spawn(): WorkerProcess {
    const worker = new WorkerProcess({
      files: this.files,
      config: {
        indexDir: this.files.pyodideDir,
        wasmMemoryBytes: this.limits.memoryBytes,
        timeoutMs: this.limits.timeoutMs,
      },
      nodeArgs: workerNodeArgs(this.files),
      env: workerEnv(),
      startupMs: this.limits.startupMs,
    });
    this.workers.add(worker);
    this.starts++;
    return worker;
  }

  private discard(worker: WorkerProcess): void {
    worker.kill();
    this.workers.delete(worker);
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
  }

  private takeSlot(): Promise<void> {
    if (this.busy < this.concurrency) {
      this.busy++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy--;
  }

  /**
   * The host's own folders, as they could appear in an error a task provoked (Pyodide's folder in a
   * JavaScript stack, the worker's path): replaced before the outcome reaches any file.
   */
  private withoutHostPaths(outcome: SandboxOutcome): SandboxOutcome {
    const folders = [this.files.pyodideDir, dirname(this.files.script), process.cwd(), homedir()]
      .filter((f) => f.length > 1)
      .sort((a, b) => b.length - a.length);
    const scrub = (text: string) => folders.reduce((t, f) => t.split(f).join("<host>"), text);
    return outcome.ok
      ? { ok: true, value: { type: scrub(outcome.value.type), repr: scrub(outcome.value.repr) } }
      : { ok: false, reason: outcome.reason, detail: scrub(outcome.detail) };
  }
}
