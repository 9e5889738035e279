/**
 * The verdict in one plain sentence, written from the numbers and the spec's conditions: the issue's
 * own example, a supported verdict, bounds, an undefined recovery and drift.
 */
import { strict as assert } from "node:assert";
import { verdictSentence, type VerdictSentenceInput } from "../../../../../src/core/views/experiments/verdict-sentence";

const est = (point: number, lo: number, hi: number) => ({ point, ci: { lo, hi } });

function input(over: Partial<VerdictSentenceInput> = {}): VerdictSentenceInput {
  return {
    verdict: "refuted",
    metric: "val F1",
    base: "the SFT warm start",
    treatment: "generated (GRPO on generated tasks)",
    reference: "world (GRPO on the environment's train split)",
    treatmentName: "generated",
    referenceName: "world",
    numbers: {
      minus_base: { generated: est(0.003, -0.047, 0.053), world: est(0.027, -0.01, 0.06) },
      arm_minus_reference: est(-0.024, -0.07, 0.02),
      recovery: { ...est(0.11, -0.4, 0.6), resamples_used: 990 },
    },
    supported: [
      { condition: { stat: "arm_minus_base", op: ">=", value: 0.02 }, holds: false },
      { condition: { stat: "recovery", op: ">=", value: 0.5 }, holds: false },
    ],
    refuted: [
      { condition: { stat: "arm_minus_base", op: "<", value: 0.01 }, holds: true },
      { condition: { stat: "drift" }, holds: false },
    ],
    drift: { fell: false, rewardRose: false },
    ...over,
  };
}

describe("views: the verdict sentence", () => {
  it("says the issue's refuted example with its numbers, thresholds and the refuting condition", () => {
    assert.equal(
      verdictSentence(input()),
      "refuted: generated (GRPO on generated tasks) moved val F1 by +0.003 [−0.047, +0.053] over the SFT warm start, " +
        "below the +0.020 the hypothesis needs, below the +0.010 that refutes it; " +
        "it recovered 11% [−40%, 60%] of world's gain, below the 50% the hypothesis needs",
    );
  });

  it("a supported verdict says the thresholds it met; a bound is named with its own number", () => {
    const s = verdictSentence(
      input({
        verdict: "supported",
        numbers: {
          minus_base: { generated: est(0.05, 0.03, 0.07), world: est(0.06, 0.04, 0.08) },
          arm_minus_reference: est(-0.01, -0.03, 0.01),
          recovery: { ...est(0.83, 0.6, 1.1), resamples_used: 1000 },
        },
        supported: [{ condition: { stat: "arm_minus_base", op: ">=", value: 0.02, bound: "ci_lo" }, holds: true }],
        refuted: [{ condition: { stat: "arm_minus_base", op: "<", value: 0.01 }, holds: false }],
      }),
    );
    assert.equal(
      s,
      "supported: generated (GRPO on generated tasks) moved val F1 by +0.050 [+0.030, +0.070] over the SFT warm start, " +
        "its lower bound +0.030 above the +0.020 the hypothesis needs",
    );
  });

  it("an undefined recovery says why; drift that holds is said in words", () => {
    const s = verdictSentence(
      input({
        numbers: {
          minus_base: { generated: est(-0.02, -0.05, 0.01), world: est(0, 0, 0) },
          arm_minus_reference: est(-0.02, -0.05, 0.01),
          recovery: null,
        },
        supported: [{ condition: { stat: "recovery", op: ">=", value: 0.5 }, holds: false }],
        refuted: [{ condition: { stat: "drift" }, holds: true }],
        drift: { fell: true, rewardRose: true },
      }),
    );
    assert.equal(
      s,
      "refuted: recovery is undefined (world (GRPO on the environment's train split) did not move val F1 from the SFT warm start); " +
        "val F1 fell below the SFT warm start while train reward kept rising",
    );
  });
});
