/**
 * The sandbox worker: the entry of the locked-down child process that sandbox.ts starts (bundled as
 * dist/sandbox-worker.js). It locks Node down, loads Pyodide from the folder named in its argument,
 * runs the guest setup, takes the interpreter's snapshot, says "ready", then answers one task per
 * stdin line with one stdout line, each task started from the snapshot.
 * Nothing here trusts the Python code: its output goes nowhere, its attempts to leave are recorded
 * from outside the interpreter, and the answer is built from strings the runner returns.
 */
import { join } from "node:path";
import { createInterface } from "node:readline";
import { GUEST_SETUP, VIOLATION_MARK } from "./guest";
import { lockDownNode, type ViolationKind } from "./lockdown";
import { RETIRE_GROWTH_BYTES, takeSnapshot, type EmscriptenModule } from "./snapshot";
import {
  DETAIL_LIMIT,
  REPR_LIMIT,
  type SandboxOutcome,
  type SandboxReason,
  type TaskRequest,
  type WorkerMessage,
} from "./protocol";

export interface WorkerConfig {
  indexDir: string;
  wasmMemoryBytes: number;
  /** After this long a task's Python is interrupted (the host kills the worker a little later). */
  timeoutMs: number;
}

interface PyodideLike {
  runPython(code: string, options?: { globals?: unknown }): unknown;
  toPy(value: unknown): unknown;
  setInterruptBuffer(buffer: unknown): void;
  _module: EmscriptenModule;
}

/**
 * Pyodide polls element 0 of its interrupt buffer between bytecodes; 2 means SIGINT, which raises
 * KeyboardInterrupt. Answering from the clock interrupts a task at its deadline without a thread,
 * keeping the worker (and its seconds of start-up) for the next task. Code that catches the
 * interrupt, or loops inside one C call, meets the host's kill instead.
 */
let deadline = Infinity;
const SIGINT = 2;
/** Once per task: a second interrupt could land in the runner's own error handling. */
let interrupted = false;
const clockInterrupt = Object.defineProperty({}, 0, {
  get: () => {
    if (interrupted || Date.now() <= deadline) return 0;
    interrupted = true;
    return SIGINT;
  },
  set: () => undefined,
});

const stdout = process.stdout;
const send = (m: WorkerMessage) => stdout.write(JSON.stringify(m) + "\n");
// stdout carries the protocol only: anything Pyodide logs goes to stderr, which the host just tails.
for (const level of ["log", "info", "debug"] as const) console[level] = console.error;

let violations: { kind: ViolationKind | "filesystem"; what: string }[] = [];
const record = (kind: ViolationKind | "filesystem", what: string) => {
  if (violations.length < 8) violations.push({ kind, what });
};

function onStderrLine(line: string): void {
  if (!line.startsWith(VIOLATION_MARK)) return; // the task's own stderr is not kept
  const [kind, what] = line.slice(VIOLATION_MARK.length).split(":");
  const known = ["filesystem", "network", "process", "environment", "host-bridge"] as const;
  const k = known.find((x) => x === kind) ?? "host-bridge";
  record(k, (what ?? "").slice(0, 100));
}

function outcomeOf(result: unknown, timedOut: boolean): SandboxOutcome {
  if (timedOut) return { ok: false, reason: "timeout", detail: "interrupted at the time limit" };
  const blocked = violations.find((v) => v.kind !== "memory");
  if (blocked) return { ok: false, reason: `blocked:${blocked.kind}` as SandboxReason, detail: blocked.what };
  if (violations.some((v) => v.kind === "memory")) return { ok: false, reason: "memory", detail: violations[0].what };
  if (typeof result !== "string") return { ok: false, reason: "crash", detail: "the runner returned no result" };
  const [status, a = "", b = ""] = result.split("\0");
  if (status === "ok") return { ok: true, value: { type: a.slice(0, 64), repr: b.slice(0, REPR_LIMIT) } };
  const reason: SandboxReason = a === "memory" ? "memory" : "error";
  return { ok: false, reason, detail: b.slice(0, DETAIL_LIMIT) };
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "{}") as WorkerConfig;
  lockDownNode({ wasmMemoryBytes: config.wasmMemoryBytes, onViolation: record });
  // Loaded after the lockdown so that Pyodide only ever sees the poisoned modules.
  const { loadPyodide } = (await import("pyodide")) as unknown as { loadPyodide(o: object): Promise<PyodideLike> };
  const py = await loadPyodide({
    indexURL: join(config.indexDir, "/"),
    // The `js` module is a view of jsglobals: an empty object with no prototype offers nothing.
    jsglobals: Object.create(null),
    env: { HOME: "/home/pyodide" },
    stdin: () => null,
    stdout: () => undefined,
    stderr: onStderrLine,
  });
  // Pyodide's loader publishes a require() with fs and child_process on globalThis; take it back.
  delete (globalThis as { require?: unknown }).require;
  const run = py.runPython(GUEST_SETUP, { globals: py.toPy({}) }) as (code: string) => unknown;
  py.setInterruptBuffer(clockInterrupt);
  const module = py._module;
  // Nothing needs Pyodide's public API object from here on (the runner is a Python callable, and the
  // snapshot keeps its own hold on the module), and code that found a way back to it must find it
  // empty: no FS, no _module, no setStderr to silence the violation reports.
  for (const key of Reflect.ownKeys(py)) Reflect.deleteProperty(py, key);
  Object.freeze(py);
  Object.defineProperty(process, "getBuiltinModule", {
    value: () => {
      record("host-bridge", "process.getBuiltinModule");
      throw new Error("sandbox: process.getBuiltinModule is not allowed");
    },
    writable: false,
    configurable: false,
  });
  violations = [];
  // Last, so that the state every task starts from is the one the guards left.
  const snapshot = takeSnapshot(module);
  send({ type: "ready" });

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const task = JSON.parse(line) as TaskRequest;
    violations = [];
    let result: unknown;
    let timedOut = false;
    try {
      // Before the task, not after the last one: whatever ran before, this task meets the snapshot.
      snapshot.restore();
    } catch (e) {
      send({ type: "done", id: task.id, restored: false, retire: true, outcome: crash(e) });
      process.exit(3);
    }
    deadline = Date.now() + config.timeoutMs;
    interrupted = false;
    try {
      result = run(task.code);
      timedOut = Date.now() > deadline;
      deadline = Infinity;
    } catch (e) {
      // The runner catches every Python exception; reaching here means the interpreter itself failed.
      send({ type: "done", id: task.id, restored: true, retire: true, outcome: crash(e) });
      process.exit(3);
    }
    const retire = module.HEAP8.length - snapshot.bytes > RETIRE_GROWTH_BYTES;
    send({ type: "done", id: task.id, restored: true, retire, outcome: outcomeOf(result, timedOut) });
  }
}

function crash(e: unknown): SandboxOutcome {
  return { ok: false, reason: "crash", detail: String(e).slice(0, DETAIL_LIMIT) };
}

main().catch((e: unknown) => {
  process.stderr.write(`sandbox worker failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
});
