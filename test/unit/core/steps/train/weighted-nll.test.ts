/** SFT's loss line: the weighted negative log-likelihood over a whole batch (mutation-testing gaps, issue 31). */
import { strict as assert } from "node:assert";
import type { Datum } from "../../../../../src/core/base/tinker/wire/types";
import { weightedNll } from "../../../../../src/core/steps/train";

const datum = (weights: number[]): Datum => ({
  model_input: { chunks: [] },
  loss_fn_inputs: { weights: { data: weights, dtype: "float32" } },
});
const out = (logprobs: number[]) => ({ logprobs: { data: logprobs } });

describe("train/sft weightedNll", () => {
  it("is −Σ w·logprob / Σ w over every datum of the batch, with Σ w as its weight", () => {
    const batch = [datum([0, 1, 1]), datum([2, 0])];
    const r = weightedNll(batch, [out([-9, -1, -2]), out([-0.5, -7])]);
    // (1 + 2 + 2·0.5) / (1 + 1 + 2): prompt tokens (weight 0) count for nothing
    assert.ok(Math.abs(r.loss - 4 / 4) < 1e-12, String(r.loss));
    assert.equal(r.weight, 4);
    const uneven = weightedNll([datum([1, 3])], [out([-1, -2])]);
    assert.ok(Math.abs(uneven.loss - 7 / 4) < 1e-12, String(uneven.loss));
  });

  it("a batch with no weighted token has loss 0 and weight 0 (not NaN)", () => {
    assert.deepEqual(weightedNll([datum([0, 0])], [out([-1, -2])]), { loss: 0, weight: 0 });
    assert.deepEqual(weightedNll([], []), { loss: 0, weight: 0 });
  });

  it("refuses logprobs that do not line up with the weights, saying how many came back", () => {
    assert.throws(
      () => weightedNll([datum([1, 1, 1])], [out([-1, -2])]),
      (e: Error) => e.message === "forward_backward returned 2 logprobs for 3 targets",
    );
    assert.throws(
      () => weightedNll([datum([1]), datum([1])], [out([-1])]),
      (e: Error) => e.message === "forward_backward returned no logprobs for 1 targets",
    );
    assert.throws(
      () => weightedNll([datum([1])], [{}]),
      (e: Error) => e.message === "forward_backward returned no logprobs for 1 targets",
    );
  });
});
