/**
 * Reliability: gen-tasks' filter stops at the first stop request after the candidate it is
 * running (it needed a second SIGTERM: the filter never looked at the signal), progress.json ends
 * "interrupted" (never "running"), and nothing of the folder's results is written half-way.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../src/core/base/errors";
import { readProgress } from "../../../src/core/base/runs/progress";
import { TASKS_FILE } from "../../../src/core/base/task-sets/files";
import { genTasks } from "../../../src/core/steps/tasks/gen-tasks";
import { runExperiment } from "../../../src/core/steps/experiments/run-experiment";
import { miniatureSpec, writeSpec } from "../core/steps/experiments/fixtures";
import {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxRun,
  type TaskSandbox,
} from "../../../src/core/steps/tasks/sandbox/sandbox";

describe("reliability: long phases stop at the first SIGTERM", function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-first-term-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("gen-tasks' filter: the candidate running finishes, no other starts, progress.json says interrupted", async () => {
    const candidates = join(dir, "candidates.jsonl");
    writeFileSync(
      candidates,
      Array.from({ length: 20 }, (_, i) =>
        JSON.stringify({ problem: `What is ${i} plus one?`, solution: `def solution():\n    return ${i + 1}` }),
      ).join("\n") + "\n",
    );
    const stop = new AbortController();
    let runs = 0;
    // A slow sandbox; the stop request (what interruptible() makes of SIGTERM) comes during the second run.
    const sandbox: TaskSandbox = {
      limits: DEFAULT_SANDBOX_LIMITS,
      codeSha256: "test-sandbox",
      starts: 1,
      concurrency: 1,
      execute: async (): Promise<SandboxRun> => {
        runs++;
        if (runs === 2) stop.abort(new UserError("stopped by SIGTERM"));
        await new Promise((r) => setTimeout(r, 30));
        return { outcome: { ok: true, value: { type: "int", repr: String(runs) } }, clean: true };
      },
      close: () => undefined,
    };
    const out = join(dir, "tasks");
    const r = await genTasks({
      outDir: out,
      env: "gsm8k",
      candidatesFile: candidates,
      prices: null,
      budgetUsd: 0,
      sandbox,
      signal: stop.signal,
      command: ["agent-lab", "gen-tasks", "(test)"],
    });
    assert.deepEqual([r.status, r.message], ["interrupted", "interrupted; rerun the same command to continue"]);
    assert.equal(runs, 2, "no candidate started after the stop request");
    assert.equal(readProgress(out)?.status, "interrupted");
    assert.equal(existsSync(join(out, TASKS_FILE)), false, "no half-filtered tasks.jsonl");
  });

  it("an experiment's world phase: stops between two questions, writes no world, progress.json says interrupted", async () => {
    // The largest world a spec allows takes seconds to build in one loop; a stop request 100 ms in must not wait for it.
    const specFile = writeSpec(dir, miniatureSpec({ world: { kind: "synthetic", seed: 7, train: 100_000, dev: 520 } }));
    const ws = join(dir, "ws");
    const stop = new AbortController();
    let stoppedAt = 0;
    const log = (line: string) => {
      if (/ 1\/\d+ world\b/.test(line))
        setTimeout(() => {
          stoppedAt = Date.now();
          stop.abort(new UserError("stopped by SIGTERM"));
        }, 100);
    };
    await assert.rejects(
      runExperiment({ specFile, dir: ws, log, signal: stop.signal }),
      (e: unknown) => e instanceof UserError && e.message === "stopped by SIGTERM",
    );
    assert.ok(stoppedAt > 0, "the world phase started and the stop request was sent during it");
    assert.ok(Date.now() - stoppedAt < 1000, `stopped ${Date.now() - stoppedAt} ms after the request`);
    assert.equal(readProgress(join(ws, "runs", "mini"))?.status, "interrupted");
    assert.equal(existsSync(join(ws, "hotpot")), false, "no world written half-way");
  });
});
