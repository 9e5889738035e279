/**
 * Prepare Data for any environment, the data check before a step's prompts, and Compare within one
 * environment, clicked through with the recorded vscode stand-in: the prepare job's argv is run
 * through the real CLI (GSM8K's fixture twin as the local files), the runs compared are real GSM8K
 * evals (scripted replies, graded by the environment) beside a HotpotQA run.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import { mergeConfig } from "../../../src/core/envs/config";
import { readRun } from "../../../src/core/base/runs/run-files";
import { summarize } from "../../../src/core/base/runs/summary";
import { environmentData } from "../../../src/core/envs/data-dirs";
import { prepareHotpot, writeSyntheticWorld } from "../../../src/core/envs/hotpotqa/world-files";
import { ScriptedPolicy } from "../../../src/core/harness/policies/scripted";
import { prepareFixtureTwin, writeFixtureTwin } from "../core/envs/gsm8k/fixture";
import { runCli } from "../cli/cli-process";
import { installFakeVscode, recorded } from "./fake-vscode";
import type { RecordingLab } from "./recording-lab";
import type { JobRequest } from "../../../src/extension/jobs/job-runner";
import { scriptedEval } from "../../helpers/scripted-eval";
import { environmentMetrics } from "../../../src/core/envs/catalog";

installFakeVscode();
/* eslint-disable @typescript-eslint/no-require-imports */
const { recordingLab } = require("./recording-lab") as typeof import("./recording-lab");
const { readRunRow } =
  require("../../../src/extension/runs/runs-model") as typeof import("../../../src/extension/runs/runs-model");
const { comparableRuns } =
  require("../../../src/extension/commands/environment-choices") as typeof import("../../../src/extension/commands/environment-choices");
/* eslint-enable @typescript-eslint/no-require-imports */

type Item = { label: string; description?: string; detail?: string; row?: { dir: string } };
type Dialog = { title?: string; filters?: Record<string, string[]>; canSelectMany?: boolean };

/** A workspace folder with agent-lab.json (default environment GSM8K) and nothing else. */
function emptyWorkspace(): string {
  const ws = mkdtempSync(join(tmpdir(), "agent-lab-prepare-compare-"));
  writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ dataDir: "data", runsDir: "runs", env: "gsm8k" }));
  return ws;
}

/** The job's argv run by the real CLI in `ws` (the extension runs it with the folder as cwd). */
function runInWorkspace(ws: string, argv: string[]) {
  return runCli([argv[0], "--workspace", ws, ...argv.slice(1)]);
}

