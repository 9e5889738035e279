import { strict as assert } from "node:assert";
import { checkpointRows, lineage, parseCheckpointRegistry } from "../../../src/extension/checkpoints/checkpoints-model";

const line = (o: object) => JSON.stringify(o);
const REGISTRY = [
  line({
    name: "sft-e1",
    kind: "sft",
    step: 47,
    epoch: 1,
    base_model: "Qwen/Qwen3.5-4B",
    sampler_path: "tinker://run-1/sampler_weights/sft-e1",
    state_path: "tinker://run-1/weights/sft-e1",
    data_hash: "sha256:ab12",
    run: "sft",
  }),
  line({
    name: "sft-e2",
    kind: "sft",
    step: 94,
    epoch: 2,
    base_model: "Qwen/Qwen3.5-4B",
    sampler_path: "tinker://run-1/sampler_weights/sft-e2",
    state_path: "tinker://run-1/weights/sft-e2",
    data_hash: "sha256:ab12",
    run: "sft",
  }),
  "{not json",
  line({ kind: "grpo" }),
  line({
    name: "grpo-s10",
    kind: "grpo",
    step: 10,
    base_model: "Qwen/Qwen3.5-4B",
    parent: "tinker://run-1/weights/sft-e2",
    sampler_path: "tinker://run-2/sampler_weights/grpo-s10",
    state_path: "tinker://run-2/weights/grpo-s10",
    data_hash: "train[1500:1820)",
    run: "grpo",
  }),
  line({
    name: "grpo2-s5",
    kind: "grpo",
    step: 5,
    parent: "grpo-s10",
    sampler_path: "tinker://run-3/sampler_weights/grpo2-s5",
  }),
  line({
    name: "sft-e1",
    kind: "sft",
    step: 47,
    epoch: 1,
    base_model: "Qwen/Qwen3.5-4B",
    sampler_path: "tinker://run-1b/sampler_weights/sft-e1",
    state_path: "tinker://run-1b/weights/sft-e1",
    run: "sft",
  }),
  '{"name": "torn-tail", "sampler_pa',
].join("\n");

describe("extension: Checkpoints view model (registry read tolerantly)", () => {
  it("skips bad and torn lines by number; a later entry with the same name wins", () => {
    const reg = parseCheckpointRegistry(REGISTRY);
    assert.deepEqual(reg.badLines, [3, 4, 8]);
    assert.deepEqual(
      reg.entries.map((e) => e.name),
      ["sft-e2", "grpo-s10", "grpo2-s5", "sft-e1"],
    );
    assert.equal(reg.entries.find((e) => e.name === "sft-e1")!.sampler_path, "tinker://run-1b/sampler_weights/sft-e1");
  });

  it("lineage follows parents by name or by state path back to the base model", () => {
    const reg = parseCheckpointRegistry(REGISTRY);
    const by = (n: string) => reg.entries.find((e) => e.name === n)!;
    assert.deepEqual(lineage(by("grpo2-s5"), reg.entries), ["Qwen/Qwen3.5-4B", "sft-e2", "grpo-s10", "grpo2-s5"]);
    assert.deepEqual(lineage(by("sft-e2"), reg.entries), ["Qwen/Qwen3.5-4B", "sft-e2"]);
    // An unknown parent is shown as written; a cycle stops.
    assert.deepEqual(lineage({ name: "x", parent: "tinker://elsewhere/weights/y" }, []), [
      "tinker://elsewhere/weights/y",
      "x",
    ]);
    const cyc = [
      { name: "a", parent: "b" },
      { name: "b", parent: "a" },
    ];
    assert.deepEqual(lineage(cyc[0], cyc), ["b", "a"]);
  });

  it("rows: newest first, step/kind in the description, paths, lineage and data hash as details", () => {
    const rows = checkpointRows(parseCheckpointRegistry(REGISTRY));
    assert.deepEqual(
      rows.map((r) => r.label),
      ["sft-e1", "grpo2-s5", "grpo-s10", "sft-e2"],
    );
    const g = rows.find((r) => r.label === "grpo-s10")!;
    assert.equal(g.description, "grpo · step 10");
    assert.deepEqual(
      g.details.map((d) => `${d.label}=${d.value}`),
      [
        "sampler=tinker://run-2/sampler_weights/grpo-s10",
        "state=tinker://run-2/weights/grpo-s10",
        "lineage=Qwen/Qwen3.5-4B → sft-e2 → grpo-s10",
        "data=train[1500:1820)",
        "run=grpo",
      ],
    );
    assert.equal(rows.find((r) => r.label === "sft-e1")!.description, "sft · step 47 · epoch 1");
    assert.deepEqual(checkpointRows(parseCheckpointRegistry("")), []);
  });
});
