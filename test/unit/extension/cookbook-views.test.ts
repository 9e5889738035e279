/**
 * A tinker-cookbook log folder in the Runs and Checkpoints views' models: a training run row with
 * its kind, last step and last reward beside Agent Lab's own runs; its checkpoints as registry
 * entries that Evaluate on Val can use; the folders found in a workspace or added by hand.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRunName } from "../../../src/core/base/runs/run-name";
import { checkpointRows, cookbookCheckpointEntries } from "../../../src/extension/checkpoints/checkpoints-model";
import type { LabWorkspace } from "../../../src/extension/workspace/lab-workspace";
import { CookbookRuns } from "../../../src/extension/runs/cookbook-runs";
import { listRunRows } from "../../../src/extension/runs/runs-model";
import { writeCookbookRun, type CookbookFixture } from "../../helpers/cookbook-fixture";

class MemoryMemento {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return (this.values.has(key) ? this.values.get(key) : fallback) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
  }
}

describe("extension: tinker-cookbook runs in the Runs and Checkpoints views", () => {
  let ws: string;
  let run: CookbookFixture;
  before(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-cookbook-views-"));
    run = writeCookbookRun(join(ws, "cookbook", "math-rl"), { steps: 5, saveEvery: 2 });
    mkdirSync(join(ws, "runs", "val-base"), { recursive: true });
    writeFileSync(join(ws, "runs", "val-base", "episodes.jsonl"), "");
  });
  after(() => rmSync(ws, { recursive: true, force: true }));

  it("lists the cookbook folder as a training run with steps and last reward", () => {
    const rows = listRunRows(join(ws, "runs"), new Set(), [run.dir]);
    const row = rows.find((r) => r.source === "cookbook")!;
    assert.equal(row.kind, "training");
    assert.equal(row.name, "cookbook/math-rl");
    assert.equal(row.description, `cookbook rl · step 4 · reward ${run.rewards[4].toFixed(3)} · 3 checkpoints`);
    assert.match(row.tooltip, /model Qwen\/Qwen3-8B/);
    assert.ok(
      rows.some((r) => r.name === "val-base"),
      "Agent Lab's own runs stay",
    );
  });

  it("gives its checkpoints as entries with sampler and state paths and a valid eval run name", () => {
    const entries = cookbookCheckpointEntries(run.dir);
    assert.deepEqual(
      entries.map((e) => [e.name, e.step, e.kind]),
      [
        ["cookbook-math-rl-000002", 2, "cookbook"],
        ["cookbook-math-rl-000004", 4, "cookbook"],
        ["cookbook-math-rl-final", 5, "cookbook (final)"],
      ],
    );
    for (const e of entries) assert.doesNotThrow(() => checkRunName(e.name));
    const [row] = checkpointRows({ entries: entries.slice(2), badLines: [] });
    assert.deepEqual(row.details.slice(0, 2), [
      { label: "sampler", value: "tinker://run-cb/sampler_weights/final" },
      { label: "state", value: "tinker://run-cb/weights/final" },
    ]);
    assert.match(row.details[2].value, /^Qwen\/Qwen3-8B → cookbook-math-rl-final$/);
  });

  it("finds folders in the workspace, keeps added ones, refuses a folder that is not a log_path", async () => {
    const outside = mkdtempSync(join(tmpdir(), "agent-lab-cookbook-outside-"));
    try {
      const elsewhere = writeCookbookRun(join(outside, "sft-run"), { steps: 2 });
      const workspace = { folder: ws } as unknown as LabWorkspace;
      const runs = new CookbookRuns(workspace, new MemoryMemento());
      assert.deepEqual(runs.dirs(), [run.dir]);
      await runs.add(elsewhere.dir);
      assert.deepEqual(runs.dirs(), [elsewhere.dir, run.dir]);
      await assert.rejects(runs.add(join(ws, "runs")), /is not a tinker-cookbook log folder: pick the log_path folder/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
