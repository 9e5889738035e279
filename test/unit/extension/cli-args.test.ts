import { strict as assert } from "node:assert";
import {
  defaultEvalName,
  evalArgs,
  prepareArgs,
  searchArgs,
  sftDataArgs,
  trainGrpoArgs,
  trainSftArgs,
  uniqueRunName,
  sanitizeRunName,
  offlinePipelineArgs,
  serveLocalArgs,
  rescoreArgs,
} from "../../../src/extension/commands/cli-args";

describe("extension: CLI arguments from quick-pick choices", () => {
  it("eval: split, backend, closed-book, limit, checkpoint, prompt, resume; test split carries the CLI's flag", () => {
    assert.deepEqual(evalArgs({ name: "base", split: "val", backend: "tinker" }), ["eval", "--name", "base", "--split", "val", "--backend", "tinker"]);
    assert.deepEqual(
      evalArgs({ name: "test-grpo", split: "test", backend: "tinker", limit: 50, modelPath: "tinker://r/sampler_weights/grpo-s30", promptFile: "prompts/system.md", closedBook: true, resume: true }),
      ["eval", "--name", "test-grpo", "--split", "test", "--backend", "tinker", "--i-know-this-is-test", "--closed-book", "--limit", "50", "--model-path", "tinker://r/sampler_weights/grpo-s30", "--prompt", "prompts/system.md", "--resume"],
    );
  });

  it("eval of another priced base model passes --model", () => {
    assert.deepEqual(evalArgs({ name: "b", split: "val", backend: "tinker", model: "Qwen/Qwen3-8B" }).slice(-2), ["--model", "Qwen/Qwen3-8B"]);
  });

  it("every other step", () => {
    assert.deepEqual(prepareArgs(), ["prepare", "--hub"]);
    assert.deepEqual(prepareArgs({ trainFiles: ["a.json", "b.json"], devFiles: ["d.parquet"] }), ["prepare", "--train", "a.json", "--train", "b.json", "--dev", "d.parquet"]);
    assert.deepEqual(searchArgs("-weird query"), ["search", "--", "-weird query"], "a query starting with - stays a query");
    assert.deepEqual(searchArgs("Ed Wood", 5), ["search", "-k", "5", "--", "Ed Wood"]);
    assert.deepEqual(sftDataArgs({ name: "sft-data", backend: "tinker", questions: 1500, tries: 4 }), ["sft-data", "--name", "sft-data", "--backend", "tinker", "--questions", "1500", "--tries", "4"]);
    assert.deepEqual(sftDataArgs({ name: "t", backend: "tinker", questions: 10, tries: 1, teacher: "scripted", modelPath: "tinker://x" }), ["sft-data", "--name", "t", "--teacher", "scripted", "--questions", "10", "--tries", "1"], "a teacher replaces --backend (the CLI refuses both)");
    assert.deepEqual(trainSftArgs({ name: "s", backend: "scripted", data: "d", epochs: 1 }).slice(3, 5), ["--backend", "local"], "sampling-only backends train on the local stand-in");
    assert.deepEqual(trainSftArgs({ name: "sft", backend: "local", data: "runs/sft-data/sft.jsonl", epochs: 3 }), ["train-sft", "--name", "sft", "--backend", "local", "--data", "runs/sft-data/sft.jsonl", "--epochs", "3"]);
    assert.deepEqual(trainGrpoArgs({ name: "grpo", backend: "tinker", initState: "sft-e2", steps: 30, offset: 2460 }), ["train-grpo", "--name", "grpo", "--backend", "tinker", "--init-state", "sft-e2", "--steps", "30", "--offset", "2460"]);
    assert.deepEqual(offlinePipelineArgs("agent-lab-pipeline"), ["pipeline", "--dir", "agent-lab-pipeline", "--backend", "local"]);
    assert.deepEqual(serveLocalArgs(8765), ["serve-local", "--port", "8765"]);
    assert.deepEqual(rescoreArgs("/w/runs/base"), ["score", "/w/runs/base"]);
  });

  it("no builder can carry a key: none takes one, and a key-shaped value never appears by accident", () => {
    const all = [
      evalArgs({ name: "n", split: "val", backend: "tinker" }),
      sftDataArgs({ name: "n", backend: "tinker", questions: 1, tries: 1 }),
      trainSftArgs({ name: "n", backend: "tinker", data: "d", epochs: 1 }),
      trainGrpoArgs({ name: "n", backend: "tinker", initState: "s", steps: 1 }),
    ].flat();
    assert.ok(!all.some((a) => /api-key|tml-|TINKER_API_KEY/i.test(a)));
  });

  it("run names: the recipe's defaults, a safe alphabet, never an existing folder", () => {
    assert.equal(defaultEvalName("val", false), "base");
    assert.equal(defaultEvalName("val", true), "closed");
    assert.equal(defaultEvalName("val", false, "sft-e2"), "sft-e2");
    assert.equal(defaultEvalName("test", false, "grpo-s30"), "test-grpo-s30");
    assert.equal(sanitizeRunName(" my run/x "), "my-run-x", "spaces and slashes become dashes");
    assert.equal(sanitizeRunName("../../etc"), "etc");
    assert.equal(uniqueRunName("base", new Set(["base", "base-2"])), "base-3");
    assert.equal(uniqueRunName("", new Set()), "run");
  });
});
