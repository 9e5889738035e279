/**
 * The training dashboard's data from a GRPO run folder in the trainer's own formats: a series per
 * numeric metric, group health per step, the val F1 (bootstrap CI) of checkpoints an eval run
 * scored, a group's episodes by line number, and appended or torn lines while the job runs.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../src/core/chat/offline-tokenizer";
import type { ChatTokenizer } from "../../../../src/core/chat/tokenizer";
import { groupEpisodeViews, groupHealth, readDashboard } from "../../../../src/core/trace/dashboard-view";
import { requireSharedData } from "../../../helpers/shared-data";
import { readHotpot } from "./real-episodes";
import { G, writeTrainingRun, type TrainingFixture } from "./training-fixture";

describe("trace: training dashboard data", function () {
  let tok: ChatTokenizer;
  let root: string;
  let fx: TrainingFixture;

  before(async function () {
    const rows = readHotpot(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl")).filter((r) => !["yes", "no"].includes(r.answer));
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
    assert.deepEqual(v.series[0].points, [[1, 0.333], [2, 1]]);
    assert.deepEqual(
      v.health.map((s) => [s.step, s.all_correct, s.all_wrong, s.mixed, s.constant]),
      [
        [1, 0, 1, 1, 0],
        [2, 1, 0, 0, 0],
      ],
    );
    assert.deepEqual(v.checkpoints.map((c) => [c.name, c.step, c.evalRun]), [["grpo-test-s1", 1, undefined], ["grpo-test-s2", 2, "val-grpo-s2"]]);
    const f1 = v.checkpoints[1].f1!;
    assert.equal(v.checkpoints[1].n, 6);
    assert.ok(Math.abs(f1.mean - 3.5 / 6) < 1e-12);
    assert.ok(f1.lo < f1.mean && f1.mean < f1.hi && f1.lo >= 0 && f1.hi <= 1, JSON.stringify(f1));
  });

  it("gives a group's G episodes, decoded, in sample order", async () => {
    const v = readDashboard(fx.runDir);
    const views = await groupEpisodeViews(fx.runDir, v.groups[0]);
    assert.equal(views.length, G);
    assert.deepEqual(views.map((e) => e.id), fx.episodes.slice(0, G).map((e) => e.id));
    assert.deepEqual(views.map((e) => e.reward), v.groups[0].rewards);
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
