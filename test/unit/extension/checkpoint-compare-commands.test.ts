/**
 * The Checkpoints sidebar's commands, with the recorded vscode stand-in on a workspace made
 * by the real steps (checkpoint-evals-fixture.ts: grpo-b-s2 has no val eval): one confirmation that
 * names the checkpoint and the summed estimate, nothing started when declined, and on Start the
 * eval Evaluate on Val starts for it (its sampler path, the training run's environment, on val);
 * Compare Selected of training runs shows them in the sidebar, of checkpoints ticks them there and
 * names any without a matched eval instead of comparing.
 */
import { strict as assert } from "node:assert";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installFakeVscode, recorded } from "./fake-vscode";
import type { RecordingLab } from "./recording-lab";
import { requireSharedData } from "../../helpers/shared-data";
import { buildEvalWorld, type EvalWorld } from "../core/views/trace/checkpoint-evals-fixture";
import { readRegistry, registryPath } from "../../../src/core/base/checkpoints/registry";

installFakeVscode();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { recordingLab } = require("./recording-lab") as typeof import("./recording-lab");

describe("extension: Evaluate missing and Compare Selected (stand-in vscode)", function () {
  this.timeout(180_000);
  let w: EvalWorld;
  let lab: RecordingLab;
  const run = (id: string, ...args: unknown[]) => recorded.registeredCommands.get(id)!(...args) as Promise<void>;

  before(async function () {
    const dev = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    const train = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    w = await buildEvalWorld(dev, train);
    // The rest of what prepare writes, present so the data check lets the command ask on (the fixture writes what the steps read).
    for (const f of ["train.jsonl", "test.jsonl", "corpus.jsonl", "splits.json"])
      if (!existsSync(join(w.world.root, "data", f))) writeFileSync(join(w.world.root, "data", f), "");
  });
  after(async () => w?.world.close());
  beforeEach(() => {
    lab = recordingLab(w.world.root, { backend: "tinker", budgetUsd: 5 });
  });
  afterEach(() => lab?.dispose());

  it("one confirmation naming each checkpoint with the summed estimate; Start runs Evaluate on Val's eval", async () => {
    for (const answer of [undefined, "Start"]) {
      recorded.answer = (text) => (/^Evaluate 1 checkpoint on val/.test(text) ? answer : undefined);
      await run("agentLab.evaluateMissingCheckpoints");
    }
    const confirms = recorded.messages.filter((m) => m.level === "warning");
    assert.equal(confirms.length, 2, confirms.map((m) => m.text).join("\n"));
    assert.match(
      confirms[0].text,
      /^Evaluate 1 checkpoint on val \(grpo-b-s2\) bills your Tinker account: about \$\S+ in all \(upper bound; .+\)\. The budget cap of \$5\.00/,
    );
    assert.deepEqual(confirms[0].actions, ["Start"]);
    await new Promise((r) => setTimeout(r, 50)); // the evals start one after another, after the command returns
    assert.equal(lab.started.length, 1, "declined once, started once");
    const sampler = readRegistry(registryPath(w.runsDir)).find((e) => e.name === "grpo-b-s2")!.sampler_path;
    assert.deepEqual(lab.started[0].command, [
      "eval",
      "--name",
      "grpo-b-s2",
      "--env",
      "hotpotqa",
      "--split",
      "val",
      "--model-path",
      sampler,
      "--backend",
      "tinker",
    ]);
    assert.equal(lab.started[0].spendsMoney, true);
  });

  it("Compare Selected: training runs become the sidebar's runs; checkpoints without a matched eval are named, not compared", async () => {
    recorded.commands.length = 0;
    await run("agentLab.compareSelectedRuns", "grpo-b", ["grpo-b", "grpo-a"]);
    const sidebar = lab.lab.checkpointsSidebar;
    assert.deepEqual([...sidebar.chosenRuns], ["grpo-b", "grpo-a"]);
    assert.ok(recorded.commands.some((c) => c.id === "agentLab.checkpointsCompare.focus"));
    recorded.messages.length = 0;
    await run("agentLab.compareSelectedCheckpoints", "grpo-a-s1", ["grpo-a-s1", "grpo-b-s2"]);
    assert.deepEqual([...sidebar.selectedCheckpoints], ["grpo-a-s1", "grpo-b-s2"], "ticked in the sidebar");
    assert.deepEqual([...sidebar.chosenRuns], ["grpo-a", "grpo-b"], "their runs shown");
    const warned = recorded.messages.filter((m) => m.level === "warning").map((m) => m.text);
    assert.deepEqual(warned, [
      "Agent Lab: grpo-b-s2 has no val eval with the training run's settings: Evaluate missing in the Checkpoints sidebar first.",
    ]);
    await run("agentLab.compareSelectedCheckpoints", "grpo-a-s1", ["grpo-a-s1"]);
    assert.match(recorded.messages.at(-1)!.text, /^Agent Lab: select two or more checkpoints to compare/);
  });
});
