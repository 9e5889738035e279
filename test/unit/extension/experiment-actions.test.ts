/**
 * The Experiments view's actions with the recorded vscode stand-in, on experiment folders laid out
 * as `experiment run` leaves them (the record folder's manifest, spec.json, experiment.json once
 * done): Validate starts `experiment validate DIR`; Resume runs the record's own spec.json into the
 * same workspace (its phases resume: the same text, the same hash); Rerun into a new folder beside
 * it; Open Experiment… picks among every experiment in the folder, wherever it was run.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installFakeVscode, recorded } from "./fake-vscode";
import type { RecordingLab } from "./recording-lab";
import { miniatureSpec } from "../core/steps/experiments/fixtures";

installFakeVscode();
/* eslint-disable @typescript-eslint/no-require-imports */
const { recordingLab } = require("./recording-lab") as typeof import("./recording-lab");
const { listExperiments } =
  require("../../../src/core/views/experiments/experiment-list") as typeof import("../../../src/core/views/experiments/experiment-list");
const { rerunFolder } =
  require("../../../src/extension/commands/experiment-commands") as typeof import("../../../src/extension/commands/experiment-commands");

/* eslint-enable @typescript-eslint/no-require-imports */

/** An experiment's folder as `experiment run` leaves it: done (with its record) or stopped. */
function experimentFolder(ws: string, name: string, done: boolean): string {
  const recordDir = join(ws, "runs", name);
  mkdirSync(recordDir, { recursive: true });
  writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ dataDir: "data", runsDir: "runs" }));
  writeFileSync(join(recordDir, "manifest.json"), JSON.stringify({ kind: "experiment", name, spec_sha256: "x" }));
  writeFileSync(join(recordDir, "spec.json"), JSON.stringify(miniatureSpec({ name }), null, 2) + "\n");
  if (done)
    writeFileSync(
      join(recordDir, "experiment.json"),
      JSON.stringify({ verdict: { verdict: "refuted" }, spend: { usd: 0, budget_usd: 0 } }),
    );
  return recordDir;
}

describe("extension: the Experiments view's actions (stand-in vscode)", () => {
  let root: string;
  let lab: RecordingLab;
  let done: string;
  let stopped: string;
  const command = (id: string) => recorded.registeredCommands.get(id)!;
  const node = (recordDir: string) => ({
    type: "experiment",
    entry: listExperiments(root).find((e) => e.recordDir === recordDir)!,
  });

  before(() => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-exp-actions-"));
    done = experimentFolder(join(root, "experiments", "a"), "a", true);
    stopped = experimentFolder(join(root, "elsewhere"), "b", false);
  });
  after(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(() => (lab = recordingLab(root)));
  afterEach(() => lab.dispose());

  it("Validate starts experiment validate on the record folder", async () => {
    void command("agentLab.validateExperiment")(node(done));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(
      lab.started.map((s) => s.command),
      [["experiment", "--", "validate", done]],
    );
  });

  it("Resume runs the record's spec.json into the same workspace, its progress the record folder's", async () => {
    await command("agentLab.resumeExperiment")(node(stopped));
    assert.equal(lab.started.length, 1);
    const [req] = lab.started;
    assert.deepEqual(req.command, [
      "experiment",
      "--yes",
      "--dir",
      join(root, "elsewhere"),
      "--",
      "run",
      join(stopped, "spec.json"),
    ]);
    assert.equal(req.runDir, stopped);
  });

  it("Rerun asks, then runs the spec from scratch into a new folder beside the first", async () => {
    recorded.answer = () => "Rerun";
    await command("agentLab.rerunExperiment")(node(done));
    assert.equal(rerunFolder(join(root, "experiments", "a")), join(root, "experiments", "a-rerun"));
    assert.deepEqual(lab.started.at(-1)!.command.slice(0, 4), [
      "experiment",
      "--yes",
      "--dir",
      join(root, "experiments", "a-rerun"),
    ]);
  });

  it("Open Experiment… offers every experiment in the folder, wherever it was run", async () => {
    let offered: string[] = [];
    recorded.pick = (items) => {
      offered = items.map((i) => `${i.label} · ${i.description}`);
      return undefined;
    };
    await command("agentLab.openExperiment")();
    assert.deepEqual(offered, ["a · done · refuted · experiments/a/runs/a", "b · interrupted · elsewhere/runs/b"]);
  });
});
