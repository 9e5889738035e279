/**
 * The training dashboard's data from a GRPO run folder in the trainer's own formats: a series per
 * numeric metric, group health per step, the val F1 (bootstrap CI) of checkpoints an eval run
 * scored, a group's episodes by line number, and appended or torn lines while the job runs.
 */
import assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { groupEpisodeViews, groupHealth, readDashboard } from "../../../../../src/core/views/trace/dashboard-view";
import { requireSharedData } from "../../../../helpers/shared-data";
import { readHotpot } from "./real-episodes";
import { G, writeTrainingRun, type TrainingFixture } from "./training-fixture";
import { buildEvalWorld, type EvalWorld } from "./checkpoint-evals-fixture";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { PLAYGROUND_FIELD } from "../../../../../src/core/base/runs/manifest";
import { overlayCandidates, readOverlay } from "../../../../../src/core/views/trace/overlay-runs";
import { basename } from "node:path";
import { ablate, loadAblationInputs } from "../../../../../src/core/steps/ablate/ablate";
import { metricValue } from "../../../../../src/core/base/runs/metrics";
import { inQuestionOrder, meanInterval } from "../../../../../src/core/base/stats/shown-interval";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

describe("trace: training dashboard data", function () {
  let tok: ChatTokenizer;
  let root: string;
  let fx: TrainingFixture;

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).filter(
      (r) => !["yes", "no"].includes(r.answer),
    );
    tok = await offlineTokenizer("qwen3");
    root = mkdtempSync(join(tmpdir(), "agent-lab-dash-"));
    fx = await writeTrainingRun(root, tok, rows);
  });
  // root is unset when the before hook skipped (no shared data): nothing to remove then.
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("classifies groups by their rewards", () => {
    assert.equal(groupHealth([1, 1, 1]), "all_correct");
    assert.equal(groupHealth([0, 0]), "all_wrong");
    assert.equal(groupHealth([0.5, 0.5]), "constant");
    assert.equal(groupHealth([1, 0, 0.5]), "mixed");
  });

  it("reads metrics, group health and checkpoint scores", () => {
    const v = readDashboard(fx.runDir);
    assert.deepEqual(v.problems, []);
    assert.deepEqual(
      v.series.map((s) => s.key),
      ["reward", "skipped_groups", "searches", "answered", "budget_hit", "tokens", "usd"],
      "numeric fields only (booleans, strings and arrays are not series)",
    );
    assert.deepEqual(v.series[0].points, [
      [1, 0.333],
      [2, 1],
    ]);
    assert.deepEqual(
      v.health.map((s) => [s.step, s.all_correct, s.all_wrong, s.mixed, s.constant]),
      [
        [1, 0, 1, 1, 0],
        [2, 1, 0, 1, 0],
      ],
    );
    assert.deepEqual(
      v.health.map((s) => s.groups),
      [
        [0, 1],
        [3, 2],
      ],
      "a step lists its mixed groups first",
    );
    const ninth = fx.episodes[9] as (typeof fx.episodes)[number] & { question_id: string };
    assert.equal(v.questions[ninth.question_id], ninth.question, "question text by id, from the run's episodes");
    assert.deepEqual(
      v.checkpoints.map((c) => [c.name, c.step, c.evalRun]),
      [
        ["grpo-test-s1", 1, undefined],
        ["grpo-test-s2", 2, "val-grpo-s2"],
      ],
    );
    const f1 = v.checkpoints[1].primary!;
    assert.equal(v.checkpoints[1].n, 6);
    assert.ok(Math.abs(f1.mean - 3.5 / 6) < 1e-12);
    assert.ok(f1.lo < f1.mean && f1.mean < f1.hi && f1.lo >= 0 && f1.hi <= 1, JSON.stringify(f1));
  });

  it("draws a checkpoint's val interval with ablate's bootstrap: Compare and the report print the same digits", () => {
    const v = readDashboard(fx.runDir);
    const evalDir = join(fx.runsDir, "val-grpo-s2");
    const [run] = ablate(loadAblationInputs([evalDir])).runs;
    const shown = v.checkpoints[1].primary!;
    assert.deepEqual([shown.mean, shown.lo, shown.hi], [run.primary.mean, run.primary.ci.lo, run.primary.ci.hi]);
    // Lines in another order than the ids' (a resumed eval appends late questions last): the same interval.
    const lines = readFileSync(join(evalDir, "episodes.jsonl"), "utf8").trim().split("\n");
    const shuffled = join(fx.runsDir, "val-grpo-s2-shuffled");
    cpSync(evalDir, shuffled, { recursive: true });
    writeFileSync(join(shuffled, "episodes.jsonl"), [...lines.slice(3), ...lines.slice(0, 3)].join("\n") + "\n");
    const [again] = ablate(loadAblationInputs([shuffled])).runs;
    assert.deepEqual(again.primary.ci, run.primary.ci);
    assert.deepEqual(
      meanInterval(inQuestionOrder(readEpisodes(shuffled, environmentMetrics)).map((e) => metricValue(e, "f1"))).ci,
      run.primary.ci,
    );
    rmSync(shuffled, { recursive: true, force: true });
  });

  it("gives a group's G episodes, decoded, in sample order", async () => {
    const v = readDashboard(fx.runDir);
    const views = await groupEpisodeViews(fx.runDir, v.groups[0]);
    assert.equal(views.length, G);
    assert.deepEqual(
      views.map((e) => e.id),
      fx.episodes.slice(0, G).map((e) => e.id),
    );
    assert.deepEqual(
      views.map((e) => e.reward),
      v.groups[0].rewards,
    );
    assert.ok(views[0].tokens.texts.join("").includes("<answer>"));
  });

  it("follows a growing log and skips a torn last line", () => {
    const file = join(fx.runDir, "metrics.jsonl");
    appendFileSync(file, JSON.stringify({ step: 3, reward: 0.5, usd: 0.03 }) + "\n" + '{"step": 4, "rew');
    const v = readDashboard(fx.runDir);
    assert.deepEqual(v.series.find((s) => s.key === "reward")!.points.at(-1), [3, 0.5]);
    assert.deepEqual(v.problems, []);
  });

  it("reports a broken line instead of failing the whole view", () => {
    appendFileSync(join(fx.runDir, "groups.jsonl"), "not json\n");
    const v = readDashboard(fx.runDir);
    assert.equal(v.problems.length, 1);
    assert.match(v.problems[0], /groups\.jsonl/);
    assert.ok(v.series.length > 0, "metrics still shown");
  });
});

