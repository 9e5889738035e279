/**
 * The experiment's numbers: the paired deltas are ablate's (the same resamples: same seed, stream
 * and item order), the recovery interval is the ratio resample by resample, and the verdict follows
 * the criterion as data.
 */
import { strict as assert } from "node:assert";
import { ablate, type AblationInput } from "../../../../../src/core/steps/ablate/ablate";
import { decideVerdict, experimentNumbers } from "../../../../../src/core/steps/experiments/analysis";
import type { ExperimentSpec } from "../../../../../src/core/steps/experiments/spec";
import type { EpisodeRecord } from "../../../../../src/core/base/runs/run-files";
import { mulberry32 } from "../../../../../src/core/base/util/mulberry32";

function column(n: number, p: number, seed: number): number[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, () => (r() < p ? 1 : 0));
}

function run(name: string, values: number[]): AblationInput {
  const episodes = values.map(
    (v, i) =>
      ({
        id: `q${String(i).padStart(4, "0")}`,
        question: "",
        answers: [],
        prediction: "",
        format: 2,
        metrics: { em: v, f1: v },
        reward: v,
        end: "answer",
        searches: [],
        prompt: [],
        tokens: [],
        sampled: [],
        logprobs: null,
        prefill: 0,
        generated: 0,
        usd: 0,
      }) as EpisodeRecord,
  );
  return { name, dir: name, manifest: undefined, episodes };
}

const spec = (supported: ExperimentSpec["criterion"]["supported"], refuted: ExperimentSpec["criterion"]["refuted"]) =>
  ({ metric: "f1", criterion: { treatment: "t", reference: "r", supported, refuted } }) as unknown as ExperimentSpec;

describe("experiments: numbers and verdict", () => {
  const n = 300;
  const base = column(n, 0.3, 1);
  const t = base.map((b, i) => (b || i % 3 === 0 ? 1 : 0));
  const r = base.map((b, i) => (b || i % 2 === 0 ? 1 : 0));

  it("gives ablate's paired deltas and intervals for the same items, seed and resamples", () => {
    const nums = experimentNumbers({ base, t, r }, "t", "r", { resamples: 2000, seed: 5 });
    const report = ablate([run("base", base), run("t", t), run("r", r)], { resamples: 2000, seed: 5 });
    for (const [k, c] of [
      ["t", report.comparisons[0]],
      ["r", report.comparisons[1]],
    ] as const) {
      assert.equal(nums.minus_base[k].point, c.primary.delta);
      assert.deepEqual(nums.minus_base[k].ci, c.primary.ci);
    }
    assert.deepEqual(nums.scores.base.ci, report.runs[0].primary.ci);
  });

  it("recovery is (t − base)/(r − base) with a paired interval around it; undefined when r did not move", () => {
    const nums = experimentNumbers({ base, t, r }, "t", "r", { resamples: 2000, seed: 0 });
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    assert.ok(Math.abs(nums.recovery!.point - (mean(t) - mean(base)) / (mean(r) - mean(base))) < 1e-12);
    assert.ok(nums.recovery!.ci.lo < nums.recovery!.point && nums.recovery!.point < nums.recovery!.ci.hi);
    assert.equal(nums.recovery!.resamples_used, 2000);
    assert.equal(experimentNumbers({ base, t, r: base }, "t", "r", { resamples: 500, seed: 0 }).recovery, null);
  });

  it("supported when every supported condition holds, refuted when any refuted one does, else inconclusive", () => {
    const nums = experimentNumbers({ base, t, r }, "t", "r", { resamples: 1000, seed: 0 });
    const gain = nums.minus_base.t.point;
    assert.equal(
      decideVerdict(
        nums,
        spec(
          [
            { stat: "arm_minus_base", op: ">=", value: gain - 0.01 },
            { stat: "recovery", op: ">=", value: 0.5 },
          ],
          [{ stat: "arm_minus_base", op: "<", value: 0.01 }],
        ),
        null,
      ).verdict,
      "supported",
    );
    assert.equal(
      decideVerdict(
        nums,
        spec(
          [{ stat: "arm_minus_base", op: ">=", value: gain + 0.01 }],
          [{ stat: "arm_minus_base", op: "<", value: 0.01 }],
        ),
        null,
      ).verdict,
      "inconclusive",
    );
    assert.equal(
      decideVerdict(
        nums,
        spec(
          [{ stat: "arm_minus_base", op: ">=", value: 0 }],
          [{ stat: "arm_minus_base", op: "<", value: gain + 0.01 }],
        ),
        null,
      ).verdict,
      "refuted",
    );
    // The CI bound is the judge when the criterion asks for it.
    const lo = decideVerdict(
      nums,
      spec(
        [{ stat: "arm_minus_base", op: ">=", value: gain, bound: "ci_lo" }],
        [{ stat: "arm_minus_base", op: "<", value: -1 }],
      ),
      null,
    );
    assert.equal(lo.verdict, "inconclusive");
    assert.equal(lo.supported[0].observed, nums.minus_base.t.ci.lo);
    // Drift: scores fall below base while the train reward rises.
    const worse = experimentNumbers({ base, t: base.map(() => 0), r }, "t", "r", { resamples: 500, seed: 0 });
    const rising = {
      steps: 10,
      rewards: [],
      slope: 0.05,
      slopeCi: [0.02, 0.08] as [number, number],
      firstThird: 0.1,
      lastThird: 0.5,
    };
    assert.equal(
      decideVerdict(worse, spec([{ stat: "arm_minus_base", op: ">=", value: -1 }], [{ stat: "drift" }]), rising)
        .verdict,
      "refuted",
    );
    assert.equal(
      decideVerdict(worse, spec([{ stat: "arm_minus_base", op: ">=", value: -1 }], [{ stat: "drift" }]), {
        ...rising,
        slopeCi: [-0.01, 0.08],
      }).verdict,
      "supported",
    );
  });
});
