/**
 * The offline pipeline: its plan (stages, sizes, status, cost), a miniature end-to-end run on the
 * real local backend over HTTP (every stage's outputs, the printed table and report), and a rerun
 * that skips every finished stage.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { planPipeline, renderPlan, RUN_NAMES } from "../../../../../src/core/steps/pipeline/plan";
import { INDEX_FORMAT, INDEX_VERSION } from "../../../../../src/core/base/search/bm25-format";
import { PIPELINE_MARKER, runPipeline } from "../../../../../src/core/steps/pipeline/run-pipeline";
import {
  checkSettings,
  defaultSettings,
  smokeSettings,
  type PipelineSettings,
} from "../../../../../src/core/steps/pipeline/settings";
import { generateSyntheticHotpot } from "../../../../../src/core/envs/hotpotqa/synthetic-world";
import { describeProgress, readProgress } from "../../../../../src/core/base/runs/progress";
import { manifestEnvironment } from "../../../../../src/core/envs/manifest-environment";
import { startLocalBackend } from "../../../../helpers/local-backend";
import { assertRerunSkipsEveryStage } from "./rerun";

/** Seconds, not minutes: 20 val questions, 20 teacher traces, one SFT epoch, two GRPO steps. */
const miniature = (): PipelineSettings => smokeSettings();