describe("trace: dashboard checkpoint scores from real training and eval runs", function () {
  this.timeout(120_000);
  let w: EvalWorld;

  before(async function () {
    const dev = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    const train = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    w = await buildEvalWorld(dev, train);
  });
  after(async () => w?.world.close());

  const meanF1 = (run: string) => {
    const f1 = readEpisodes(join(w.runsDir, run), environmentMetrics).map((e) => e.metrics.f1);
    return f1.reduce((s, x) => s + x, 0) / f1.length;
  };

  it("scores a checkpoint only from the eval with the run's settings; a later prompt rerun is listed apart", () => {
    const v = readDashboard(w.grpoB);
    assert.deepEqual(v.problems, []);
    assert.equal(v.evalSettings?.source, "grpo-b/manifest.json");
    const [s1, s2] = v.checkpoints;
    assert.equal(s1.name, "grpo-b-s1");
    assert.equal(s1.evalRun, "val-b-s1", "the newer val-b-s1-prompt2 used another system prompt");
    assert.ok(Math.abs(s1.primary!.mean - meanF1("val-b-s1")) < 1e-12);
    assert.deepEqual(
      s1.otherEvals.map((o) => [o.evalRun, o.differs]),
      [["val-b-s1-prompt2", ["system_prompt.sha256"]]],
    );
    assert.ok(Math.abs(s1.otherEvals[0].primary.mean - meanF1("val-b-s1-prompt2")) < 1e-12);
    assert.equal(s2.name, "grpo-b-s2");
    assert.equal(s2.primary, undefined, "not evaluated");
    assert.match(s2.samplerPath ?? "", /^tinker:\/\//, "what Evaluate samples from");
  });

  it("gives the base model's and the starting checkpoint's val F1 as reference lines", () => {
    const v = readDashboard(w.grpoB);
    assert.deepEqual(
      v.references.map((r) => [r.label, r.evalRun, r.n]),
      [
        ["base", "val-base", 8],
        ["start grpo-a-s1", "val-a-s1", 8],
      ],
    );
    assert.ok(Math.abs(v.references[0].primary.mean - meanF1("val-base")) < 1e-12);
    assert.ok(
      v.references[0].primary.lo <= v.references[0].primary.mean &&
        v.references[0].primary.mean <= v.references[0].primary.hi,
    );
  });

  it("offers the other training runs beside it as overlays, with their metric series", () => {
    const candidates = overlayCandidates(w.grpoB).map((d) => basename(d));
    assert.deepEqual(candidates, ["grpo-a"], "training runs only (eval runs have no metrics.jsonl), not itself");
    const o = readOverlay(join(w.runsDir, "grpo-a"));
    assert.equal(o.problem, undefined);
    assert.deepEqual(
      o.series.find((s) => s.key === "reward")!.points.map(([x]) => x),
      [1],
    );
    assert.match(readOverlay(join(w.runsDir, "val-base")).problem!, /metrics\.jsonl does not exist/);
  });

  it("lists the questions of the run's real groups", () => {
    const v = readDashboard(w.grpoB);
    assert.equal(v.groups.length, 4);
    const train = new Map(
      readFileSync(join(w.world.root, "data", "train.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: string; question: string })
        .map((q) => [q.id, q.question]),
    );
    for (const g of v.groups)
      assert.equal(v.questions[g.question_id!], train.get(g.question_id!), `question text for ${g.question_id}`);
  });

  it("leaves a playground episode saved on a checkpoint out of its score and its other evals (one episode is no val estimate)", () => {
    const chat = join(w.runsDir, "chat-b-s1");
    cpSync(join(w.runsDir, "val-b-s1"), chat, { recursive: true });
    try {
      // The newest eval of grpo-b-s1 with the run's settings, as the playground saves one.
      const manifestFile = join(chat, "manifest.json");
      const m = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown> & {
        job: { created: string };
      };
      m.job.created = new Date(Date.now() + 60_000).toISOString();
      m[PLAYGROUND_FIELD] = { turns: [{ temperature: 0, max_tokens: 64 }] };
      writeFileSync(manifestFile, JSON.stringify(m));
      const [s1] = readDashboard(w.grpoB).checkpoints;
      assert.equal(s1.evalRun, "val-b-s1");
      assert.ok(!s1.otherEvals.some((o) => o.evalRun === "chat-b-s1"));
    } finally {
      rmSync(chat, { recursive: true, force: true });
    }
  });
});
