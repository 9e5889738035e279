/**
 * A new environment is one folder: calculator-env.ts (under 200 lines) plugs into eval, sft-data
 * and show through the generic steps, tool turns included, with no code anywhere else.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { TEST_SPLIT_FLAG } from "../../../../../src/core/steps/eval/eval-split";
import { readRun, type EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { metricRoles, metricValue } from "../../../../../src/core/base/runs/metrics";
import { collectSftData, readSftRows, sftPath } from "../../../../../src/core/steps/sft";
import { ENVIRONMENT as CALCULATOR } from "../../../../../examples/environments/calculator/environment";
import { SCRIPTED_READER } from "../../../../../examples/environments/calculator/scripted";
import { scriptedEval } from "../../../../helpers/scripted-eval";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

describe("envs: a test environment in one folder (calculator)", function () {
  this.timeout(60_000);
  let ws: string;
  let tok: ChatTokenizer;
  const config = () => mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 4 });
  /** The folder's scripted reader: calls the calculator with the question's numbers, then answers with what it returned. */
  const solver = () => SCRIPTED_READER(tok, {});

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-toy-env-"));
    tok = await offlineTokenizer("qwen3");
    assert.deepEqual(
      await CALCULATOR.data.prepare({ outDir: CALCULATOR.data.dir(join(ws, "data")), log: () => undefined }),
      ["train 40 | val 10 | test 10"],
    );
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  it("is one folder (examples/environments/calculator) of under 200 lines", () => {
    const dir = join(__dirname, "../../../../../examples/environments/calculator");
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
    const total = files.reduce((n, f) => n + readFileSync(join(dir, f), "utf8").split("\n").length, 0);
    assert.deepEqual(files.sort(), ["environment.ts", "failures.ts", "info.ts", "scripted.ts"]);
    assert.ok(total < 200, `${total} lines`);
  });

  it("eval runs it through the one harness: tool calls, inserted observations, its reward and fields, its manifest", async () => {
    const r = await scriptedEval({
      workspaceDir: ws,
      config: config(),
      env: CALCULATOR,
      name: "calc",
      split: "test",
      testFlag: TEST_SPLIT_FLAG,
      policy: solver(),
    });
    const run = readRun(r.runDir, environmentMetrics);
    assert.equal(run.episodes.length, 10);
    assert.equal(metricValue(r.summary, metricRoles(CALCULATOR.metrics).primary), 1);
    for (const e of run.episodes as (EpisodeRecord & { calls?: number })[]) {
      assert.equal(e.reward, 1);
      assert.equal(e.calls, 1);
      assert.equal(e.searches.length, 1, "the tool call's argument is recorded");
      assert.deepEqual(
        e.turns!.map((t) => t.action),
        ["calc", "answer"],
      );
      const inserted = tok.decode(e.tokens.slice(e.turns![0].reply_end, e.turns![0].end));
      assert.match(inserted, /= \d+/, "the observation is an inserted user turn");
      assert.ok(e.sampled.slice(e.turns![0].reply_end, e.turns![0].end).every((s) => s === 0));
    }
    assert.deepEqual(run.manifest!.environment, { name: "calculator", version: "1" });
    assert.deepEqual(run.manifest!.calculator, { penalty_per_extra_call: 0.1 });
    assert.equal(run.manifest!.scorer_version, "calculator-exact-1");
  });

  it("its locked test split is enforced through the interface", async () => {
    appendFileSync(
      join(ws, "data", "calculator", "test.jsonl"),
      JSON.stringify({ id: "x", question: "What is 1 + 1?", answers: ["2"] }) + "\n",
    );
    await assert.rejects(
      scriptedEval({
        workspaceDir: ws,
        config: config(),
        env: CALCULATOR,
        name: "calc2",
        split: "test",
        testFlag: TEST_SPLIT_FLAG,
        policy: solver(),
      }),
      /changed since prepare/,
    );
  });

  it("sft-data keeps its tool-using episodes", async () => {
    const r = await collectSftData({
      workspaceDir: ws,
      config: config(),
      env: CALCULATOR,
      name: "sft",
      questions: 8,
      offset: 0,
      tries: 2,
      temperature: 0.8,
      minF1: 1,
      role: "self",
      backend: "scripted",
      policy: solver(),
      resume: false,
      command: ["test"],
    });
    assert.equal(r.manifest.counts.kept, 8);
    assert.equal(r.manifest.fingerprint.acceptance.requireSearch, true);
    assert.ok(readSftRows(sftPath(r.runDir)).every((row) => row.searches.length === 1));
  });
});