describe("core/steps/pipeline", function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "agent-lab-pipeline-"));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it("plans the recipe's sizes and a priced estimate for tinker, $0 for local", () => {
    const dir = tmp();
    const tinker = defaultSettings("tinker");
    const plan = planPipeline({ dir, config: loadConfig(dir), settings: tinker });
    assert.deepEqual(
      plan.stages.map((s) => s.name),
      [
        "world",
        "prepare",
        "index",
        "eval-closed-book",
        "eval-base",
        "sft-data",
        "train-sft",
        "eval-sft",
        "train-grpo",
        "eval-grpo",
        "ablate",
      ],
    );
    assert.ok(plan.stages.every((s) => s.status === "todo"));
    const text = renderPlan(plan);
    assert.match(text, /1500 train questions × 4 tries/);
    assert.match(text, /3 epochs, batch 32/);
    assert.match(text, /30 steps × 32 questions × 8 episodes/);
    // Sampling 6,000 rejection episodes and 30 × 256 RL episodes costs real money; evals are cheap next to it.
    const usd = Object.fromEntries(plan.stages.map((s) => [s.name, s.usd]));
    assert.ok(usd["sft-data"] > 1 && usd["train-grpo"] > usd["eval-base"] && usd["eval-base"] > 0, JSON.stringify(usd));
    assert.ok(Math.abs(plan.totalUsd - Object.values(usd).reduce((a, b) => a + b, 0)) < 1e-9);
    assert.match(text, /estimated cost: ≈ \$\d+\.\d\d in all/);

    const local = planPipeline({ dir, config: loadConfig(dir), settings: defaultSettings("local") });
    assert.equal(local.totalUsd, 0);
    assert.match(renderPlan(local), /cost: \$0/);
  });

  it("marks stages done, partial or to do from what the folder holds", () => {
    const dir = tmp();
    const config = loadConfig(dir);
    const settings = defaultSettings("local");
    const status = () =>
      Object.fromEntries(planPipeline({ dir, config, settings }).stages.map((s) => [s.name, s.status]));
    assert.equal(status().prepare, "todo");
    const write = (rel: string, text = "{}") => {
      const file = join(dir, rel);
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, text);
    };
    write("data/splits.json");
    write("data/bm25/meta.json", JSON.stringify({ format: INDEX_FORMAT, version: INDEX_VERSION - 1 }));
    assert.equal(status().index, "todo", "an index of an older format is rebuilt, not opened and refused");
    write("data/bm25/meta.json", JSON.stringify({ format: INDEX_FORMAT, version: INDEX_VERSION }));
    write(`runs/${RUN_NAMES.base}/summary.json`, JSON.stringify({ status: "done", n: 200, planned: 200 }));
    write(`runs/${RUN_NAMES.closedBook}/summary.json`, JSON.stringify({ status: "running", n: 12, planned: 200 }));
    write(
      `runs/${RUN_NAMES.sft}/checkpoints.jsonl`,
      JSON.stringify({ name: "sft-e1", batch: 10, epoch: 1, state_path: "s", sampler_path: "p" }) + "\n",
    );
    const s = status();
    assert.equal(s.prepare, "done");
    assert.equal(s.index, "done");
    assert.equal(s["eval-base"], "done");
    assert.equal(s["eval-closed-book"], "partial");
    assert.equal(s["train-sft"], "partial", "epoch 1 of 4 saved: resumed, not skipped");
    assert.equal(s["eval-grpo"], "todo");
  });

  it("a dry run prints the plan and writes nothing; a folder it did not make is refused", async () => {
    const dir = join(tmp(), "fresh");
    const lines: string[] = [];
    const r = await runPipeline({ startLocalBackend, dir, backend: "tinker", dryRun: true, log: (l) => lines.push(l) });
    assert.equal(existsSync(dir), false);
    assert.equal(r.report, undefined);
    assert.match(lines.join("\n"), /train-grpo\s+\[to do\]\s+≈ \$/);

    const foreign = tmp();
    writeFileSync(join(foreign, "notes.txt"), "mine");
    await assert.rejects(
      runPipeline({ startLocalBackend, dir: foreign, backend: "local", log: () => {} }),
      (e: Error) => e instanceof UserError && /not made by "agent-lab pipeline"/.test(e.message),
    );
    assert.deepEqual(readdirSync(foreign), ["notes.txt"]);
  });

  it("the default offline world holds every question SFT and GRPO take, each one fresh", () => {
    const s = defaultSettings("local");
    assert.equal(s.data.source, "synthetic");
    if (s.data.source !== "synthetic") return;
    checkSettings(s);
    const world = generateSyntheticHotpot({
      seed: s.data.seed,
      train: s.data.train,
      dev: s.data.dev,
      style: "compact",
    });
    assert.equal(world.train.length, s.data.train, "the generator delivers the train questions asked for");
    assert.ok(world.train.length >= s.sftData.questions + s.grpo.steps * s.grpo.questions);
    assert.equal(new Set(world.train.map((r) => r.question)).size, world.train.length);
  });

  it("refuses a world too small for the SFT questions plus GRPO's fresh questions", async () => {
    const s = defaultSettings("local");
    s.data = { source: "synthetic", seed: 1, train: 100, dev: 520 };
    await assert.rejects(
      runPipeline({ startLocalBackend, dir: join(tmp(), "small"), backend: "local", settings: s, log: () => {} }),
      (e: Error) => e instanceof UserError && /100 train questions/.test(e.message),
    );
  });

  it("a paid run stops before spending unless confirmed", async () => {
    const dir = tmp();
    writeFileSync(join(dir, PIPELINE_MARKER), "");
    await assert.rejects(runPipeline({ startLocalBackend, dir, backend: "tinker", log: () => {} }), /pass --yes/);
    await assert.rejects(
      runPipeline({ startLocalBackend, dir, backend: "tinker", confirm: async () => false, log: () => {} }),
      /stopped before spending/,
    );
    assert.equal(existsSync(join(dir, "data")), false);
  });

  it("runs a miniature end to end on the local backend, then a rerun skips every finished stage", async () => {
    const dir = join(tmp(), "pipe");
    const lines: string[] = [];
    // What the Jobs view would show while it runs: progress.json, polled like the extension does.
    const seen = new Set<string>();
    const poll = setInterval(() => {
      const p = readProgress(dir);
      if (p) seen.add(describeProgress(p));
    }, 20);
    const r = await runPipeline({
      startLocalBackend,
      dir,
      backend: "local",
      settings: miniature(),
      resamples: 200,
      log: (l) => lines.push(l),
    }).finally(() => clearInterval(poll));
    const out = lines.join("\n");
    // Every number the run prints was computed from what its stages wrote (the by-kind line read F1 from format 2 records as NaN).
    assert.doesNotMatch(out, /NaN/);
    const shown = [...seen].join("\n");
    // A stage's first state is written as it starts: what it plans shows before its first step
    // (with the whole job's ETA, which the engine knows from the stages before it).
    assert.match(shown, /^stage 7\/11 SFT · step 0\/2 · \$0\.00( · ETA \d+s)?$/m, shown);
    assert.match(shown, /^stage 9\/11 GRPO · step 0\/2 · \$0\.00( · ETA \d+s)?$/m, shown);
    // 15 of the miniature's 20 teacher traces are kept (it answers no yes/no or moved-to question): 2 steps of 8.
    assert.match(shown, /^stage 7\/11 SFT · step [1-2]\/2 · \$0\.00 · ETA \d+s$/m, shown);
    assert.match(shown, /^stage 4\/11 eval closed-book · episode \d+\/20 · \$0\.00/m, shown);
    assert.equal(readProgress(dir)?.status, "done");
    for (const run of [RUN_NAMES.base, RUN_NAMES.sftData, RUN_NAMES.sft, RUN_NAMES.grpo]) {
      assert.equal(readProgress(join(dir, "runs", run))?.status, "done", `${run}/progress.json`);
    }
    assert.match(out, /stand-in/);
    for (const f of [
      "hotpot/synthetic_train.json",
      "data/val.jsonl",
      "data/bm25/meta.json",
      "runs/sft-data/sft.jsonl",
      "runs/sft/checkpoints.jsonl",
      "runs/grpo/metrics.jsonl",
      "report.md",
      "ablation.json",
      "pipeline.json",
    ]) {
      assert.ok(existsSync(join(dir, f)), `${f} missing`);
    }
    for (const run of [RUN_NAMES.closedBook, RUN_NAMES.base, RUN_NAMES.sftEval, RUN_NAMES.grpoEval]) {
      const summary = JSON.parse(readFileSync(join(dir, "runs", run, "summary.json"), "utf8"));
      assert.equal(summary.status, "done", run);
      assert.equal(summary.n, 20, run);
    }
    // Runs on the synthetic world are recorded under the world's own environment, not HotpotQA's.
    for (const run of [RUN_NAMES.closedBook, RUN_NAMES.base, RUN_NAMES.sftData, RUN_NAMES.grpo, RUN_NAMES.grpoEval]) {
      const manifest = JSON.parse(readFileSync(join(dir, "runs", run, "manifest.json"), "utf8"));
      assert.equal(manifestEnvironment(manifest).name, "hotpotqa-world", run);
    }
    // The table compares the four runs on the same 20 val questions, base first.
    assert.ok(r.report);
    assert.deepEqual(
      r.report.runs.map((x) => x.name),
      [RUN_NAMES.base, RUN_NAMES.closedBook, RUN_NAMES.sftEval, RUN_NAMES.grpoEval],
    );
    assert.equal(r.report.shared, 20);
    assert.match(out, /vs base \(paired\)/);
    assert.match(out, /GRPO train reward over 2 steps/);
    const report = readFileSync(join(dir, "report.md"), "utf8");
    assert.match(report, /\| SFT \|/);
    assert.match(report, /## GRPO/);
    // The synthetic world's report carries its own caveat, not HotpotQA's corpus line.
    assert.match(report, /## Results on the synthetic world's val/);
    assert.match(report, /Limitation: the questions, titles and paragraphs are an invented offline world/);
    assert.doesNotMatch(report, /HotpotQA, so it is easier than full Wikipedia/);
    assert.deepEqual(Object.keys(r.stageSeconds).length, 11);

    await assertRerunSkipsEveryStage(dir, miniature(), r, 10);

    // Seeded throughout: the same settings in a fresh folder repeat GRPO's draws and metrics and every F1.
    const grpoRows = (d: string) =>
      readFileSync(join(d, "runs", "grpo", "metrics.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => {
          const m = JSON.parse(l);
          return [m.step, m.reward, m.datums, m.trained_tokens, m.skipped_count];
        });
    const grpoEpisodes = (d: string) =>
      readFileSync(join(d, "runs", "grpo", "episodes.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).tokens);
    const grpoManifest = JSON.parse(readFileSync(join(dir, "runs", "grpo", "manifest.json"), "utf8"));
    assert.equal(grpoManifest.seed, 3);
    assert.equal(grpoManifest.normalize_advantages, true, "the settings' advantage normalisation reaches trainGrpo");
    const twin = join(tmp(), "pipe");
    const r3 = await runPipeline({
      startLocalBackend,
      dir: twin,
      backend: "local",
      settings: miniature(),
      resamples: 200,
      log: () => {},
    });
    assert.deepEqual(grpoRows(twin), grpoRows(dir));
    assert.deepEqual(grpoEpisodes(twin), grpoEpisodes(dir));
    assert.deepEqual(
      r3.report!.runs.map((x) => x.primary.mean),
      r.report.runs.map((x) => x.primary.mean),
    );

    // Other settings in the same folder are refused, not mixed in.
    const other = miniature();
    other.sft.epochs = 2;
    await assert.rejects(
      runPipeline({ startLocalBackend, dir, backend: "local", settings: other, log: () => {} }),
      /other settings/,
    );
  });
});
