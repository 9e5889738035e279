/**
 * The Checkpoints sidebar's view model on a workspace made by the real steps (GRPO runs trained on
 * the local backend, val evals by evalSplit; checkpoint-evals-fixture.ts): rows in training order
 * with the fingerprint-matched score, an eval with another prompt listed apart naming the field,
 * the unevaluated checkpoint listed as missing, the paired Δ against each kind of baseline equal to
 * a two-run Compare's with Holm across the rows, and the recipe's best-by-val rule.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUN_FILES } from "../../../../../src/core/base/runs/run-folder";
import { holmAdjust } from "../../../../../src/core/base/stats/significance";
import { ablate, loadAblationInputs } from "../../../../../src/core/steps/ablate/ablate";
import { bestByVal } from "../../../../../src/core/views/checkpoints/best-by-val";
import {
  BASE_MODEL_BASELINE,
  BEST_SFT_BASELINE,
  checkpointBaseline,
  checkpointsSidebarView,
  checkpointValScores,
  matchedEvals,
} from "../../../../../src/core/views/checkpoints/sidebar-view";
import { valScoreText } from "../../../../../src/core/views/checkpoints/val-score-text";
import { checkpointRows, readCheckpointRegistry } from "../../../../../src/extension/checkpoints/checkpoints-model";
import { requireSharedData } from "../../../../helpers/shared-data";
import { buildEvalWorld, type EvalWorld } from "../trace/checkpoint-evals-fixture";

const f3 = (v: number) => v.toFixed(3);

describe("views/checkpoints: the sidebar's view model", function () {
  this.timeout(180_000);
  let w: EvalWorld;

  before(async function () {
    const dev = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl");
    const train = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    w = await buildEvalWorld(dev, train);
  });
  after(async () => w?.world.close());

  it("lists every checkpoint in training order, the matched score, other evals apart naming the field, the missing", () => {
    const v = checkpointsSidebarView(w.runsDir);
    assert.deepEqual(v.problems, []);
    assert.deepEqual(
      v.runs.map((r) => [r.name, r.kind, r.chosen]),
      [
        ["grpo-a", "grpo", true],
        ["grpo-b", "grpo", true],
      ],
    );
    assert.deepEqual(
      v.rows.map((r) => [r.name, r.step, r.evalRun]),
      [
        ["grpo-a-s1", 1, "val-a-s1"],
        ["grpo-b-s1", 1, "val-b-s1"],
        ["grpo-b-s2", 2, undefined],
      ],
    );
    assert.equal(v.valMetric, "F1");
    assert.deepEqual(
      v.rows[1].otherEvals.map((o) => [o.evalRun, o.differs]),
      [["val-b-s1-prompt2", ["system_prompt.sha256"]]],
      "the eval with another prompt is listed apart, naming the field",
    );
    assert.deepEqual(v.missing, [{ name: "grpo-b-s2", run: "grpo-b" }]);
    const chosen = checkpointsSidebarView(w.runsDir, ["grpo-b"]);
    assert.deepEqual(
      chosen.rows.map((r) => r.name),
      ["grpo-b-s1", "grpo-b-s2"],
      "only the chosen run's checkpoints",
    );
  });

  it("pairs each row with the base model as a two-run Compare does, Holm-adjusted across the rows", () => {
    const v = checkpointsSidebarView(w.runsDir);
    assert.equal(v.baseline?.id, BASE_MODEL_BASELINE, "the base model is the default baseline");
    assert.equal(v.baseline?.evalRun, "val-base");
    const withDelta = v.rows.filter((r) => r.delta);
    assert.deepEqual(
      withDelta.map((r) => r.name),
      ["grpo-a-s1", "grpo-b-s1"],
    );
    assert.equal(v.holmFamily, 2);
    const direct = withDelta.map(
      (r) => ablate(loadAblationInputs([join(w.runsDir, "val-base"), join(w.runsDir, r.evalRun!)])).comparisons[0],
    );
    withDelta.forEach((r, i) => {
      assert.ok(Math.abs(r.delta!.delta - direct[i].primary.delta) < 1e-12);
      assert.deepEqual([r.delta!.lo, r.delta!.hi], [direct[i].primary.ci.lo, direct[i].primary.ci.hi]);
      assert.equal(r.delta!.p, direct[i].primary.p, "the raw p of a two-run Compare");
    });
    assert.deepEqual(
      withDelta.map((r) => r.delta!.pHolm),
      holmAdjust(direct.map((c) => c.primary.p)),
      "Holm across the rows, as computed directly",
    );
  });

  it("takes any scored checkpoint as the baseline; the best SFT epoch says why it is not available", () => {
    const v = checkpointsSidebarView(w.runsDir, undefined, checkpointBaseline("grpo-a-s1"));
    assert.equal(v.baseline?.evalRun, "val-a-s1");
    const own = v.rows.find((r) => r.name === "grpo-a-s1")!;
    assert.equal(own.isBaseline, true);
    assert.equal(own.delta, undefined, "no Δ against itself");
    assert.ok(v.rows.find((r) => r.name === "grpo-b-s1")!.delta);
    assert.equal(v.holmFamily, 1);
    const sft = v.baselines.find((b) => b.id === BEST_SFT_BASELINE)!;
    assert.equal(sft.evalRun, undefined);
    assert.equal(sft.why, "no SFT run among or behind the chosen runs");
  });

  it("marks the best by val; overlapping intervals keep the earlier, cheaper checkpoint and say so", async () => {
    await w.evaluate("val-b-s2", "grpo-b-s2", "prompt.txt", SEED_FOR_BETTER_S2);
    const v = checkpointsSidebarView(w.runsDir);
    const scored = v.rows.filter((r) => r.primary);
    assert.deepEqual(
      scored.map((r) => r.name),
      ["grpo-a-s1", "grpo-b-s1", "grpo-b-s2"],
    );
    assert.deepEqual(v.missing, [], "nothing left to evaluate");
    const s2 = scored[2].primary!;
    assert.ok(
      scored.slice(0, 2).every((r) => r.primary!.mean < s2.mean),
      "grpo-b-s2 has the highest mean",
    );
    assert.equal(v.best?.top, "grpo-b-s2");
    assert.equal(v.best?.best, "grpo-a-s1", "eight questions: the intervals overlap, the earliest is kept");
    assert.deepEqual(v.best?.overlapping, ["grpo-a-s1", "grpo-b-s1"]);
    assert.match(v.best!.note, /^intervals overlap: grpo-b-s2 has the highest val mean/);
    assert.deepEqual(
      v.rows.filter((r) => r.isBest).map((r) => r.name),
      ["grpo-a-s1"],
    );
    assert.equal(v.holmFamily, 3, "the new row joins the Holm family");
  });

  it("keeps the top checkpoint when no other interval overlaps it; says so when later ones overlap an earliest top", () => {
    const b = bestByVal(
      [
        { name: "e1", primary: { mean: 0.2, lo: 0.15, hi: 0.25 } },
        { name: "e2", primary: { mean: 0.5, lo: 0.45, hi: 0.55 } },
        { name: "e3", primary: { mean: 0.4, lo: 0.35, hi: 0.44 } },
      ],
      f3,
    );
    assert.deepEqual([b?.best, b?.top, b?.overlapping], ["e2", "e2", []]);
    assert.equal(
      b?.note,
      "e2 has the highest val mean, 0.500 [0.450, 0.550], and no other checkpoint's interval overlaps it",
    );
    assert.equal(bestByVal([], f3), null);
    const tied = bestByVal(
      [
        { name: "e1", primary: { mean: 0.5, lo: 0.4, hi: 0.6 } },
        { name: "e2", primary: { mean: 0.5, lo: 0.4, hi: 0.6 } },
      ],
      f3,
    );
    assert.deepEqual([tied?.best, tied?.top, tied?.overlapping], ["e1", "e1", ["e2"]], "a tie goes to the earlier");
    assert.equal(
      tied?.note,
      "intervals overlap: e1 has the highest val mean, 0.500 [0.400, 0.600]; e2 overlaps it, and it is the earliest of them, so it is kept",
    );
  });

  it("the Checkpoints tree's rows show the matched val score with its interval; unscored rows show none", () => {
    const scores = checkpointValScores(w.runsDir);
    const view = checkpointsSidebarView(w.runsDir);
    const rows = checkpointRows(readCheckpointRegistry(w.runsDir), scores);
    for (const r of view.rows) {
      const tree = rows.find((t) => t.entry.name === r.name)!;
      if (r.primary) {
        const text = `F1 ${f3(r.primary.mean)} [${f3(r.primary.lo)}, ${f3(r.primary.hi)}]`;
        assert.equal(valScoreText(scores.get(r.name)!), text);
        assert.ok(tree.description.endsWith(` · ${text}`), tree.description);
        assert.ok(tree.tooltip.includes(`val F1: ${text} (${r.evalRun})`), tree.tooltip);
      } else assert.doesNotMatch(tree.description, /F1/);
    }
  });

  it("finds the matched evals of checkpoints picked to compare, naming those without one", () => {
    const m = matchedEvals(w.runsDir, ["grpo-b-s1", "grpo-a-s1", "nope"]);
    assert.deepEqual(m.dirs, [join(w.runsDir, "val-b-s1"), join(w.runsDir, "val-a-s1")]);
    assert.deepEqual(m.missing, ["nope"]);
  });
  it("an eval's score is kept while its episodes keep their size and time, and scored again when they change", () => {
    const runsDir = mkdtempSync(join(tmpdir(), "agent-lab-scores-"));
    try {
      cpSync(w.runsDir, runsDir, { recursive: true });
      // A whole second, which utimes puts back exactly.
      const episodes = join(runsDir, "val-a-s1", RUN_FILES.episodes);
      const time = new Date(1_800_000_000_000);
      utimesSync(episodes, time, time);
      const scored = checkpointValScores(runsDir).get("grpo-a-s1");
      assert.equal(scored?.evalRun, "val-a-s1");
      // Blank lines of the same length, with the time put back: not read again, so the score stays.
      writeFileSync(episodes, " ".repeat(statSync(episodes).size - 1) + "\n");
      utimesSync(episodes, time, time);
      assert.deepEqual(checkpointValScores(runsDir).get("grpo-a-s1"), scored);
      // A new time is a change: read again, the blank file scores nothing.
      utimesSync(episodes, time, new Date(time.getTime() + 1000));
      assert.equal(checkpointValScores(runsDir).get("grpo-a-s1"), undefined);
    } finally {
      rmSync(runsDir, { recursive: true, force: true });
    }
  });
});

/** A plan-policy seed whose eval of grpo-b-s2 scores above the other checkpoints' (found by running it). */
const SEED_FOR_BETTER_S2 = 2;
