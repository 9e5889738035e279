/**
 * The tinker-cookbook reader over log folders written in the cookbook's documented layout: found
 * anywhere under a workspace (Agent Lab's own training runs are not mistaken for one), read as a
 * training run with steps and last reward, its metrics, checkpoints and rollouts as the dashboard
 * needs them, its logtree conversations as text; bad lines named by file and line.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { cookbookDashboard } from "../../../../../src/core/views/interop/cookbook-dashboard";
import {
  cookbookGroups,
  findCookbookRuns,
  isCookbookLogDir,
  logtreeFiles,
  readCookbookRun,
  readLogtreeTranscripts,
  readRolloutSummaries,
  transcriptsMarkdown,
} from "../../../../../src/core/views/interop/cookbook";
import { metricGroup, metricLabel } from "../../../../../src/core/views/trace/metric-groups";
import { writeCookbookRun, type CookbookFixture } from "../../../../helpers/cookbook-fixture";

describe("core: tinker-cookbook log folders", () => {
  let ws: string;
  let run: CookbookFixture;
  before(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-cookbook-"));
    run = writeCookbookRun(join(ws, "experiments", "hotpot-rl", "logs"), {
      steps: 7,
      groups: 4,
      groupSize: 4,
      saveEvery: 3,
      evalName: "val",
    });
    // Agent Lab's own GRPO run: metrics.jsonl and manifest.json, flat names.
    mkdirSync(join(ws, "runs", "grpo"), { recursive: true });
    writeFileSync(join(ws, "runs", "grpo", "metrics.jsonl"), JSON.stringify({ step: 0, reward: 0.4 }) + "\n");
    writeFileSync(join(ws, "runs", "grpo", "manifest.json"), "{}");
    mkdirSync(join(ws, "node_modules", "x", "logs"), { recursive: true });
  });
  after(() => rmSync(ws, { recursive: true, force: true }));

  it("finds cookbook folders anywhere in the workspace and nothing else", () => {
    assert.deepEqual(findCookbookRuns(ws), [run.dir]);
    assert.equal(isCookbookLogDir(join(ws, "runs", "grpo")), false, "Agent Lab's own run");
    // Without config.json or iteration folders, slashed metric names still tell.
    const bare = join(ws, "bare");
    mkdirSync(bare);
    writeFileSync(join(bare, "metrics.jsonl"), JSON.stringify({ step: 0, "env/all/reward/total": 0.1 }) + "\n");
    assert.equal(isCookbookLogDir(bare), true);
    rmSync(bare, { recursive: true });
  });

  it("reads the run: kind, steps, last reward, model, checkpoints, iterations", () => {
    const r = readCookbookRun(run.dir);
    assert.equal(r.kind, "rl");
    assert.equal(r.steps, 7);
    assert.equal(r.lastStep, 6);
    assert.equal(r.lastReward, run.rewards[6]);
    assert.equal(r.model, "Qwen/Qwen3-8B");
    assert.equal(r.doneFrac, 1);
    assert.deepEqual(r.iterations, [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(
      r.checkpoints.map((c) => [c.name, c.batch, c.final, c.sampler_path]),
      [
        ["000003", 3, false, "tinker://run-cb/sampler_weights/000003"],
        ["000006", 6, false, "tinker://run-cb/sampler_weights/000006"],
        ["final", 7, true, "tinker://run-cb/sampler_weights/final"],
      ],
    );
    assert.equal(r.checkpoints[2].state_path, "tinker://run-cb/weights/final");
  });

  it("gives the dashboard its metrics, group health from the rollouts and the checkpoints", () => {
    const view = cookbookDashboard(run.dir);
    assert.deepEqual(view.problems, []);
    const reward = view.series.find((s) => s.key === "env/all/reward/total")!;
    assert.deepEqual(
      reward.points.map(([, y]) => y),
      run.rewards,
    );
    assert.equal(view.groups.length, 7 * 4);
    assert.deepEqual(
      view.groups.filter((g) => g.step === 2).map((g) => g.rewards),
      run.groupRewards[2],
    );
    const step2 = view.health.find((h) => h.step === 2)!;
    const expected = run.groupRewards[2];
    assert.equal(step2.all_correct, expected.filter((g) => g.every((r) => r === 1)).length);
    assert.equal(step2.all_wrong, expected.filter((g) => g.every((r) => r === 0)).length);
    assert.equal(step2.mixed, expected.filter((g) => new Set(g).size > 1).length);
    assert.deepEqual(
      view.checkpoints.map((c) => [c.name, c.step, c.samplerPath]),
      run.checkpoints.map((c) => [c.name, c.batch, c.sampler_path]),
    );
    assert.equal(cookbookGroups(run.dir).length, 28);
    assert.equal(readRolloutSummaries(run.dir, 3, "eval_val").length, 4, "an eval split's rollouts");
  });

  it("labels and groups the cookbook's metric names", () => {
    assert.equal(metricLabel("env/all/reward/total"), "reward (mean total per episode)");
    assert.equal(metricLabel("env/all/by_group/frac_mixed"), "groups mixed (the ones that train)");
    assert.equal(metricLabel("env/hotpotqa/reward/total"), "reward (mean total per episode) [hotpotqa]");
    assert.equal(metricLabel("optim/kl_sample_train_v1"), "KL sampler → learner (v1)");
    assert.equal(metricLabel("time/sampling"), "time: sampling (s)");
    assert.equal(metricLabel("reward"), "reward", "Agent Lab's names unchanged");
    assert.deepEqual(
      [
        "env/all/reward/total",
        "env/all/by_group/frac_mixed",
        "optim/kl_sample_train_v1",
        "progress/done_frac",
        "time/total",
      ].map(metricGroup),
      ["reward", "health", "optimisation", "throughput", "throughput"],
    );
  });

  it("reads logtree conversations as text, and renders them inert as markdown", () => {
    const files = logtreeFiles(run.dir);
    assert.equal(files.length, 7);
    assert.deepEqual(files[0], {
      iteration: 0,
      base: "train",
      file: join(run.dir, "iteration_000000", "train_logtree.json"),
    });
    const t = readLogtreeTranscripts(files[1].file);
    assert.equal(t.length, 2);
    assert.deepEqual(t[0].messages, [
      { role: "user", text: "Question 0 of step 1?" },
      { role: "assistant", text: "<answer>guess 0</answer>" },
    ]);
    const md = transcriptsMarkdown(t, "hotpot-rl · iteration 1 · train");
    assert.match(md, /^# hotpot-rl · iteration 1 · train/);
    assert.match(md, /\*\*assistant\*\*\n\n```text\n<answer>guess 0<\/answer>\n```/);
  });

  it("names the file and line of a bad record, and skips a torn last line while the trainer appends", () => {
    appendFileSync(join(run.dir, "metrics.jsonl"), '{"step": 7, "env/all/rew');
    assert.equal(readCookbookRun(run.dir).steps, 7, "the torn line is not counted");
    const bad = join(ws, "bad");
    writeCookbookRun(bad, { steps: 1 });
    writeFileSync(join(bad, "checkpoints.jsonl"), '\n{"batch": 3}\n');
    assert.throws(
      () => readCookbookRun(bad),
      (e: unknown) =>
        e instanceof FileFormatError && /checkpoints\.jsonl:2/.test(e.message) && /"name"/.test(e.message),
    );
    writeFileSync(join(bad, "iteration_000000", "train_rollout_summaries.jsonl"), '{"group_idx": 0}\n');
    assert.throws(
      () => readRolloutSummaries(bad, 0),
      /train_rollout_summaries\.jsonl:1.*group_idx, traj_idx and total_reward/,
    );
    assert.match(
      cookbookDashboard(bad).problems.join("\n"),
      /checkpoints\.jsonl:2/,
      "the dashboard shows the problem instead of failing",
    );
  });
});
