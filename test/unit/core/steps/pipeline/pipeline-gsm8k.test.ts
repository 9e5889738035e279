/**
 * `agent-lab pipeline --env gsm8k`: the offline recipe on GSM8K's arithmetic world through the real
 * steps (world → prepare → base eval → teacher SFT data → SFT → GRPO → evals → ablation table) on the
 * real local backend, at miniature sizes: the plan has no index or closed-book stage, the table holds
 * no NaN, every run's manifest names the world's own environment, a rerun skips every stage.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { manifestEnvironment } from "../../../../../src/core/envs/manifest-environment";
import { environmentInfo, PIPELINE_ENVIRONMENTS, worldOf } from "../../../../../src/core/envs/catalog";
import { PIPELINE_STEP } from "../../../../../src/core/steps/catalog/catalog";
import { planPipeline, RUN_NAMES } from "../../../../../src/core/steps/pipeline/plan";
import { pipelineEnvironment, runPipeline } from "../../../../../src/core/steps/pipeline/run-pipeline";
import { defaultSettings, settingsFor } from "../../../../../src/core/steps/pipeline/settings";
import { worldKind } from "../../../../../src/core/envs/gsm8k/world";
import { loadAblationInputs } from "../../../../../src/core/steps/ablate/ablate";
import { CompareWorker, type CompareView } from "../../../../../src/core/steps/ablate/compare-off-thread";
import { compareView } from "../../../../../src/core/steps/ablate/compare-setup";
import { shownView } from "../../../../../src/core/steps/ablate/compare-shown";
import { startLocalBackend } from "../../../../helpers/local-backend";
import { assertRerunSkipsEveryStage } from "./rerun";

const miniature = () => settingsFor("local", { env: "gsm8k", size: "smoke" });

describe("core/steps/pipeline --env gsm8k", function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "agent-lab-pipeline-gsm8k-"));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("--env offers the environments with an offline world, from the catalog; a world is offline only", () => {
    assert.deepEqual(PIPELINE_STEP.flags.env.choices, PIPELINE_ENVIRONMENTS);
    assert.deepEqual([...PIPELINE_ENVIRONMENTS], ["hotpotqa", "gsm8k"]);
    assert.equal(worldOf("gsm8k"), "gsm8k-world");
    assert.equal(worldOf("hotpotqa"), "hotpotqa-world");
    assert.deepEqual(environmentInfo("gsm8k-world")?.metrics, environmentInfo("gsm8k")?.metrics);
    assert.throws(() => settingsFor("tinker", { env: "gsm8k" }), /--env gsm8k runs offline only/);
    // The first environment's pipeline keeps its settings as every earlier pipeline.json recorded them.
    assert.deepEqual(settingsFor("local", { env: "hotpotqa" }), settingsFor("local"));
    assert.equal("env" in settingsFor("local", { env: "hotpotqa" }), false);
  });

  it("the environment the runs record: the world's; a multi-hop folder an earlier build made under HotpotQA's name keeps it", () => {
    const runs = join(tmp(), "runs");
    assert.equal(pipelineEnvironment(miniature(), runs)?.name, "gsm8k-world");
    assert.equal(pipelineEnvironment(defaultSettings("local"), runs)?.name, "hotpotqa-world");
    assert.equal(pipelineEnvironment(defaultSettings("tinker"), runs), undefined, "HotpotQA itself: the config's");
    mkdirSync(join(runs, RUN_NAMES.base), { recursive: true });
    // What a base eval on the world recorded before the world had its own name: no environment field.
    writeFileSync(join(runs, RUN_NAMES.base, "manifest.json"), JSON.stringify({ format: 1, split: { name: "val" } }));
    assert.equal(pipelineEnvironment(defaultSettings("local"), runs), undefined);
    writeFileSync(
      join(runs, RUN_NAMES.base, "manifest.json"),
      JSON.stringify({ format: 1, environment: { name: "hotpotqa-world", version: "1" } }),
    );
    assert.equal(pipelineEnvironment(defaultSettings("local"), runs)?.name, "hotpotqa-world");
  });

  it("plans world, prepare, the evals, SFT and GRPO, with no index and no closed-book stage", () => {
    const dir = tmp();
    const plan = planPipeline({ dir, config: loadConfig(dir), settings: settingsFor("local", { env: "gsm8k" }) });
    assert.deepEqual(
      plan.stages.map((s) => s.name),
      ["world", "prepare", "eval-base", "sft-data", "train-sft", "eval-sft", "train-grpo", "eval-grpo", "ablate"],
    );
    assert.equal(plan.totalUsd, 0);
    assert.match(plan.stages[1].outputs.join(" "), /data\/gsm8k-world\//);
  });

  it("refuses a world too small for the SFT questions plus GRPO's fresh ones (val is carved from train)", async () => {
    const s = miniature();
    s.data = { source: "synthetic", seed: 1, train: 510, dev: 20 };
    await assert.rejects(
      runPipeline({ startLocalBackend, dir: join(tmp(), "small"), backend: "local", settings: s, log: () => {} }),
      (e: Error) => e instanceof UserError && /the world has 10 train questions/.test(e.message),
    );
  });

  it("runs a miniature end to end on the local backend; the runs are the world's; a rerun skips every stage", async () => {
    const dir = join(tmp(), "pipe");
    const lines: string[] = [];
    const r = await runPipeline({
      startLocalBackend,
      dir,
      backend: "local",
      settings: miniature(),
      resamples: 200,
      log: (l) => lines.push(l),
    });
    const out = lines.join("\n");
    assert.doesNotMatch(out, /NaN/);
    assert.match(out, /not how Qwen3\.5-4B does on GSM8K/);
    for (const f of [
      "arithmetic/arithmetic_train.jsonl",
      "data/gsm8k-world/val.jsonl",
      "data/gsm8k-world/splits.json",
      "runs/sft-data/sft.jsonl",
      "runs/grpo/metrics.jsonl",
      "report.md",
      "ablation.json",
    ])
      assert.ok(existsSync(join(dir, f)), `${f} missing`);
    assert.equal(existsSync(join(dir, "runs", RUN_NAMES.closedBook)), false);
    assert.equal(existsSync(join(dir, "data", "bm25")), false);

    const manifest = (run: string) => JSON.parse(readFileSync(join(dir, "runs", run, "manifest.json"), "utf8"));
    for (const run of [
      RUN_NAMES.base,
      RUN_NAMES.sftData,
      RUN_NAMES.sft,
      RUN_NAMES.sftEval,
      RUN_NAMES.grpo,
      RUN_NAMES.grpoEval,
    ]) {
      if (run === RUN_NAMES.sft) continue; // train-sft records the SFT data it read, not an environment
      assert.equal(manifestEnvironment(manifest(run)).name, "gsm8k-world", `${run}/manifest.json`);
    }
    // The teacher has no rule for the price asked in words: those traces are dropped, the rest kept.
    const kept = readFileSync(join(dir, "runs", RUN_NAMES.sftData, "sft.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { question: string });
    assert.ok(kept.length > 0 && kept.length < 20, `kept ${kept.length} of 20`);
    assert.deepEqual(
      kept.filter((k) => worldKind(k.question) === "dollars"),
      [],
    );

    assert.ok(r.report);
    assert.deepEqual(
      r.report.runs.map((x) => x.name),
      [RUN_NAMES.base, RUN_NAMES.sftEval, RUN_NAMES.grpoEval],
    );
    assert.equal(r.report.shared, 20);
    assert.ok(r.report.runs.every((x) => Number.isFinite(x.primary.mean)));
    assert.match(r.table!, /accuracy/);
    assert.match(out, /GRPO vs SFT on val: Δ accuracy/);
    assert.match(out, /by kind: .*(count|price|stall|dollars) \(n \d+\) accuracy/);
    const report = readFileSync(join(dir, "report.md"), "utf8");
    assert.match(report, /## Results on the arithmetic world's val/);
    assert.match(report, /Limitation: the problems are an invented offline world/);

    // Each eval kept its run's Compare cache: a Compare of two of them (any size: 0) makes its table
    // from the caches with the one metric's intervals, draws only the pair's test, and gives the
    // report the runs' files give.
    const pair = [RUN_NAMES.base, RUN_NAMES.grpoEval].map((run) => join(dir, "runs", run));
    const undated = (v: CompareView) => ({ ...v, report: { ...v.report, created: "" } });
    const worker = new CompareWorker(0, true, null);
    try {
      const tables: CompareView[] = [];
      const request = { runDirs: pair, origin: "pipeline" as const, expect: undefined, searchDirs: [] };
      const view = worker.view(request, (t) => tables.push(t));
      assert.equal(tables.length, 1, "the table from the eval's caches");
      assert.ok(!Number.isNaN(tables[0].report.comparisons[0].binary.ci.lo), "Δ accuracy's interval remembered");
      assert.equal(worker.busy, true, "the pair's test drawn in a worker");
      const direct = shownView(compareView(loadAblationInputs(pair), "pipeline", undefined, []));
      assert.deepEqual(undated(await view), undated(direct));
    } finally {
      worker.dispose();
    }

    await assertRerunSkipsEveryStage(dir, miniature(), r, 8);
  });
});
