/**
 * The environment pickers and "Collect SFT Data… → From existing runs", clicked through with the
 * recorded vscode stand-in on a real workspace: GSM8K prepared from its fixture twin, a GSM8K eval
 * run made by the real eval (scripted replies, graded by the environment), a HotpotQA run beside it.
 * The picker lists the registered environments from core's light list with the workspace's default
 * first; the multi-pick lists only that environment's eval runs with prompt hash, episodes and mean
 * reward; the argv it starts is run through the real CLI and builds the SFT data.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import { mergeConfig } from "../../../src/core/envs/config";
import { ENVIRONMENT_NAMES, environmentMetrics } from "../../../src/core/envs/catalog";
import { ScriptedPolicy } from "../../../src/core/harness/policies/scripted";
import { readRun } from "../../../src/core/base/runs/run-files";
import { summarize } from "../../../src/core/base/runs/summary";
import { prepareFixtureTwin } from "../core/envs/gsm8k/fixture";
import { runCli } from "../cli/cli-process";
import { installFakeVscode, recorded } from "./fake-vscode";
import type { RecordingLab } from "./recording-lab";

installFakeVscode();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { recordingLab } = require("./recording-lab") as typeof import("./recording-lab");
/* eslint-disable @typescript-eslint/no-require-imports */
const { environmentItems } =
  require("../../../src/extension/commands/environment-choices") as typeof import("../../../src/extension/commands/environment-choices");
/* eslint-enable @typescript-eslint/no-require-imports */
import type { JobRequest } from "../../../src/extension/jobs/job-runner";
import { scriptedEval } from "../../helpers/scripted-eval";

type Item = { label: string; description?: string; detail?: string };

