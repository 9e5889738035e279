/// <reference lib="dom" />
/**
 * Two chart axes in real Chromium: the dashboard's val-score chart of a real 60-step GRPO run
 * (trained by trainGrpo on the local backend at tiny sizes, its step-30 checkpoint scored by a
 * real val eval) ends its x axis at the run's step 60, not where the chart pads its own points;
 * and the Compare panel's forest plot of a Δ of −0.25 [−0.375, −0.125] (ticks summed 0.1 at a
 * time from −0.3 used to land on −2.8e-17) labels its zero tick 0.0, with no "e-" anywhere.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { loadConfig } from "../../../src/core/base/config";
import { compareView } from "../../../src/core/steps/ablate/compare-setup";
import { readRegistry, registryPath } from "../../../src/core/base/checkpoints/registry";
import { evalSplit } from "../../../src/core/steps/eval/eval-split";
import { LOCAL_BACKEND_MODEL } from "../../../src/core/steps/eval/backends";
import { trainGrpo } from "../../../src/core/steps/train";
import { readDashboard } from "../../../src/core/views/trace/dashboard-view";
import { hostMessage } from "../../../src/extension/webview/protocol";
import { requireSharedData } from "../../helpers/shared-data";
import { fakeManifest, fakeRecord } from "../core/base/runs/fakes";
import { PlanPolicy, readRows, writeRealDataDir, type HotpotRow } from "../core/steps/sft/real-hotpot";
import { FAST_RETRY, localWorld, qwenTokenizer, SHORT_PROMPT, type LocalWorld } from "../core/steps/train/helpers";
import { launch, openPanelPage } from "./chromium-page";

const STEPS = 60;

describe("webview: chart axes in Chromium on a real 60-step run", function () {
  this.timeout(600_000);
  let browser: Browser;
  let world: LocalWorld;
  let runDir: string;

  before(async function () {
    const devFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    const trainFile = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    browser = await launch(this);
    const dev = readRows(devFile).slice(0, 8);
    const train = readRows(trainFile).slice(0, STEPS);
    const rows: HotpotRow[] = [...train, ...dev];
    world = await localWorld("chart-axes");
    const root = world.root;
    await writeRealDataDir(join(root, "data"), train, dev);
    writeFileSync(join(root, "prompt.txt"), SHORT_PROMPT);
    const tok = await qwenTokenizer();
    const config = loadConfig(root, { loraRank: 4, maxTokens: 16, concurrency: 2 });
    const run = await trainGrpo({
      workspaceDir: root,
      config,
      name: "grpo-60",
      steps: STEPS,
      questions: 1,
      group: 2,
      lr: 0.01,
      temperature: 1,
      offset: 0,
      saveEvery: 30,
      backend: "local",
      baseUrl: world.backend.url,
      retry: FAST_RETRY,
      command: ["test"],
      tokenizer: tok,
      promptFile: "prompt.txt",
      policyFor: (_sampler, t) => new PlanPolicy(t, rows, 11),
      log: () => undefined,
    });
    runDir = run.runDir;
    assert.equal(run.status, "done", run.message);
    const registry = readRegistry(registryPath(join(root, "runs")));
    const entry = registry.find((e) => e.name === "grpo-60-s30");
    assert.ok(entry, `registered: ${registry.map((e) => e.name).join(", ")}`);
    const sampler = entry.sampler_path;
    await evalSplit({
      workspaceDir: root,
      config,
      name: "val-s30",
      split: "val",
      closedBook: false,
      limit: 4,
      resume: false,
      temperature: 0,
      backend: "scripted",
      policy: new PlanPolicy(tok, rows, 3, {
        kind: "scripted",
        model: LOCAL_BACKEND_MODEL,
        logprobs: true,
        checkpoint: sampler,
      }),
      promptFile: "prompt.txt",
      command: ["agent-lab", "eval", "(test)"],
    });
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  it("the val chart's x axis ends at the run's last step (60), not the chart's padding of its points", async () => {
    const v = readDashboard(runDir);
    assert.equal(v.lastStep, STEPS);
    assert.deepEqual(
      v.checkpoints.filter((c) => c.f1).map((c) => c.step),
      [30],
      "only the step-30 checkpoint is scored: the chart's own points end at 30",
    );
    const p = await openPanelPage(browser, "dashboard");
    await p.postTimed(hostMessage({ type: "dashboard/data", data: v }));
    const axis = await p.page.evaluate(() => {
      const el = document.querySelector<HTMLElement>('.timechart[data-key="val-f1"]')!;
      return { min: Number(el.dataset.xMin), max: Number(el.dataset.xMax) };
    });
    assert.equal(axis.max, STEPS, `x axis ${axis.min}…${axis.max}`);
    assert.ok(axis.min <= 30, `x axis ${axis.min}…${axis.max}`);
    assert.deepEqual(p.errors, []);
  });

  it("the forest plot's tick labels are rounded to its axis (0.0, never -2.8e-17)", async () => {
    // 40 questions; the second run misses every 4th: Δ −0.25 with a CI of about [−0.375, −0.125].
    const inputs = ["val-base", "val-grpo-s60"].map((name, k) => ({
      name,
      dir: `/runs/${name}`,
      manifest: { ...fakeManifest(), policy: { ...fakeManifest().policy, checkpoint: `tinker://run/${name}` } },
      episodes: Array.from({ length: 40 }, (_, i) => {
        const score = k === 1 && i % 4 === 0 ? 0 : 1;
        return fakeRecord(`q${i}`, { f1: score, em: score });
      }),
    }));
    const { report, setup } = compareView(inputs, "checkpoint", undefined, []);
    const p = await openPanelPage(browser, "compare");
    await p.postTimed(hostMessage({ type: "compare/report", report, setup }));
    const ticks = await p.page.evaluate(() =>
      Array.from(document.querySelectorAll("#forest svg.forest > text[text-anchor='middle']")).map(
        (t) => t.textContent!,
      ),
    );
    assert.ok(ticks.length >= 2 * 3, `tick labels: ${ticks.join(" ")}`);
    for (const t of ticks) assert.doesNotMatch(t, /e-/, `tick labels: ${ticks.join(" ")}`);
    assert.ok(ticks.includes("0.0"), `a zero tick written at the axis's precision: ${ticks.join(" ")}`);
    assert.deepEqual(p.errors, []);
  });
});
