/** The checkpoint registry (runs/checkpoints.jsonl) and `agent-lab ckpt`. */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  appendRegistry,
  findCheckpoint,
  readRegistry,
  registerOnce,
  registryPath,
  resolveCheckpointPath,
  type CheckpointEntry,
} from "../../../../../src/core/base/checkpoints/registry";
import { run as ckpt } from "../../../../../src/cli/ckpt";
import { capturedOutput } from "../data/helpers";

function entry(name: string, n: number, parent: string | null = null): CheckpointEntry {
  return {
    name,
    sampler_path: `tinker://run-${n}:train:0/sampler_weights/${name}`,
    state_path: `tinker://run-${n}:train:0/weights/${name}-state`,
    base_model: "Qwen/Qwen3.5-4B",
    parent,
    data_hash: "sha256:abc",
    step: n,
    epoch: n,
    run: "runs/sft",
    kind: "sft",
    created: "2026-11-29T00:00:00.000Z",
  };
}

describe("checkpoints: registry and agent-lab ckpt", () => {
  let ws: string;
  let file: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-registry-"));
    file = registryPath(join(ws, "runs"));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it("round-trips entries; the later entry with a name wins", () => {
    assert.deepEqual(readRegistry(file), [], "no file yet = no checkpoints");
    appendRegistry(file, entry("sft-e1", 1));
    appendRegistry(file, entry("sft-e2", 2, "sft-e1"));
    appendRegistry(file, entry("sft-e1", 3));
    const all = readRegistry(file);
    assert.equal(all.length, 3);
    assert.deepEqual(all[1], entry("sft-e2", 2, "sft-e1"));
    assert.equal(findCheckpoint(all, "sft-e1")!.step, 3);
    assert.equal(resolveCheckpointPath(join(ws, "runs"), "sft-e1", "state"), entry("sft-e1", 3).state_path);
    assert.equal(
      resolveCheckpointPath(join(ws, "runs"), "tinker://x/weights/y", "state"),
      "tinker://x/weights/y",
      "paths pass through",
    );
  });

  it("tolerates a torn last line, cuts it before the next append, and never registers the same checkpoint twice", () => {
    appendRegistry(file, entry("a", 1));
    appendFileSync(file, '{"name": "b", "sampler_pa'); // what kill -9 mid-write leaves
    assert.deepEqual(
      readRegistry(file).map((e) => e.name),
      ["a"],
    );
    assert.equal(registerOnce(file, entry("b", 2)), true);
    assert.equal(registerOnce(file, entry("b", 2)), false, "a resumed run re-registering");
    assert.deepEqual(
      readRegistry(file).map((e) => e.name),
      ["a", "b"],
    );
    assert.ok(
      readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .every((l) => JSON.parse(l)),
      "every line whole",
    );
    writeFileSync(file, readFileSync(file, "utf8") + "not json\n" + JSON.stringify(entry("c", 3)) + "\n");
    assert.throws(
      () => readRegistry(file),
      /checkpoints\.jsonl:3: not valid JSON/,
      "a bad line in the middle names file:line",
    );
  });

  it("agent-lab ckpt prints the sampler or state path; an unknown name lists the known ones", async () => {
    appendRegistry(file, entry("sft-e1", 1));
    appendRegistry(file, entry("grpo-s10", 10, "sft-e1"));
    const args = (...a: string[]) => [...a, "--workspace", ws];
    assert.equal((await capturedOutput(() => ckpt(args("sft-e1")))).out, entry("sft-e1", 1).sampler_path);
    assert.equal((await capturedOutput(() => ckpt(args("grpo-s10", "state")))).out, entry("grpo-s10", 10).state_path);
    await assert.rejects(
      ckpt(args("sft-e9")),
      /no checkpoint named "sft-e9" in .*checkpoints\.jsonl; known names: sft-e1, grpo-s10/,
    );
    await assert.rejects(ckpt(args("sft-e1", "weights")), /must be "sampler" or "state"/);
    const listed = (await capturedOutput(() => ckpt(args("--list")))).out.split("\n");
    assert.equal(listed.length, 2);
    assert.match(listed[1], /^grpo-s10\tsft\tstep 10\tparent sft-e1\ttinker:/);
  });

  it("an empty registry says how checkpoints get there", async () => {
    await assert.rejects(
      ckpt(["sft-e1", "--workspace", ws]),
      /has no checkpoints yet \(train-sft or train-grpo add them\)/,
    );
  });
});
