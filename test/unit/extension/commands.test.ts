/**
 * Command glue with the recorded vscode stand-in: quick picks and input boxes are answered by the
 * test, jobs are captured instead of spawned. Checks what each choice turns into (CLI argv, run
 * folder) and that anything billed to Tinker shows its estimate and starts only after "Start".
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installFakeVscode, recorded } from "./fake-vscode";
import type { RecordingLab } from "./recording-lab";
import { requireSharedData } from "../../helpers/shared-data";
import { formatUsd } from "../../../src/core/steps/specs/estimate";

installFakeVscode();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { recordingLab } = require("./recording-lab") as typeof import("./recording-lab");
/* eslint-disable @typescript-eslint/no-require-imports */
const { LabWorkspace } =
  require("../../../src/extension/workspace/lab-workspace") as typeof import("../../../src/extension/workspace/lab-workspace");
const { CheckpointsProvider } =
  require("../../../src/extension/checkpoints/checkpoints-provider") as typeof import("../../../src/extension/checkpoints/checkpoints-provider");
const { pipelineEnvironmentItems } =
  require("../../../src/extension/commands/pipeline-commands") as typeof import("../../../src/extension/commands/pipeline-commands");
/* eslint-enable @typescript-eslint/no-require-imports */
import { PIPELINE_ENVIRONMENTS } from "../../../src/core/envs/catalog";
import type { JobRequest } from "../../../src/extension/jobs/job-runner";