describe("extension: environment pickers and SFT data from existing runs (stand-in vscode)", function () {
  this.timeout(120_000);
  let ws: string;
  let started: JobRequest[];
  let shown: { items: Item[]; options: { title?: string; canPickMany?: boolean } }[];
  let lab: RecordingLab;
  const run = (id: string) => recorded.registeredCommands.get(id)!() as Promise<void>;
  /** Picks by label in order; a multi-pick takes every item whose label is in the list given as an array. */
  function answer(picks: (string | string[])[], inputs: string[]): void {
    recorded.pick = (items, options) => {
      shown.push({ items: items as Item[], options: options as { title?: string; canPickMany?: boolean } });
      const w = picks.shift();
      return Array.isArray(w) ? items.filter((i) => w.includes(i.label)) : items.find((i) => i.label === w);
    };
    recorded.input = () => inputs.shift();
  }

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-env-picks-"));
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ dataDir: "data", runsDir: "runs", env: "gsm8k" }));
    await prepareFixtureTwin(join(ws, "data"), join(ws, "raw"));
    const tok = await offlineTokenizer("qwen3");
    // Right on two of three train questions (boxed), wrong on the third.
    let n = 0;
    const policy = new ScriptedPolicy(tok, (ctx) => {
      const m = /Rosa has (\d+) marbles and wins (\d+) more/.exec(ctx.promptText.split("<|im_start|>user").at(-1)!)!;
      const sum = Number(m[1]) + Number(m[2]);
      return `The total is \\boxed{${n++ % 3 === 2 ? sum + 1 : sum}}.`;
    });
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", maxTokens: 64, concurrency: 1 });
    await scriptedEval({
      workspaceDir: ws,
      config,
      name: "gsm8k-train-base",
      split: "train",
      limit: 6,
      policy,
    });
    // A HotpotQA run (no environment in its manifest): not offered for GSM8K data.
    const hot = join(ws, "runs", "hotpot-base");
    mkdirSync(hot, { recursive: true });
    const eps = readRun(join(ws, "runs", "gsm8k-train-base"), environmentMetrics).episodes;
    writeFileSync(join(hot, "episodes.jsonl"), eps.map((e) => JSON.stringify(e) + "\n").join(""));
    writeFileSync(
      join(hot, "summary.json"),
      JSON.stringify(summarize(eps, { planned: 6, seconds: 1, status: "done", split: "val", model: "m" })),
    );
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  beforeEach(() => {
    lab = recordingLab(ws);
    started = lab.started;
    shown = [];
  });
  afterEach(() => {
    lab.dispose();
  });

  it("the picker lists every registered environment, the workspace's default (agent-lab.json env) first; closed-book only those with tools", () => {
    assert.deepEqual(
      environmentItems("gsm8k").map((i) => i.label),
      ["gsm8k", ...ENVIRONMENT_NAMES.filter((n) => n !== "gsm8k")],
    );
    assert.match(environmentItems("gsm8k")[0].description, /default/);
    assert.deepEqual(
      environmentItems("gsm8k", (tools) => tools).map((i) => i.label),
      ["hotpotqa"],
    );
  });

  it("Collect SFT Data… → From existing runs: a multi-pick of the environment's eval runs, then min reward and best-of → sft-data --from-runs, which the CLI runs", async () => {
    answer(["gsm8k", "From existing runs", ["gsm8k-train-base"]], ["1", "2", "sft-from-runs"]);
    await run("agentLab.collectSftData");
    assert.deepEqual(shown[0].items.map((i) => i.label)[0], "gsm8k", "the workspace's default environment first");
    const multi = shown[2];
    assert.equal(multi.options.canPickMany, true);
    assert.deepEqual(
      multi.items.map((i) => i.label),
      ["gsm8k-train-base"],
      "only GSM8K eval runs are offered",
    );
    const sha = readRun(join(ws, "runs", "gsm8k-train-base"), environmentMetrics).manifest!.system_prompt.sha256.slice(
      0,
      8,
    );
    assert.equal(multi.items[0].description, `gsm8k · prompt ${sha} · 6 ep · reward 0.667`);
    assert.match(multi.items[0].detail!, /^train · accuracy 0\.667/);
    assert.equal(started.length, 1);
    const job = started[0];
    assert.deepEqual(job.command, [
      "sft-data",
      "--name",
      "sft-from-runs",
      "--env",
      "gsm8k",
      "--from-runs",
      "--min-reward",
      "1",
      "--best-of",
      "2",
      "--",
      join(ws, "runs", "gsm8k-train-base"),
    ]);
    assert.equal(job.spendsMoney, false);
    assert.ok(!recorded.messages.some((m) => m.level === "warning"), "nothing to confirm: no sampling");
    // The job runs in the workspace folder; here the CLI is told where it is (before the `--` of the runs).
    const cli = await runCli([job.command[0], "--workspace", ws, ...job.command.slice(1)]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.ok(existsSync(join(ws, "runs", "sft-from-runs", "sft.jsonl")), cli.stdout);
  });

  it("Train SFT… offers only the picked environment's SFT data runs (the one built above is GSM8K's)", async () => {
    answer(["hotpotqa"], []);
    await run("agentLab.trainSft");
    assert.equal(started.length, 0);
    assert.ok(
      recorded.messages.some((m) => /no runs to choose from/.test(m.text)),
      "the GSM8K data run is not offered for HotpotQA",
    );
    answer(["gsm8k", "sft-from-runs"], ["1", "sft-gsm8k"]);
    await run("agentLab.trainSft");
    assert.deepEqual(
      shown.at(-1)!.items.map((i) => i.label),
      ["sft-from-runs"],
    );
    assert.equal(started[0].command[0], "train-sft");
    assert.ok(started[0].command.includes(join(ws, "runs", "sft-from-runs", "sft.jsonl")));
  });

  it("Collect SFT Data… offers the scripted teacher only where sft-data takes it (HotpotQA, not GSM8K), as the catalog says", async () => {
    const sourcesFor = async (env: string) => {
      shown = [];
      answer([env], []);
      await run("agentLab.collectSftData");
      return shown[1].items.map((i) => i.label);
    };
    assert.deepEqual(await sourcesFor("gsm8k"), ["Rejection sampling from the model", "From existing runs"]);
    assert.deepEqual(await sourcesFor("hotpotqa"), [
      "Rejection sampling from the model",
      "Scripted teacher",
      "From existing runs",
    ]);
    assert.equal(started.length, 0, "nothing picked: nothing started");
    // The CLI refuses what the picker leaves out, in one line naming the flag.
    const cli = await runCli([
      "sft-data",
      "--workspace",
      ws,
      "--name",
      "teacher-gsm8k",
      "--env",
      "gsm8k",
      "--teacher",
      "scripted",
      "--questions",
      "2",
      "--tries",
      "1",
    ]);
    assert.notEqual(cli.code, 0);
    assert.match(cli.stderr.trim(), /^agent-lab sft-data: --teacher scripted: .*the gsm8k environment; /);
    assert.doesNotMatch(cli.stderr, /\n\s+at /, "no stack trace");
  });

  it("Evaluate Checkpoint uses the environment of the training run that made the checkpoint, not the workspace default", async () => {
    // Two training runs as their manifests record them: a GRPO run on HotpotQA (manifests without an
    // environment field are HotpotQA's) and an SFT run on the GSM8K data built above (its lineage manifest names GSM8K).
    const runs = join(ws, "runs");
    mkdirSync(join(runs, "grpo-hotpot"), { recursive: true });
    writeFileSync(join(runs, "grpo-hotpot", "manifest.json"), JSON.stringify({ kind: "grpo", base_model: "m" }));
    mkdirSync(join(runs, "sft-gsm8k-train"), { recursive: true });
    const lineage = join("runs", "sft-from-runs", "manifest.json");
    assert.ok(existsSync(join(ws, lineage)), "the SFT data run made by the real CLI above");
    writeFileSync(
      join(runs, "sft-gsm8k-train", "manifest.json"),
      JSON.stringify({
        kind: "sft",
        base_model: "m",
        data: { path: "runs/sft-from-runs/sft.jsonl", hash: "x", lineage_manifest: lineage },
      }),
    );
    const entry = (name: string, run: string, kind: "sft" | "grpo") => ({
      name,
      sampler_path: `tinker://t/sampler_weights/${name}`,
      state_path: `tinker://t/weights/${name}`,
      base_model: "m",
      parent: null,
      data_hash: "x",
      step: 1,
      run,
      kind,
      created: "2026-01-01T00:00:00Z",
    });
    const rows = [
      entry("grpo-hotpot-s1", "runs/grpo-hotpot", "grpo"),
      entry("sft-gsm8k-train-e1", "runs/sft-gsm8k-train", "sft"),
      entry("gone-e1", "runs/gone", "sft"),
    ];
    const evaluate = async (e: ReturnType<typeof entry>) => {
      started.length = 0;
      answer([], []);
      recorded.input = (o) => o.value; // accept the suggested run name
      await recorded.registeredCommands.get("agentLab.evaluateCheckpoint")!({ type: "checkpoint", row: { entry: e } });
      assert.equal(started.length, 1);
      const argv = started[0].command;
      return {
        env: argv[argv.indexOf("--env") + 1],
        name: argv[argv.indexOf("--name") + 1],
        path: argv[argv.indexOf("--model-path") + 1],
      };
    };
    // HotpotQA's, though agent-lab.json says gsm8k: this workspace has no HotpotQA data, so the data check says so first.
    recorded.messages.length = 0;
    answer([], []);
    await recorded.registeredCommands.get("agentLab.evaluateCheckpoint")!({
      type: "checkpoint",
      row: { entry: rows[0] },
    });
    assert.equal(started.length, 0, "no eval of an environment with no data");
    assert.deepEqual(
      recorded.messages.map((m) => [m.text, m.actions]),
      [
        [
          "Agent Lab: hotpotqa has no prepared data (nothing in data). Evaluate Checkpoint reads it: prepare it first.",
          ["Prepare Data"],
        ],
      ],
    );
    assert.deepEqual(recorded.inputsShown, [], "asked nothing before the check");
    writeFileSync(join(ws, "data", "splits.json"), "{}");
    for (const f of ["train", "val", "test"]) writeFileSync(join(ws, "data", `${f}.jsonl`), "");
    try {
      assert.deepEqual(
        await evaluate(rows[0]),
        { env: "hotpotqa", name: "grpo-hotpot-s1", path: rows[0].sampler_path },
        "HotpotQA, though agent-lab.json says gsm8k",
      );
    } finally {
      for (const f of ["splits.json", "train.jsonl", "val.jsonl", "test.jsonl"]) rmSync(join(ws, "data", f));
    }
    assert.deepEqual(await evaluate(rows[1]), {
      env: "gsm8k",
      name: "gsm8k-sft-gsm8k-train-e1",
      path: rows[1].sampler_path,
    });
    // No manifest to say (the training run folder was deleted): the workspace default, as before.
    assert.equal((await evaluate(rows[2])).env, "gsm8k");
  });
});
