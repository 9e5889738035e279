/**
 * Sandbox throughput: tasks per second of the shipped design (every task starts from a memory
 * snapshot of the interpreter; a pool of workers, one per core) against, in the same run:
 *
 * - before: the design this replaced (one worker, a Python-level reset of module dicts after each
 *   task), its files read from git at --baseline and bundled as they were;
 * - the shipped design on one worker (what the snapshot costs per task, without the pool);
 * - Pyodide in this process with no sandbox, with and without restoring the snapshot in place
 *   (the ceiling, and the restore's own cost; never run untrusted code like this);
 * - the other ways to a clean interpreter per task that were measured and not chosen: loading
 *   Pyodide from its snapshot into a new instance, and a fresh worker per task.
 *
 *   node --import tsx bench/sandbox/run.ts [--tasks N] [--fresh N] [--baseline REV] [--workers N]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readCandidates } from "../../src/core/base/task-sets/candidates";
import { PythonSandbox, defaultWorkerCount } from "../../src/core/steps/tasks/sandbox/sandbox";
import { takeSnapshot, type EmscriptenModule } from "../../src/core/steps/tasks/sandbox/snapshot";
import type { SandboxOutcome } from "../../src/core/steps/tasks/sandbox/protocol";

const { values } = parseArgs({
  options: {
    tasks: { type: "string", default: "60" },
    fresh: { type: "string", default: "2" },
    // The last commit with the Python-level reset.
    baseline: { type: "string", default: "9eb0a2e" },
    workers: { type: "string", default: String(defaultWorkerCount()) },
  },
});
const nTasks = Number(values.tasks);
const nFresh = Number(values.fresh);
const nWorkers = Number(values.workers);

const REPO = join(__dirname, "..", "..");
// The 17 good word problems of the shipped example, cycled.
const good = readCandidates(join(REPO, "data", "tasks", "candidates-example.jsonl"))
  .slice(0, 17)
  .map((c) => c.solution);
const batch = Array.from({ length: nTasks }, (_, i) => good[i % good.length]);

interface Row {
  mode: string;
  tasks: number;
  startSeconds: number;
  runSeconds: number;
}

interface Runner {
  start(count?: number): Promise<void>;
  run(code: string): Promise<SandboxOutcome>;
  close(): void;
}

function check(r: SandboxOutcome): void {
  if (!r.ok) throw new Error(`bench task failed: ${JSON.stringify(r)}`);
}

async function timed(mode: string, sandbox: Runner, lanes: number): Promise<Row> {
  const t0 = performance.now();
  await sandbox.start(lanes);
  const t1 = performance.now();
  let next = 0;
  const lane = async () => {
    for (let code = batch[next++]; code; code = batch[next++]) check(await sandbox.run(code));
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  const t2 = performance.now();
  sandbox.close();
  return { mode, tasks: batch.length, startSeconds: (t1 - t0) / 1000, runSeconds: (t2 - t1) / 1000 };
}

/** The sandbox folder as it was at `rev`, next to today's (its relative imports resolve the same). */
function baselineSandbox(rev: string): { Sandbox: new () => Runner; cleanup(): void } {
  const folder = "src/core/steps/tasks/sandbox";
  const copy = join(REPO, "src/core/steps/tasks", `.bench-baseline-${process.pid}`);
  const cleanup = () => rmSync(copy, { recursive: true, force: true });
  process.on("exit", cleanup);
  mkdirSync(copy, { recursive: true });
  const files = execFileSync("git", ["-C", REPO, "ls-tree", "--name-only", `${rev}:${folder}`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  for (const f of files)
    writeFileSync(join(copy, f), execFileSync("git", ["-C", REPO, "show", `${rev}:${folder}/${f}`]));
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a folder written just now
  const mod = require(join(copy, "sandbox.ts")) as { PythonSandbox: new () => Runner };
  return { Sandbox: mod.PythonSandbox, cleanup };
}

interface InProcess {
  runPython(code: string, o?: { globals?: unknown }): unknown;
  toPy(v: unknown): unknown;
  _module: EmscriptenModule;
}

async function loadInProcess(options: object = {}): Promise<InProcess> {
  const { loadPyodide } = (await import("pyodide")) as unknown as { loadPyodide(o: object): Promise<InProcess> };
  return loadPyodide({ stdout: () => undefined, stderr: () => undefined, ...options });
}

async function unsandboxed(restore: boolean): Promise<Row> {
  const t0 = performance.now();
  const py = await loadInProcess();
  const snapshot = takeSnapshot(py._module);
  const t1 = performance.now();
  for (const code of batch) {
    if (restore) snapshot.restore();
    py.runPython(`${code}\nsolution()`, { globals: py.toPy({}) });
  }
  const t2 = performance.now();
  return {
    mode: restore ? "no sandbox, snapshot restored in place per task" : "no sandbox: Pyodide in this process (ceiling)",
    tasks: batch.length,
    startSeconds: (t1 - t0) / 1000,
    runSeconds: (t2 - t1) / 1000,
  };
}

async function newInstanceFromSnapshot(): Promise<Row> {
  const t0 = performance.now();
  const maker = (await loadInProcess({ _makeSnapshot: true })) as InProcess & { makeMemorySnapshot(): Uint8Array };
  const snap = maker.makeMemorySnapshot();
  const t1 = performance.now();
  for (const code of batch.slice(0, nFresh)) {
    const py = await loadInProcess({ _loadSnapshot: snap });
    py.runPython(`${code}\nsolution()`, { globals: py.toPy({}) });
  }
  return {
    mode: "no sandbox: new Pyodide from its snapshot per task",
    tasks: nFresh,
    startSeconds: (t1 - t0) / 1000,
    runSeconds: (performance.now() - t1) / 1000,
  };
}

async function freshPerTask(): Promise<Row> {
  const t0 = performance.now();
  for (const code of batch.slice(0, nFresh)) {
    const sandbox = new PythonSandbox({}, { workers: 1 });
    check(await sandbox.run(code));
    sandbox.close();
  }
  return {
    mode: "sandbox: fresh worker per task",
    tasks: nFresh,
    startSeconds: 0,
    runSeconds: (performance.now() - t0) / 1000,
  };
}

async function main(): Promise<void> {
  const baseline = baselineSandbox(values.baseline);
  const rows: Row[] = [];
  try {
    rows.push(await timed(`before (${values.baseline}): one worker, Python-level reset`, new baseline.Sandbox(), 1));
  } finally {
    baseline.cleanup();
  }
  rows.push(await timed("after: snapshot per task, 1 worker", new PythonSandbox({}, { workers: 1 }), 1));
  rows.push(
    await timed(
      `after: snapshot per task, ${nWorkers} workers (shipped)`,
      new PythonSandbox({}, { workers: nWorkers }),
      nWorkers,
    ),
  );
  rows.push(await unsandboxed(false));
  rows.push(await unsandboxed(true));
  rows.push(await newInstanceFromSnapshot());
  if (nFresh > 0) rows.push(await freshPerTask());
  const w = Math.max(...rows.map((r) => r.mode.length));
  console.log(`${"mode".padEnd(w)}  tasks  start s  run s  tasks/s (after start)`);
  for (const r of rows) {
    console.log(
      `${r.mode.padEnd(w)}  ${String(r.tasks).padStart(5)}  ${r.startSeconds.toFixed(2).padStart(7)}  ${r.runSeconds.toFixed(2).padStart(5)}  ${(r.tasks / r.runSeconds).toFixed(1).padStart(7)}`,
    );
  }
}

void main();
