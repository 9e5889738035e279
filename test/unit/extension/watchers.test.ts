/**
 * The workspace watchers where VS Code's file events never come (the stand-in's watchers fire
 * nothing): a checkpoint a job registers is noticed when the job's progress moves, not only at the
 * next poll, which for a short stage can come after the job ended.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REGISTRY_FILE } from "../../../src/core/base/checkpoints/registry";
import { EventEmitter, installFakeVscode, recorded } from "./fake-vscode";

installFakeVscode();

describe("extension: workspace watchers", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-watchers-"));
    recorded.workspaceFolder = dir;
  });
  afterEach(() => {
    recorded.workspaceFolder = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("a checkpoint registered in a folder made after activation shows when a job moves on, once per change", async () => {
    const { watchWorkspace } = await import("../../../src/extension/watchers");
    const jobMoved = new EventEmitter<void>();
    let calls = 0;
    const noop = () => {};
    const workspace = {
      config: () => {
        throw new Error("no settings yet");
      },
    };
    const disposables = watchWorkspace(
      workspace as never,
      { runs: noop, jobs: noop, data: noop, experiments: noop, checkpoints: () => calls++ },
      jobMoved.event,
    );
    try {
      jobMoved.fire();
      assert.equal(calls, 0, "nothing registered yet");
      mkdirSync(join(dir, "runs"));
      appendFileSync(join(dir, "runs", REGISTRY_FILE), '{"name":"sft-e1"}\n');
      jobMoved.fire();
      assert.equal(calls, 1, "seen at once, without waiting for the poll");
      jobMoved.fire();
      assert.equal(calls, 1, "an unchanged registry is not reported again");
      appendFileSync(join(dir, "runs", REGISTRY_FILE), '{"name":"grpo-s1"}\n');
      jobMoved.fire();
      assert.equal(calls, 2);
    } finally {
      for (const d of disposables) d.dispose();
    }
  });
});
