import { strict as assert } from "node:assert";
import { UserError } from "../../../src/core/base/errors";
import {
  EVAL_STEP,
  PIPELINE_STEP,
  PREPARE_STEP,
  SCORE_STEP,
  SEARCH_STEP,
  SERVE_LOCAL_STEP,
  SFT_DATA_STEP,
  TRAIN_GRPO_STEP,
  TRAIN_SFT_STEP,
} from "../../../src/core/steps/catalog/catalog";
import { TEST_SPLIT_FLAG } from "../../../src/core/steps/specs/common-flags";
import { parseFlags } from "../../../src/core/steps/specs/flags";
import {
  defaultEvalName,
  evalValues,
  prepareValues,
  sanitizeRunName,
  sftDataValues,
  stepArgs,
  trainingBackend,
  uniqueRunName,
} from "../../../src/extension/commands/cli-args";

describe("extension: CLI arguments from the step specs", () => {
  it("eval: the spec's flag names; the test split carries the CLI's own flag", () => {
    assert.deepEqual(stepArgs(EVAL_STEP, evalValues({ name: "base", split: "val", backend: "tinker" })), [
      "eval",
      "--name",
      "base",
      "--split",
      "val",
      "--backend",
      "tinker",
    ]);
    assert.deepEqual(
      stepArgs(
        EVAL_STEP,
        evalValues({
          name: "test-grpo",
          split: "test",
          backend: "tinker",
          limit: 50,
          "model-path": "tinker://r/sampler_weights/grpo-s30",
          prompt: "prompts/system.md",
          "closed-book": true,
          resume: true,
        }),
      ),
      [
        "eval",
        "--name",
        "test-grpo",
        "--split",
        "test",
        "--backend",
        "tinker",
        "--limit",
        "50",
        "--model-path",
        "tinker://r/sampler_weights/grpo-s30",
        "--prompt",
        "prompts/system.md",
        "--closed-book",
        "--resume",
        TEST_SPLIT_FLAG,
      ],
    );
  });

  it("what the extension builds, the CLI's parser reads back to the same values", () => {
    const values = evalValues({ name: "b", split: "test", backend: "local", limit: 7, "closed-book": true });
    const parsed = parseFlags(EVAL_STEP.flags, stepArgs(EVAL_STEP, values).slice(1), { command: "agent-lab eval" });
    for (const [k, v] of Object.entries(values)) assert.deepEqual(parsed.values[k as keyof typeof parsed.values], v, k);
  });

  it("a value the CLI would refuse is refused here, with the CLI's message (flag and range)", () => {
    assert.throws(
      () => stepArgs(EVAL_STEP, { name: "b", limit: 0 }),
      (e: Error) => e instanceof UserError && /^--limit must be an integer in \[1, 100000\], got "0"$/.test(e.message),
    );
    assert.throws(
      () => stepArgs(TRAIN_SFT_STEP, { data: "d", epochs: Number.NaN }),
      /--epochs must be an integer in \[1, 1000\]/,
    );
    assert.throws(() => stepArgs(EVAL_STEP, { name: "b", split: "dev" }), /--split must be one of val, test, train/);
    assert.throws(() => stepArgs(TRAIN_SFT_STEP, { data: "d", budget: -5 }), /--budget must be a number ≥ 0 \(USD\)/);
  });

  it("every other step", () => {
    assert.deepEqual(stepArgs(PREPARE_STEP, prepareValues("hotpotqa")), ["prepare", "--env", "hotpotqa", "--hub"]);
    assert.deepEqual(
      stepArgs(PREPARE_STEP, prepareValues("hotpotqa", { train: ["a.json", "b.json"], dev: ["d.parquet"] })),
      ["prepare", "--env", "hotpotqa", "--train", "a.json", "--train", "b.json", "--dev", "d.parquet"],
    );
    assert.deepEqual(
      stepArgs(PREPARE_STEP, prepareValues("gsm8k", { train: ["t.jsonl"], test: ["s.parquet"], dev: [] })),
      ["prepare", "--env", "gsm8k", "--train", "t.jsonl", "--test", "s.parquet"],
    );
    assert.deepEqual(
      stepArgs(SEARCH_STEP, {}, ["-weird query"]),
      ["search", "--", "-weird query"],
      "a query starting with - stays a query",
    );
    assert.deepEqual(stepArgs(SEARCH_STEP, { k: 5 }, ["Ed Wood"]), ["search", "--k", "5", "--", "Ed Wood"]);
    assert.deepEqual(
      stepArgs(SFT_DATA_STEP, sftDataValues({ name: "sft-data", backend: "tinker", questions: 1500, tries: 4 })),
      ["sft-data", "--name", "sft-data", "--backend", "tinker", "--questions", "1500", "--tries", "4"],
    );
    assert.deepEqual(
      stepArgs(
        SFT_DATA_STEP,
        sftDataValues({
          name: "t",
          backend: "tinker",
          questions: 10,
          tries: 1,
          teacher: "scripted",
          "model-path": "tinker://x",
        }),
      ),
      ["sft-data", "--name", "t", "--questions", "10", "--tries", "1", "--teacher", "scripted"],
      "a teacher replaces --backend (the CLI refuses both)",
    );
    assert.equal(trainingBackend("scripted"), "local", "sampling-only backends train on the local stand-in");
    assert.equal(trainingBackend("tinker"), "tinker");
    assert.deepEqual(
      stepArgs(TRAIN_SFT_STEP, { name: "sft", backend: "local", data: "runs/sft-data/sft.jsonl", epochs: 3 }),
      ["train-sft", "--name", "sft", "--backend", "local", "--data", "runs/sft-data/sft.jsonl", "--epochs", "3"],
    );
    assert.deepEqual(
      stepArgs(TRAIN_GRPO_STEP, { name: "grpo", backend: "tinker", "init-state": "sft-e2", steps: 30, offset: 2460 }),
      [
        "train-grpo",
        "--name",
        "grpo",
        "--backend",
        "tinker",
        "--init-state",
        "sft-e2",
        "--steps",
        "30",
        "--offset",
        "2460",
      ],
    );
    assert.deepEqual(stepArgs(PIPELINE_STEP, { dir: ".", backend: "local" }), [
      "pipeline",
      "--dir",
      ".",
      "--backend",
      "local",
    ]);
    assert.deepEqual(stepArgs(SERVE_LOCAL_STEP, { port: 8765 }), ["serve-local", "--port", "8765"]);
    assert.deepEqual(stepArgs(SCORE_STEP, {}, ["/w/runs/base"]), ["score", "--", "/w/runs/base"]);
  });

  it("an unknown flag is a programming error, not a silent drop", () => {
    assert.throws(() => stepArgs(EVAL_STEP, { nope: 1 } as never), /agent-lab eval has no flag --nope/);
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
