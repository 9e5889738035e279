/**
 * "Agent Lab: Run Experiment…" with the recorded vscode stand-in: the specs offered are the
 * workspace's experiment JSON files (not other JSON, not node_modules); an offline spec starts at
 * once, a Tinker spec shows the estimate `experiment run --dry-run` prints and starts only on
 * Start, a rehearsal carries --rehearse; each job is `experiment run SPEC … --yes` whose progress
 * is the record folder's progress.json.
 */
import { strict as assert } from "node:assert";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runExperiment } from "../../../src/core/steps/experiments/run-experiment";
import { formatUsd } from "../../../src/core/steps/specs/estimate";
import { installFakeVscode, recorded } from "./fake-vscode";
import type { RecordingLab } from "./recording-lab";

installFakeVscode();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { recordingLab } = require("./recording-lab") as typeof import("./recording-lab");
import type { JobRequest } from "../../../src/extension/jobs/job-runner";
import { startLocalBackend } from "../../helpers/local-backend";

const EXAMPLES = resolve(__dirname, "..", "..", "..", "examples");

describe("extension: Run Experiment… (stand-in vscode)", () => {
  let ws: string;
  let started: JobRequest[];
  let lab: RecordingLab;
  let offered: string[];
  const run = () => recorded.registeredCommands.get("agentLab.runExperiment")!() as Promise<void>;
  const gsm = () => join(ws, "specs", "gsm8k-self-generated.json");
  const offline = () => join(ws, "specs", "offline-experiment.json");

  before(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-exp-command-"));
    mkdirSync(join(ws, "specs"));
    for (const f of ["gsm8k-self-generated.json", "offline-experiment.json"])
      copyFileSync(join(EXAMPLES, f), join(ws, "specs", f));
    writeFileSync(join(ws, "specs", "other.json"), JSON.stringify({ format: "something-else" }));
    writeFileSync(join(ws, "tsconfig.json"), "{ // JSONC, not a spec\n}");
    mkdirSync(join(ws, "node_modules", "x"), { recursive: true });
    copyFileSync(join(EXAMPLES, "offline-experiment.json"), join(ws, "node_modules", "x", "spec.json"));
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  beforeEach(() => {
    lab = recordingLab(ws);
    started = lab.started;
    offered = [];
  });
  afterEach(() => {
    lab.dispose();
  });

  function answerPicks(...wanted: string[]): void {
    recorded.pick = (items) => {
      if (!offered.length) offered = items.map((i) => `${i.label} · ${i.description}`);
      const w = wanted.shift();
      return items.find((i) => i.label === w);
    };
  }

  it("offers the workspace's experiment specs only, and starts an offline one with no confirmation", async () => {
    answerPicks("offline-generated-vs-world");
    await run();
    assert.deepEqual(offered, [
      `gsm8k-self-generated · tinker · ${join("specs", "gsm8k-self-generated.json")}`,
      `offline-generated-vs-world · local · ${join("specs", "offline-experiment.json")}`,
    ]);
    assert.equal(started.length, 1);
    assert.deepEqual(started[0].command, ["experiment", "--yes", "--", "run", offline()]);
    assert.equal(started[0].spendsMoney, false);
    assert.equal(
      started[0].runDir,
      join(ws, "experiments", "offline-generated-vs-world", "runs", "offline-generated-vs-world"),
    );
    assert.equal(started[0].runsRoot, join(ws, "experiments", "offline-generated-vs-world", "runs"));
    assert.ok(!recorded.messages.some((m) => m.level === "warning"), "nothing to confirm");
  });

  it("a Tinker spec shows the --dry-run estimate and the experiment's budget in the confirmation, and starts only on Start", async () => {
    const lines: string[] = [];
    const dry = await runExperiment({ startLocalBackend, specFile: gsm(), dryRun: true, log: (l) => lines.push(l) });
    for (const answer of [undefined, "Start"]) {
      answerPicks("gsm8k-self-generated", "Run on Tinker");
      recorded.answer = (text) => (/bills your Tinker account/.test(text) ? answer : undefined);
      await run();
    }
    const confirm = recorded.messages.filter((m) => m.level === "warning");
    assert.equal(confirm.length, 2);
    assert.ok(confirm[0].text.includes(`about ${formatUsd(dry.estimate.usd)} (upper bound)`), confirm[0].text);
    assert.ok(
      lines.some((l) => l.includes(`≈ $${dry.estimate.usd.toFixed(2)}`)),
      "the number --dry-run prints",
    );
    assert.match(
      confirm[0].text,
      /tasks:selfgen ≈ \$\d+\.\d\d, train:selfgen ≈ .*; budget_usd \$150\.00 caps the whole experiment/,
    );
    assert.equal(started.length, 1, "declined once, started once");
    assert.deepEqual(started[0].command, ["experiment", "--yes", "--", "run", gsm()]);
    assert.equal(started[0].spendsMoney, true);
    assert.ok(Math.abs(started[0].estimateUsd! - dry.estimate.usd) < 1e-9);
    assert.equal(started[0].runDir, join(ws, "experiments", "gsm8k-self-generated", "runs", "gsm8k-self-generated"));
  });

  it("Rehearse carries --rehearse, names the rehearsal's record folder, and shows the tiny sizes' estimate", async () => {
    answerPicks("gsm8k-self-generated", "Rehearse");
    recorded.answer = () => "Start";
    await run();
    assert.equal(started.length, 1);
    assert.deepEqual(started[0].command, ["experiment", "--yes", "--rehearse", "--", "run", gsm()]);
    assert.equal(
      started[0].runDir,
      join(ws, "experiments", "gsm8k-self-generated-rehearsal", "runs", "gsm8k-self-generated-rehearsal"),
    );
    assert.ok(started[0].estimateUsd! < 1, `tiny sizes cost cents at most, got ${started[0].estimateUsd}`);
  });

  it("a bad spec is refused with file:line before any job", async () => {
    writeFileSync(
      join(ws, "specs", "bad.json"),
      JSON.stringify({ format: "agent-lab.experiment/1", name: "bad", backend: "local" }, null, 2),
    );
    answerPicks("bad");
    await run();
    assert.equal(started.length, 0);
    const error = recorded.messages.find((m) => m.level === "error");
    assert.match(error?.text ?? "", /^Agent Lab: .*bad\.json:\d+: /);
  });
});
