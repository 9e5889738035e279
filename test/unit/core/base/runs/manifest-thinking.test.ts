/**
 * Every eval manifest records the thinking setting its prompts were rendered with — HotpotQA's too,
 * as the setting its stitched turns really have (off), whatever the config says — and a run from
 * before the field still resumes and compares as the setting it is read as (off), while a run whose
 * recorded setting differs is refused by resume, naming the field.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { fingerprintDiff, type RunManifest } from "../../../../../src/core/base/runs/manifest";
import {
  ASSUMED_THINKING,
  manifestThinking,
  THINKING_FIELD,
} from "../../../../../src/core/base/runs/manifest-thinking";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { DEMO_SEED } from "../../../../../src/core/steps/demo/run-demo";
import { evalSplit } from "../../../../../src/core/steps/eval/eval-split";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";

describe("base/runs: the manifest's thinking setting", function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-thinking-"));
    ws = join(root, "ws");
    await prepareSyntheticWorkspace(ws, { seed: DEMO_SEED, train: 12, dev: 12 }, { source: "thinking test" });
  });
  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const run = async (name: string, o: { limit: number; resume: boolean; thinking?: boolean }) =>
    evalSplit({
      workspaceDir: ws,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 1, thinking: o.thinking ?? false }),
      name,
      split: "train",
      closedBook: false,
      limit: o.limit,
      resume: o.resume,
      temperature: 0,
      backend: "scripted",
      policy: new HeuristicPolicy(await offlineTokenizer("qwen3")),
      command: ["test"],
    });
  const manifestOf = (runDir: string) =>
    JSON.parse(readFileSync(join(runDir, "manifest.json"), "utf8")) as RunManifest & Record<string, unknown>;

  it("HotpotQA's manifest records it, off even when the config turns thinking on", async () => {
    const r = await run("on-in-config", { limit: 1, resume: false, thinking: true });
    assert.equal(manifestOf(r.runDir)[THINKING_FIELD], false);
    assert.deepEqual(manifestThinking(manifestOf(r.runDir)), { thinking: false, recorded: true });
  });

  it("a run from before the field resumes, and compares equal to a new one", async () => {
    const r = await run("old", { limit: 2, resume: false });
    const m = manifestOf(r.runDir);
    delete m[THINKING_FIELD];
    writeFileSync(join(r.runDir, "manifest.json"), JSON.stringify(m, null, 2));
    assert.deepEqual(manifestThinking(m), { thinking: ASSUMED_THINKING, recorded: false });
    const resumed = await run("old", { limit: 4, resume: true });
    assert.equal(resumed.resumed, 2);
    assert.equal(resumed.ran, 2);
    const fresh = manifestOf((await run("new", { limit: 4, resume: false })).runDir);
    assert.deepEqual(
      fingerprintDiff(m, fresh).map((d) => d.field),
      [],
      "no thinking difference between an old run and a new one",
    );
  });

  it("a run recorded with another setting is refused by resume, naming the field", async () => {
    const r = await run("other", { limit: 1, resume: false });
    const m = manifestOf(r.runDir);
    writeFileSync(join(r.runDir, "manifest.json"), JSON.stringify({ ...m, [THINKING_FIELD]: true }, null, 2));
    await assert.rejects(run("other", { limit: 2, resume: true }), /thinking: true → false/);
    assert.deepEqual(
      fingerprintDiff({ ...m, [THINKING_FIELD]: true }, m).map((d) => d.field),
      [THINKING_FIELD],
    );
  });
});
