/**
 * Sandbox throughput: tasks per second of the shipped design (one locked-down worker per batch, the
 * interpreter state reset after each task) against two references in the same run: a fresh worker
 * per task (the simplest isolation, what the reset saves) and Pyodide in this process with no
 * sandbox at all (the ceiling; never do this with untrusted code).
 *
 *   node --import tsx bench/sandbox/run.ts [--tasks N] [--fresh N]
 */
import { parseArgs } from "node:util";
import { PythonSandbox } from "../../src/core/steps/tasks/sandbox/sandbox";
import { readCandidates } from "../../src/core/base/task-sets/candidates";
import { join } from "node:path";

const { values } = parseArgs({
  options: { tasks: { type: "string", default: "60" }, fresh: { type: "string", default: "3" } },
});
const nTasks = Number(values.tasks);
const nFresh = Number(values.fresh);

// The 17 good word problems of the shipped example, cycled.
const good = readCandidates(join(__dirname, "..", "..", "data", "tasks", "candidates-example.jsonl"))
  .slice(0, 17)
  .map((c) => c.solution);
const batch = Array.from({ length: nTasks }, (_, i) => good[i % good.length]);

interface Row {
  mode: string;
  tasks: number;
  startSeconds: number;
  runSeconds: number;
}

async function shipped(): Promise<Row> {
  const sandbox = new PythonSandbox();
  const t0 = performance.now();
  await sandbox.start();
  const t1 = performance.now();
  for (const code of batch) {
    const r = await sandbox.run(code);
    if (!r.ok) throw new Error(`bench task failed: ${JSON.stringify(r)}`);
  }
  const t2 = performance.now();
  sandbox.close();
  return {
    mode: "sandbox: one worker, reset per task (shipped)",
    tasks: batch.length,
    startSeconds: (t1 - t0) / 1000,
    runSeconds: (t2 - t1) / 1000,
  };
}

async function freshPerTask(): Promise<Row> {
  const t0 = performance.now();
  for (const code of batch.slice(0, nFresh)) {
    const sandbox = new PythonSandbox();
    const r = await sandbox.run(code);
    sandbox.close();
    if (!r.ok) throw new Error(`bench task failed: ${JSON.stringify(r)}`);
  }
  return {
    mode: "sandbox: fresh worker per task (reference)",
    tasks: nFresh,
    startSeconds: 0,
    runSeconds: (performance.now() - t0) / 1000,
  };
}

async function unsandboxed(): Promise<Row> {
  const { loadPyodide } = (await import("pyodide")) as unknown as {
    loadPyodide(
      o: object,
    ): Promise<{ runPython(code: string, o?: { globals?: unknown }): unknown; toPy(v: unknown): unknown }>;
  };
  const t0 = performance.now();
  const py = await loadPyodide({ stdout: () => undefined, stderr: () => undefined });
  const t1 = performance.now();
  for (const code of batch) py.runPython(`${code}\nsolution()`, { globals: py.toPy({}) });
  const t2 = performance.now();
  return {
    mode: "no sandbox: Pyodide in this process (ceiling)",
    tasks: batch.length,
    startSeconds: (t1 - t0) / 1000,
    runSeconds: (t2 - t1) / 1000,
  };
}

async function main(): Promise<void> {
  const rows = [await shipped(), await freshPerTask(), await unsandboxed()];
  const w = Math.max(...rows.map((r) => r.mode.length));
  console.log(`${"mode".padEnd(w)}  tasks  start s  run s  tasks/s (after start)`);
  for (const r of rows) {
    console.log(
      `${r.mode.padEnd(w)}  ${String(r.tasks).padStart(5)}  ${r.startSeconds.toFixed(2).padStart(7)}  ${r.runSeconds.toFixed(2).padStart(5)}  ${(r.tasks / r.runSeconds).toFixed(1).padStart(7)}`,
    );
  }
}

void main();
