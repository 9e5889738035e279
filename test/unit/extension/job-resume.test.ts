/** Resume's command, from the real step specs: --resume only where the step declares it, every argument kept. */
import { strict as assert } from "node:assert";
import { resumeCommand } from "../../../src/extension/jobs/job-resume";

describe("extension: resuming a stopped job", () => {
  it("adds the step's --resume where its spec has one (eval, sft-data, train-sft, train-grpo)", () => {
    for (const step of ["eval", "sft-data", "train-sft", "train-grpo"]) {
      assert.deepEqual(resumeCommand([step, "--name", "r1", "--limit", "5"]), [
        step,
        "--name",
        "r1",
        "--limit",
        "5",
        "--resume",
      ]);
    }
  });

  it("keeps a command that already resumes, and puts the flag before positionals", () => {
    assert.deepEqual(resumeCommand(["eval", "--resume", "--name", "r1"]), ["eval", "--resume", "--name", "r1"]);
    assert.deepEqual(resumeCommand(["eval", "--name", "r1", "--", "x"]), [
      "eval",
      "--name",
      "r1",
      "--resume",
      "--",
      "x",
    ]);
  });

  it("reruns unchanged a step without one (its rerun continues) and an unknown command", () => {
    const pipeline = ["pipeline", "--dir", ".", "--env", "gsm8k", "--size", "smoke"];
    assert.deepEqual(resumeCommand(pipeline), pipeline);
    assert.deepEqual(resumeCommand(["experiment", "--yes", "--", "run", "spec.json"]), [
      "experiment",
      "--yes",
      "--",
      "run",
      "spec.json",
    ]);
    assert.deepEqual(resumeCommand(["nope", "--x"]), ["nope", "--x"]);
  });
});