describe("extension: Prepare Data for any environment, the data check, Compare within one environment (stand-in vscode)", function () {
  this.timeout(120_000);
  let ws: string;
  let raw: { train: string; test: string };
  let lab: RecordingLab;
  let started: JobRequest[];
  let shown: { items: Item[]; title?: string }[];
  let dialogs: Dialog[];
  const run = (id: string, ...args: unknown[]) => recorded.registeredCommands.get(id)!(...args) as Promise<void>;

  /** Answers quick picks by label in order (undefined = Escape), open dialogs with the files given in order. */
  function answer(picks: (string | undefined)[], opens: (string[] | undefined)[] = [], inputs: string[] = []): void {
    recorded.pick = (items, options) => {
      shown.push({ items: items as Item[], title: (options as { title?: string }).title });
      const w = picks.shift();
      return w === undefined ? undefined : items.find((i) => i.label === w);
    };
    recorded.open = (o) => {
      dialogs.push(o);
      return opens.shift();
    };
    recorded.input = () => inputs.shift();
  }

  beforeEach(() => {
    ws = emptyWorkspace();
    raw = writeFixtureTwin(join(ws, "raw"));
    lab = recordingLab(ws);
    started = lab.started;
    shown = [];
    dialogs = [];
  });
  afterEach(() => {
    lab.dispose();
    rmSync(ws, { recursive: true, force: true });
  });

  it("Prepare Data: every environment (the default first), then the picked one's own sources; local files → prepare --env gsm8k --train --test, which the real CLI runs", async () => {
    answer(["gsm8k", "Use local files…"], [[raw.train], [raw.test]]);
    await run("agentLab.prepareData");
    assert.deepEqual(
      shown[0].items.map((i) => i.label),
      ["gsm8k", "hotpotqa"],
    );
    assert.deepEqual(
      shown[1].items.map((i) => [i.label, i.description]),
      [
        ["Download GSM8K", "openai/gsm8k (main), from the Hugging Face hub"],
        [
          "Use local files…",
          "train files + test files: the main config's {question, answer} records as JSONL or parquet",
        ],
      ],
    );
    assert.deepEqual(
      dialogs.map((d) => [d.title, d.filters, d.canSelectMany]),
      [
        ["Agent Lab: Prepare Data (gsm8k): Train files", { GSM8K: ["jsonl", "parquet"] }, true],
        ["Agent Lab: Prepare Data (gsm8k): Test files", { GSM8K: ["jsonl", "parquet"] }, true],
      ],
    );
    assert.equal(started.length, 1);
    assert.deepEqual(started[0].command, ["prepare", "--env", "gsm8k", "--train", raw.train, "--test", raw.test]);
    assert.equal(started[0].spendsMoney, false);
    assert.deepEqual(environmentData("gsm8k", join(ws, "data")).missing.length, 4, "nothing there before the job");
    const cli = await runInWorkspace(ws, started[0].command);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(environmentData("gsm8k", join(ws, "data")).missing, [], "the job wrote every split");

    // HotpotQA's sources are its own: the distractor download, or train + dev files in its formats.
    shown = [];
    dialogs = [];
    answer(["hotpotqa", "Use local files…"], [undefined]);
    await run("agentLab.prepareData");
    assert.deepEqual(
      shown[1].items.map((i) => i.label),
      ["Download HotpotQA", "Use local files…"],
    );
    assert.match(shown[1].items[0].description!, /^hotpotqa\/hotpot_qa \(distractor\)/);
    assert.deepEqual(dialogs[0].filters, { HotpotQA: ["json", "jsonl", "parquet"] });
    assert.equal(dialogs[0].title, "Agent Lab: Prepare Data (hotpotqa): Train files");
    answer(["hotpotqa", "Download HotpotQA"]);
    await run("agentLab.prepareData");
    assert.deepEqual(started.at(-1)!.command, ["prepare", "--env", "hotpotqa", "--hub"]);
  });

  it("Prepare Data: Escape at each prompt starts nothing and writes nothing", async () => {
    const scripts: [(string | undefined)[], (string[] | undefined)[]][] = [
      [[undefined], []],
      [["gsm8k", undefined], []],
      [["gsm8k", "Use local files…"], [undefined]],
      [
        ["gsm8k", "Use local files…"],
        [[raw.train], undefined],
      ],
    ];
    for (const [picks, opens] of scripts) {
      answer(picks, opens);
      await run("agentLab.prepareData");
    }
    assert.equal(dialogs.length, 3, "the dialogs were reached");
    assert.deepEqual(started, []);
    assert.deepEqual(recorded.messages, []);
    assert.deepEqual(environmentData("gsm8k", join(ws, "data")).missing.length, 4);
  });

  it("Prepare Data in a folder whose default is an offline world: one message naming the pipeline, no source offered, nothing started", async () => {
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ dataDir: "data", runsDir: "runs", env: "gsm8k-world" }));
    answer(["gsm8k-world"]);
    await run("agentLab.prepareData");
    assert.equal(shown.length, 1, "only the environment pick");
    assert.deepEqual(
      recorded.messages.map((m) => m.text),
      [
        "Agent Lab: gsm8k-world is an offline world: Run Offline Pipeline (gsm8k) writes its data; Prepare Data fetches real gsm8k records.",
      ],
    );
    assert.deepEqual(started, []);
  });

  it("Prepare Data with a torn or missing local file: the job's CLI fails in one line naming the file, and leaves no data", async () => {
    const torn = join(ws, "raw", "torn.jsonl");
    writeFileSync(torn, '{"question": "Rosa has 3 marbles", "answer": "#### 3"}\n{"question": "Ros');
    answer(["gsm8k", "Use local files…"], [[torn], [raw.test]]);
    await run("agentLab.prepareData");
    const cli = await runInWorkspace(ws, started[0].command);
    assert.notEqual(cli.code, 0);
    assert.equal(cli.stderr.trim().split("\n").length, 1, cli.stderr);
    assert.match(cli.stderr.trim(), /^agent-lab prepare: .*torn\.jsonl:2: not valid JSON/);
    const gone = join(ws, "raw", "gone.jsonl");
    answer(["gsm8k", "Use local files…"], [[raw.train], [gone]]);
    await run("agentLab.prepareData");
    const missing = await runInWorkspace(ws, started[1].command);
    assert.notEqual(missing.code, 0);
    assert.equal(missing.stderr.trim().split("\n").length, 1, missing.stderr);
    assert.match(missing.stderr.trim(), /gone\.jsonl: file not found$/);
    assert.deepEqual(environmentData("gsm8k", join(ws, "data")).missing.length, 4);
  });

  it("Evaluate…, Closed-Book, Collect SFT Data, Train GRPO and Build Index check the data before their own prompts: one message offering Prepare Data", async () => {
    const offer = (env: string, what: string) =>
      `Agent Lab: ${env} has no prepared data (nothing in ${env === "gsm8k" ? "data/gsm8k" : "data"}). ${what} reads it: prepare it first.`;
    const cases: [string, (string | undefined)[], string, string][] = [
      ["agentLab.evaluate", ["gsm8k"], "gsm8k", "Evaluate"],
      ["agentLab.evaluateClosedBook", ["hotpotqa"], "hotpotqa", "Evaluate Closed-Book"],
      ["agentLab.collectSftData", ["gsm8k", "Rejection sampling from the model"], "gsm8k", "Collect SFT Data"],
      ["agentLab.trainGrpo", ["gsm8k"], "gsm8k", "Train GRPO"],
    ];
    for (const [id, picks, env, what] of cases) {
      recorded.messages.length = 0;
      shown = [];
      answer([...picks]);
      await run(id);
      assert.deepEqual(
        recorded.messages.map((m) => [m.level, m.text, m.actions]),
        [["warning", offer(env, what), ["Prepare Data"]]],
        id,
      );
      assert.equal(shown.length, picks.length, `${id}: no prompt after the check`);
      assert.deepEqual(recorded.inputsShown, [], `${id}: no input box`);
    }
    recorded.messages.length = 0;
    shown = [];
    answer([]);
    await run("agentLab.buildIndex");
    assert.deepEqual(
      recorded.messages.map((m) => m.text),
      ["Agent Lab: no corpus to index: data/corpus.jsonl is missing. Build Index reads it: prepare it first."],
    );
    assert.equal(started.length, 0, "nothing started");

    // "Prepare Data" on the message goes straight to that environment's sources, then on to the job.
    recorded.messages.length = 0;
    shown = [];
    recorded.answer = (_text, actions) => actions[0];
    answer(["gsm8k", "Use local files…"], [[raw.train], [raw.test]]);
    await run("agentLab.evaluate");
    assert.deepEqual(
      shown.map((s) => s.title),
      ["Agent Lab: Evaluate", "Agent Lab: Prepare Data (gsm8k)"],
    );
    assert.deepEqual(started.at(-1)!.command, ["prepare", "--env", "gsm8k", "--train", raw.train, "--test", raw.test]);
    // Build Index's button offers only the environments with tools (whose prepare writes a corpus).
    shown = [];
    answer([undefined]);
    await run("agentLab.buildIndex");
    assert.deepEqual(
      shown[0].items.map((i) => i.label),
      ["hotpotqa"],
    );
    recorded.answer = undefined;

    // Prepared: Evaluate… goes on to the split.
    await prepareFixtureTwin(join(ws, "data"), join(ws, "raw2"));
    recorded.messages.length = 0;
    shown = [];
    answer(["gsm8k", undefined]);
    await run("agentLab.evaluate");
    assert.deepEqual(recorded.messages, []);
    assert.equal(shown[1].title, "Agent Lab: Evaluate");
    assert.deepEqual(
      shown[1].items.map((i) => i.label),
      ["val", "test", "train"],
    );
  });

  it("an environment that searches: prepared but not indexed, Evaluate… offers Build Index first; closed-book needs none", async () => {
    const world = writeSyntheticWorld(join(ws, "world"), { seed: 1, train: 40, dev: 30 });
    await prepareHotpot(
      join(ws, "data"),
      { trainFiles: [world.trainFile], devFiles: [world.devFile], source: "synthetic" },
      () => undefined,
      { test: 10, val: 10 },
    );
    recorded.answer = (_text, actions) => actions[0];
    answer(["hotpotqa"]);
    await run("agentLab.evaluate");
    assert.deepEqual(
      recorded.messages.map((m) => [m.text, m.actions]),
      [
        [
          "Agent Lab: hotpotqa searches the index in data/bm25, which is not built yet. Evaluate needs it: build it first.",
          ["Build Index"],
        ],
      ],
    );
    assert.equal(shown.length, 1, "no split pick");
    assert.deepEqual(
      started.map((j) => j.command),
      [["index"]],
      "the button builds it",
    );
    const cli = await runInWorkspace(ws, started[0].command);
    assert.equal(cli.code, 0, cli.stderr);
    recorded.answer = undefined;
    recorded.messages.length = 0;
    shown = [];
    answer(["hotpotqa", undefined]);
    await run("agentLab.evaluate");
    assert.deepEqual(recorded.messages, [], "indexed: on to the split");
    assert.equal(shown[1].items[0].label, "val");
    rmSync(join(ws, "data", "bm25"), { recursive: true });
    shown = [];
    answer(["hotpotqa", undefined]);
    await run("agentLab.evaluateClosedBook");
    assert.deepEqual(recorded.messages, [], "closed-book searches nothing");
    assert.equal(shown[1].items[0].label, "val");
  });

  describe("Compare within one environment", () => {
    /** Two GSM8K evals by the real eval (scripted replies) and a HotpotQA run (no environment in its manifest). */
    async function makeRuns(): Promise<void> {
      await prepareFixtureTwin(join(ws, "data"), join(ws, "raw2"));
      const tok = await offlineTokenizer("qwen3");
      const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", maxTokens: 64, concurrency: 1 });
      for (const [name, wrongEvery] of [
        ["gsm8k-a", 2],
        ["gsm8k-b", 3],
      ] as const) {
        let n = 0;
        const policy = new ScriptedPolicy(tok, (ctx) => {
          const m = /Rosa has (\d+) marbles and wins (\d+) more/.exec(
            ctx.promptText.split("<|im_start|>user").at(-1)!,
          )!;
          const sum = Number(m[1]) + Number(m[2]);
          return `The total is \\boxed{${n++ % wrongEvery === 0 ? sum + 1 : sum}}.`;
        });
        await scriptedEval({
          workspaceDir: ws,
          config,
          name,
          split: "val",
          limit: 6,
          policy,
        });
      }
      const hot = join(ws, "runs", "hotpot-base");
      mkdirSync(hot, { recursive: true });
      const eps = readRun(join(ws, "runs", "gsm8k-a"), environmentMetrics).episodes;
      writeFileSync(join(hot, "episodes.jsonl"), eps.map((e) => JSON.stringify(e) + "\n").join(""));
      writeFileSync(
        join(hot, "summary.json"),
        JSON.stringify(summarize(eps, { planned: 6, seconds: 1, status: "done", split: "val", model: "m" })),
      );
      lab.dispose();
      lab = recordingLab(ws);
      started = lab.started;
    }

    it("the second pick lists only runs of the baseline's environment; none left says so", async () => {
      await makeRuns();
      answer(["gsm8k-a", undefined]);
      await run("agentLab.compareRuns");
      assert.deepEqual(shown[0].items.map((i) => i.label).sort(), ["gsm8k-a", "gsm8k-b", "hotpot-base"]);
      assert.deepEqual(
        shown[1].items.map((i) => i.label),
        ["gsm8k-b"],
        "only the other GSM8K eval",
      );
      shown = [];
      answer(["hotpot-base"]);
      await run("agentLab.compareRuns");
      assert.equal(shown.length, 1, "no second pick");
      assert.deepEqual(
        recorded.messages.map((m) => m.text),
        ["Agent Lab: no other hotpotqa eval runs to compare hotpot-base with."],
      );
      assert.deepEqual(started, []);
    });

    it("Compare With… on a multi-selection of two environments: exactly one error, in ablate's words, and no panel", async () => {
      await makeRuns();
      // Runs view nodes as the tree hands them over (clicked, selection); refused before any panel opens (the stand-in has no webviews).
      const node = (name: string) => ({ type: "run", row: readRunRow(join(ws, "runs", name), name) });
      await run("agentLab.compareWith", node("gsm8k-a"), [node("gsm8k-a"), node("hotpot-base")]);
      assert.deepEqual(
        recorded.messages.map((m) => [m.level, m.text]),
        [
          [
            "error",
            "Agent Lab: cannot pair gsm8k-a (gsm8k v1) with hotpot-base (hotpotqa v1): runs of different environments are not comparable",
          ],
        ],
      );
      assert.deepEqual(shown, [], "no pick either");
    });

    it("comparableRuns: eval runs of the same environment name and version, never the run itself", () => {
      const row = (name: string, env?: { name: string; version: string }, kind = "eval") =>
        ({ name, dir: `/r/${name}`, kind, manifest: env ? { environment: env } : undefined }) as never;
      const a = row("a", { name: "gsm8k", version: "1" });
      const rows = [
        a,
        row("b", { name: "gsm8k", version: "1" }),
        row("c", { name: "gsm8k", version: "2" }),
        row("d"),
        row("e", { name: "gsm8k", version: "1" }, "training"),
      ];
      assert.deepEqual(
        comparableRuns(rows, a).map((r) => r.name),
        ["b"],
      );
      assert.deepEqual(
        comparableRuns(rows, rows[3]).map((r) => r.name),
        [],
        "a run without an environment is HotpotQA v1's",
      );
    });
  });
});
