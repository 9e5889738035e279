/**
 * The pair view and the training dashboard on GSM8K runs made by the real eval (its fixture twin,
 * scripted replies graded by the environment): the pair's sides score with GSM8K's `correct` (a
 * GSM8K record has no F1 slot: read as one, every side scored 0) under GSM8K's view, and a
 * training run on GSM8K labels its val metric "accuracy" (in the real dashboard webview too) and
 * its groups' episodes with GSM8K's view (no searches) — HotpotQA's training run keeps "F1".
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { readRun } from "../../../../../src/core/base/runs/run-files";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import { loadPair } from "../../../../../src/core/views/trace/load-pair";
import { groupEpisodeViews, readDashboard } from "../../../../../src/core/views/trace/dashboard-view";
import { prepareFixtureTwin } from "../../envs/gsm8k/fixture";
import { openWebview, webviewBundles } from "../../../webview/webview-dom";
import { scriptedEval } from "../../../../helpers/scripted-eval";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const sumOf = (prompt: string) => {
  const m = /Rosa has (\d+) marbles and wins (\d+) more/.exec(prompt.split("<|im_start|>user").at(-1)!)!;
  return Number(m[1]) + Number(m[2]);
};

describe("core: pair view and dashboard on GSM8K runs", function () {
  this.timeout(120_000);
  let ws: string;
  let tok: ChatTokenizer;

  async function evalRun(name: string, right: boolean): Promise<string> {
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", maxTokens: 64 });
    const policy = new ScriptedPolicy(tok, (ctx) => `So \\boxed{${sumOf(ctx.promptText) + (right ? 0 : 1)}}`);
    await scriptedEval({
      workspaceDir: ws,
      config,
      name,
      split: "val",
      limit: 3,
      policy,
    });
    return join(ws, "runs", name);
  }

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-gsm8k-views-"));
    tok = await offlineTokenizer("qwen3");
    await webviewBundles();
    await prepareFixtureTwin(join(ws, "data"), join(ws, "raw"));
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  it("a flip's pair scores each side with GSM8K's correct, under GSM8K's view", async () => {
    const right = await evalRun("right", true);
    const wrong = await evalRun("wrong", false);
    const id = readRun(right, environmentMetrics).episodes[0].id;
    const pair = await loadPair([right, wrong], id, ["right", "wrong"]);
    assert.deepEqual(
      pair.sides.map((s) => [s.primary, s.binary]),
      [
        [1, 1],
        [0, 0],
      ],
    );
    assert.equal(pair.view?.environment, "gsm8k");
    assert.equal(pair.view?.primary.label, "accuracy");
    assert.equal(pair.view?.oneMetric, true);
    assert.equal(pair.view?.searches, false);
  });

  it("a GSM8K training run's dashboard names its val metric accuracy; its groups' episodes carry GSM8K's view", async () => {
    const evalDir = await evalRun("for-groups", true);
    const train = join(ws, "runs", "grpo-gsm8k");
    mkdirSync(train, { recursive: true });
    // A GRPO run's folder: its manifest names the environment (as train writes it), episodes line-indexed by groups.
    const m = readRun(evalDir, environmentMetrics).manifest!;
    writeFileSync(
      join(train, "manifest.json"),
      JSON.stringify({ kind: "grpo", base_model: "m", tokenizer: m.tokenizer, environment: m.environment }),
    );
    copyFileSync(join(evalDir, "episodes.jsonl"), join(train, "episodes.jsonl"));
    writeFileSync(join(train, "metrics.jsonl"), JSON.stringify({ step: 1, reward: 1, correct: 1 }) + "\n");
    const group = { step: 1, rewards: [1, 1, 1], episodes: [0, 1, 2] };
    writeFileSync(join(train, "groups.jsonl"), JSON.stringify(group) + "\n");
    // A checkpoint of it, so the dashboard has its checkpoint table.
    writeFileSync(
      join(train, "checkpoints.jsonl"),
      JSON.stringify({ name: "s1", batch: 1, sampler_path: "tinker://t/sampler_weights/s1" }) + "\n",
    );
    const view = readDashboard(train);
    assert.equal(view.valMetric, "accuracy");
    const t = await openWebview("dashboard");
    try {
      t.post({ type: "dashboard/data", data: view });
      await t.settle();
      assert.equal(t.document.getElementById("val-metric-head")!.textContent, "val accuracy [95% CI]");
      assert.doesNotMatch(t.document.getElementById("checkpoints")!.textContent!, /F1/);
    } finally {
      await t.close();
    }
    const eps = await groupEpisodeViews(train, group);
    assert.equal(eps.length, 3);
    for (const e of eps) {
      assert.equal(e.view?.searches, false);
      assert.equal(e.primary, 1, "scored by correct");
    }

    const hot = join(ws, "runs", "grpo-hotpot");
    mkdirSync(hot, { recursive: true });
    writeFileSync(join(hot, "manifest.json"), JSON.stringify({ kind: "grpo", base_model: "m" }));
    writeFileSync(join(hot, "metrics.jsonl"), JSON.stringify({ step: 1, reward: 0.5 }) + "\n");
    assert.equal(readDashboard(hot).valMetric, "F1", "a manifest without an environment is HotpotQA's");
  });
});
