/** What still needs a checkpoint: a registered child, or a run folder whose manifest starts from it. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkpointDependents, describeDependents } from "../../../../../src/core/base/checkpoints/dependents";
import type { CheckpointEntry } from "../../../../../src/core/base/checkpoints/registry";

const entry = (name: string, parent: string | null, run: string): CheckpointEntry => ({
  name,
  sampler_path: `tinker://${name}/sampler_weights/x`,
  state_path: `tinker://${name}/weights/x`,
  base_model: "m",
  parent,
  data_hash: "h",
  step: 1,
  run,
  kind: "sft",
  created: "",
});

describe("core/base/checkpoints/dependents", () => {
  let ws: string;
  before(() => {
    ws = mkdtempSync(join(tmpdir(), "dependents-"));
    const manifest = (run: string, value: Record<string, unknown>) => {
      mkdirSync(join(ws, "runs", run), { recursive: true });
      writeFileSync(join(ws, "runs", run, "manifest.json"), JSON.stringify(value));
    };
    manifest("sft", { kind: "sft", init_state: null });
    manifest("grpo", { kind: "grpo", init_state: "tinker://sft-e1/weights/x", parent: "sft-e1" });
    manifest("exp/arm-a", { kind: "grpo", parent: "sft-e2" });
    writeFileSync(join(ws, "runs", "broken.json"), "{");
  });
  after(() => rmSync(ws, { recursive: true, force: true }));

  it("names registered children and run folders (nested ones too) that start from it, not its own run", () => {
    const entries = [
      entry("sft-e1", null, "runs/sft"),
      entry("sft-e2", null, "runs/sft"),
      entry("grpo-s1", "sft-e1", "runs/grpo"),
    ];
    const e1 = entries[0];
    const deps = checkpointDependents(join(ws, "runs"), entries, {
      name: "sft-e1",
      paths: [e1.state_path, e1.sampler_path],
      run: e1.run,
    });
    assert.equal(
      describeDependents(deps),
      "grpo-s1 (was trained from it), runs/grpo (starts from it (manifest.json init_state))",
    );
    const e2 = entries[1];
    assert.deepEqual(
      checkpointDependents(join(ws, "runs"), entries, { name: "sft-e2", paths: [e2.state_path], run: e2.run }),
      [{ who: "runs/exp/arm-a", why: "starts from it (manifest.json parent)" }],
    );
    const g = entries[2];
    assert.deepEqual(
      checkpointDependents(join(ws, "runs"), entries, { name: "grpo-s1", paths: [g.state_path], run: g.run }),
      [],
    );
  });
});
