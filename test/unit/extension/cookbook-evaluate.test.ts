/**
 * Evaluate on a tinker-cookbook checkpoint, clicked through with the recorded vscode stand-in in a
 * workspace whose default environment is HotpotQA: a math_rl folder (config.json shaped as the
 * cookbook writes it) evaluates on GSM8K without asking; a folder whose config.json names no
 * environment of ours asks with the environment picker, starts the one picked, and starts nothing
 * when the pick is dismissed — never HotpotQA by default.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ENVIRONMENT_NAMES } from "../../../src/core/envs/catalog";
import { cookbookMathConfig, writeCookbookRun } from "../../helpers/cookbook-fixture";
import { installFakeVscode, recorded } from "./fake-vscode";
import type { RecordingLab } from "./recording-lab";
import type { JobRequest } from "../../../src/extension/jobs/job-runner";
import { prepareFixtureTwin } from "../core/envs/gsm8k/fixture";

installFakeVscode();
/* eslint-disable @typescript-eslint/no-require-imports */
const { recordingLab } = require("./recording-lab") as typeof import("./recording-lab");
const { checkpointRows, cookbookCheckpointEntries } =
  require("../../../src/extension/checkpoints/checkpoints-model") as typeof import("../../../src/extension/checkpoints/checkpoints-model");
/* eslint-enable @typescript-eslint/no-require-imports */

describe("extension: Evaluate on a tinker-cookbook checkpoint (stand-in vscode)", function () {
  this.timeout(60_000);
  let ws: string;
  let lab: RecordingLab;
  let started: JobRequest[];
  let picks: { labels: string[]; title?: string }[];

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-cookbook-eval-"));
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ dataDir: "data", runsDir: "runs", env: "hotpotqa" }));
    // GSM8K's data prepared (Evaluate checks it before its prompts), from the fixture twin.
    await prepareFixtureTwin(join(ws, "data"), join(ws, "raw"));
    writeCookbookRun(join(ws, "cookbook", "math"), {
      steps: 2,
      saveEvery: 1,
      config: cookbookMathConfig("gsm8k"),
      tags: ["math"],
    });
    const unknown = { ...cookbookMathConfig("x"), recipe_name: "twenty_questions", wandb_name: "twenty-questions" };
    writeCookbookRun(join(ws, "cookbook", "game"), { steps: 2, saveEvery: 1, config: unknown, tags: ["twenty"] });
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));
  beforeEach(() => {
    lab = recordingLab(ws);
    started = lab.started;
    picks = [];
  });
  afterEach(() => lab.dispose());

  async function evaluate(folder: string, pick?: string): Promise<string[] | undefined> {
    const [row] = checkpointRows({ entries: cookbookCheckpointEntries(join(ws, "cookbook", folder)), badLines: [] });
    recorded.pick = (items, options) => {
      const list = items as { label: string; env?: string }[];
      picks.push({ labels: list.map((i) => i.label), title: (options as { title?: string } | undefined)?.title });
      return pick === undefined ? undefined : list.find((i) => i.label === pick);
    };
    recorded.input = (o) => o.value; // the suggested run name
    await recorded.registeredCommands.get("agentLab.evaluateCheckpoint")!({ type: "checkpoint", row });
    return started[0]?.command;
  }
  const flag = (argv: string[], name: string) => argv[argv.indexOf(name) + 1];

  it("a math_rl folder's checkpoint runs the GSM8K eval, though the workspace default is HotpotQA, without asking", async () => {
    const argv = await evaluate("math");
    assert.ok(argv, `a job was started: ${JSON.stringify(recorded.messages)} ${JSON.stringify(recorded.inputsShown)}`);
    assert.equal(flag(argv, "--env"), "gsm8k");
    assert.equal(flag(argv, "--split"), "val");
    assert.match(flag(argv, "--model-path"), /^tinker:\/\/run-cb\/sampler_weights\//);
    assert.deepEqual(picks, [], "no environment picker: the folder says");
  });

  it("a folder that names no environment of ours asks, and starts the one picked", async () => {
    const argv = await evaluate("game", "gsm8k");
    assert.equal(picks.length, 1, "the environment picker was shown");
    assert.deepEqual([...picks[0].labels].sort(), [...ENVIRONMENT_NAMES].sort());
    assert.match(picks[0].title ?? "", /names no environment/);
    assert.equal(flag(argv!, "--env"), "gsm8k");
  });

  it("dismissing the picker starts nothing (no HotpotQA by default)", async () => {
    assert.equal(await evaluate("game"), undefined);
    assert.equal(picks.length, 1);
    assert.equal(started.length, 0);
  });
});