describe("extension: commands → jobs (stand-in vscode)", () => {
  let ws: string;
  let started: JobRequest[];
  let lab: RecordingLab;
  const run = (id: string, ...args: unknown[]) => recorded.registeredCommands.get(id)!(...args) as Promise<void>;

  before(function () {
    const dev = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    ws = mkdtempSync(join(tmpdir(), "agent-lab-commands-"));
    mkdirSync(join(ws, "data"));
    // 50 real questions as the val split: the estimate counts them.
    writeFileSync(
      join(ws, "data", "val.jsonl"),
      readFileSync(dev, "utf8").split("\n").filter(Boolean).slice(0, 50).join("\n") + "\n",
    );
    // The rest of what prepare writes, present so the commands' data check lets them ask on (they count val only).
    for (const f of ["train.jsonl", "test.jsonl", "corpus.jsonl", "splits.json"])
      writeFileSync(join(ws, "data", f), "");
    mkdirSync(join(ws, "runs"));
    writeFileSync(
      join(ws, "runs", "checkpoints.jsonl"),
      JSON.stringify({
        name: "sft-e2",
        kind: "sft",
        step: 94,
        base_model: "Qwen/Qwen3.5-4B",
        sampler_path: "tinker://r1/sampler_weights/sft-e2",
        state_path: "tinker://r1/weights/sft-e2",
        parent: null,
      }) + "\n",
    );
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  beforeEach(() => {
    lab = recordingLab(ws);
    started = lab.started;
  });
  afterEach(() => {
    lab.dispose();
  });

  /** Picks by label (or description) in order of the pickers shown. */
  function answerPicks(...wanted: string[]): void {
    recorded.pick = (items) => {
      const w = wanted.shift();
      return items.find((i) => i.label === w || i.label.endsWith(` ${w}`) || i.description === w);
    };
  }

  it("Evaluate… on the free local backend: split, checkpoint, name, limit → eval argv; no confirmation", async () => {
    answerPicks("hotpotqa", "val", "sft-e2");
    const inputs = ["sft-e2", "20"];
    recorded.input = () => inputs.shift();
    await run("agentLab.evaluate");
    assert.equal(started.length, 1);
    assert.deepEqual(started[0].command, [
      "eval",
      "--name",
      "sft-e2",
      "--env",
      "hotpotqa",
      "--split",
      "val",
      "--limit",
      "20",
      "--model-path",
      "tinker://r1/sampler_weights/sft-e2",
      "--backend",
      "local",
    ]);
    assert.equal(started[0].runDir, join(ws, "runs", "sft-e2"));
    assert.equal(started[0].spendsMoney, false);
    assert.equal(recorded.inputsShown[0].value, "sft-e2", "the recipe's name for a checkpoint eval is suggested");
    assert.ok(!recorded.messages.some((m) => m.level === "warning"), "nothing to confirm");
  });

  it("Evaluate… on Tinker shows the estimate (questions × typical episode) and the budget cap, and starts only on Start", async () => {
    recorded.settings = { backend: "tinker", budgetUsd: 5 };
    for (const answer of [undefined, "Start"]) {
      answerPicks("hotpotqa", "val", "Qwen/Qwen3.5-4B");
      const inputs = ["base", ""];
      recorded.input = () => inputs.shift();
      recorded.answer = (text) => (/bills your Tinker account/.test(text) ? answer : undefined);
      await run("agentLab.evaluate");
    }
    const confirm = recorded.messages.filter((m) => m.level === "warning");
    assert.equal(confirm.length, 2);
    const each = (2000 * 0.33 + 80 * 1.005) / 1e6;
    assert.ok(confirm[0].text.includes(`about ${formatUsd(50 * each)} (upper bound). 50 questions ×`), confirm[0].text);
    assert.match(confirm[0].text, /budget cap of \$5\.00/);
    assert.deepEqual(confirm[0].actions, ["Start"]);
    assert.equal(started.length, 1, "declined once, started once");
    assert.deepEqual(started[0].command, [
      "eval",
      "--name",
      "base",
      "--env",
      "hotpotqa",
      "--split",
      "val",
      "--backend",
      "tinker",
    ]);
    assert.equal(started[0].spendsMoney, true);
    assert.ok(Math.abs(started[0].estimateUsd! - 50 * each) < 1e-9);
  });

  it("the test split needs an explicit yes, and then carries the CLI's flag", async () => {
    answerPicks("hotpotqa", "test", "Qwen/Qwen3.5-4B");
    recorded.answer = () => undefined; // "Open Test Split?" dismissed
    await run("agentLab.evaluate");
    assert.equal(started.length, 0);
    answerPicks("hotpotqa", "test", "Qwen/Qwen3.5-4B");
    recorded.answer = (text) => (/Open the test split/.test(text) ? "Open Test Split" : undefined);
    const inputs = ["test-base", ""];
    recorded.input = () => inputs.shift();
    await run("agentLab.evaluate");
    assert.deepEqual(started[0].command.slice(0, 10), [
      "eval",
      "--name",
      "test-base",
      "--env",
      "hotpotqa",
      "--split",
      "test",
      "--backend",
      "local",
      "--i-know-this-is-test",
    ]);
  });

  it("a run name that exists is refused by the input box", async () => {
    mkdirSync(join(ws, "runs", "closed"), { recursive: true });
    writeFileSync(
      join(ws, "runs", "closed", "summary.json"),
      JSON.stringify({
        n: 1,
        planned: 1,
        em: 0,
        f1: 0,
        searches_per_q: 0,
        answered: 1,
        ends: {},
        usd_per_q: 0,
        usd_total: 0,
        seconds: 0,
        status: "done",
        split: "val",
        model: "m",
        updated: "",
      }),
    );
    answerPicks("hotpotqa", "val");
    recorded.input = () => "closed";
    await run("agentLab.evaluateClosedBook");
    assert.equal(started.length, 0);
    assert.equal(recorded.inputsShown[0].value, "closed-2", "the suggestion avoids the taken name");
    assert.match(recorded.inputsShown[0].error!, /closed exists already/);
    rmSync(join(ws, "runs", "closed"), { recursive: true });
  });

  it("Continue GRPO from a checkpoint node → train-grpo from its state path; Train GRPO with tinker confirms first", async () => {
    const node = new CheckpointsProvider(new LabWorkspace()).getChildren()[0];
    const inputs = ["30", "grpo"];
    recorded.input = () => inputs.shift();
    answerPicks("hotpotqa");
    await run("agentLab.continueGrpo", node);
    assert.deepEqual(started[0].command, [
      "train-grpo",
      "--name",
      "grpo",
      "--env",
      "hotpotqa",
      "--backend",
      "local",
      "--init-state",
      "tinker://r1/weights/sft-e2",
      "--steps",
      "30",
    ]);
    recorded.settings = { backend: "tinker" };
    const again = ["30", "grpo-2"];
    recorded.input = () => again.shift();
    recorded.answer = () => undefined;
    answerPicks("hotpotqa");
    await run("agentLab.continueGrpo", node);
    assert.equal(started.length, 1, "not started without confirmation");
    assert.match(
      recorded.messages.find((m) => m.level === "warning")!.text,
      /Train GRPO on hotpotqa: grpo-2 bills your Tinker account: about \$\d+\.\d\d .*30 steps × 32 questions × 8 episodes/,
    );
  });

  it("Search Corpus… runs `search -- QUERY` with its output shown; Rescore runs `score RUN`", async () => {
    recorded.input = () => "Scott Derrickson nationality";
    await run("agentLab.searchCorpus");
    assert.deepEqual(started[0].command, ["search", "--", "Scott Derrickson nationality"]);
    assert.equal(started[0].revealOutput, true);
    await run("agentLab.rescoreRun", join(ws, "runs", "nope"));
    assert.equal(started.length, 1, "an unknown run starts nothing");
  });

  it("Run Offline Pipeline: the environment (the catalog's, the workspace default first), then the size from the pipeline spec's choices → `pipeline --dir . --env E --backend local --size S` in the workspace's own layout, Open Results at the end", async () => {
    const picks: string[][] = [];
    recorded.pick = (items) => {
      picks.push(items.map((i) => i.label));
      return items.find((i) => i.label === "gsm8k") ?? items.find((i) => i.label === "smoke");
    };
    await run("agentLab.runOfflinePipeline");
    assert.deepEqual(picks[0], [...PIPELINE_ENVIRONMENTS], "the catalog's, the default (hotpotqa) first");
    assert.deepEqual(picks[1], ["full", "smoke"], "the spec's default first");
    assert.equal(started.length, 1);
    assert.deepEqual(started[0].command, [
      "pipeline",
      "--dir",
      ".",
      "--env",
      "gsm8k",
      "--backend",
      "local",
      "--size",
      "smoke",
    ]);
    assert.equal(started[0].runDir, ws, "the pipeline's progress.json is in the folder it lays out");
    assert.equal(started[0].runsRoot, join(ws, "runs"));
    assert.deepEqual(started[0].finish, { title: "Open Results", command: "agentLab.openPipelineResults" });
    assert.equal(started[0].spendsMoney, false);
    assert.equal(started[0].revealOutput, undefined, "the Output panel opens only when the job fails");
    await run("agentLab.openPipelineResults");
    assert.match(recorded.messages.at(-1)!.text, /no pipeline results in this workspace yet/);
  });

  it("Run Offline Pipeline's environment pick puts the workspace's default first", () => {
    assert.deepEqual(
      pipelineEnvironmentItems("gsm8k").map((i) => i.env),
      ["gsm8k", ...PIPELINE_ENVIRONMENTS.filter((e) => e !== "gsm8k")],
    );
    assert.match(pipelineEnvironmentItems("gsm8k")[0].description, /default/);
    // A folder the pipeline made names its world: that world's environment is the default.
    assert.equal(pipelineEnvironmentItems("gsm8k-world")[0].env, "gsm8k");
  });

  it("Resume Run re-parses the run's recorded command with its step's spec and adds --resume", async () => {
    const dir = join(ws, "runs", "half");
    mkdirSync(dir, { recursive: true });
    const manifest = {
      split: { name: "val" },
      search: {},
      policy: {},
      job: { command: ["agent-lab", "eval", "--name", "half", "--split", "val", "--limit", "5", "--backend", "local"] },
    };
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    await run("agentLab.resumeRun", dir);
    assert.equal(started.length, 1);
    assert.equal(started[0].runDir, dir);
    const argv = started[0].command;
    assert.deepEqual(argv.slice(0, 1), ["eval"]);
    for (const pair of [
      ["--name", "half"],
      ["--limit", "5"],
      ["--backend", "local"],
    ])
      assert.equal(argv[argv.indexOf(pair[0]) + 1], pair[1], pair[0]);
    assert.ok(argv.includes("--resume"));
    rmSync(dir, { recursive: true });
  });
});
