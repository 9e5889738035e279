/**
 * `--dry-run` of the steps that can spend prints the one estimator's text (what the extension
 * confirms) and writes nothing; with a free backend it says so.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../../../src/cli/run-command";
import { loadConfig } from "../../../src/core/envs/config";
import { EVAL_STEP, SFT_DATA_STEP, TRAIN_GRPO_STEP, TRAIN_SFT_STEP } from "../../../src/core/steps/catalog/catalog";
import { dryRunText } from "../../../src/core/steps/specs/estimate";
import { estimateStep } from "../../../src/core/steps/specs/estimate-context";
import { parseFlags, withConfigDefaults, type FlagSpecs } from "../../../src/core/steps/specs/flags";
import type { StepSpec } from "../../../src/core/steps/specs/spec";
import { folderSnapshot } from "../../helpers/folder-snapshot";
import { capturedOutput } from "../core/base/data/helpers";

describe("--dry-run prints the shared estimate", () => {
  let ws: string;
  before(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-dry-run-"));
    mkdirSync(join(ws, "data"));
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ budgetUsd: 3 }));
    const q = (i: number) =>
      JSON.stringify({ id: `q${i}`, question: `Who ${i}?`, answers: ["x"], type: "bridge", level: "easy" });
    writeFileSync(join(ws, "data", "val.jsonl"), [0, 1, 2, 3, 4].map(q).join("\n") + "\n");
    writeFileSync(
      join(ws, "sft.jsonl"),
      [0, 1, 2]
        .map((i) => JSON.stringify({ id: `q${i}`, prompt: [1], tokens: [2], sampled: [1], logprobs: null }))
        .join("\n") + "\n",
    );
  });
  after(() => rmSync(ws, { recursive: true, force: true }));

  const cases: [StepSpec<FlagSpecs>, string[]][] = [
    [EVAL_STEP as unknown as StepSpec<FlagSpecs>, ["--name", "x", "--backend", "tinker"]],
    [SFT_DATA_STEP as unknown as StepSpec<FlagSpecs>, ["--questions", "10", "--tries", "2"]],
    [TRAIN_SFT_STEP as unknown as StepSpec<FlagSpecs>, ["--data", "sft.jsonl", "--epochs", "2"]],
    [TRAIN_GRPO_STEP as unknown as StepSpec<FlagSpecs>, ["--steps", "2", "--questions", "4", "--group", "2"]],
  ];
  for (const [step, flags] of cases) {
    it(`agent-lab ${step.name} --dry-run`, async () => {
      const argv = [...flags, "--dry-run", "--workspace", ws];
      const config = loadConfig(ws);
      const values = withConfigDefaults(
        step.flags,
        parseFlags(step.flags, argv, { command: step.name }).values,
        config,
      );
      const estimate = estimateStep(step, values, config, ws);
      assert.ok(estimate && estimate.usd > 0, "a tinker run has a cost");
      const before = folderSnapshot(ws);
      let code = -1;
      const { out, err } = await capturedOutput(async () => void (code = await runCommand([step.name, ...argv], {})));
      assert.equal(code, 0, err);
      assert.equal(out, dryRunText(step.name, estimate, 3));
      assert.match(
        out,
        new RegExp(`^agent-lab ${step.name} would cost about \\$[\\d.]+ \\(upper bound; budget cap \\$3\\.00\\): `),
      );
      assert.deepEqual(folderSnapshot(ws), before, "a dry run writes nothing");
    });
  }

  it("a free backend says it spends nothing", async () => {
    const { out } = await capturedOutput(
      async () => void (await runCommand(["eval", "--name", "x", "--dry-run", "--workspace", ws], {})),
    );
    assert.equal(out, "agent-lab eval with these options spends nothing (no Tinker backend)");
  });
});
