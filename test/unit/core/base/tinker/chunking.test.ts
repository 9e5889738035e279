/** Merging forward_backward chunk results: the reductions the real backend's metrics do not exercise. */
import assert from "node:assert/strict";
import { mergeForwardBackwardOutputs } from "../../../../../src/core/base/tinker";

describe("mergeForwardBackwardOutputs", () => {
  const part = (metrics: Record<string, number>, datums: number) => ({
    output: { loss_fn_output_type: "ArrayRecord", loss_fn_outputs: [], metrics },
    datums,
  });

  it("sums :sum, weights :mean by the chunks' datum counts, and keeps min / max", () => {
    const merged = mergeForwardBackwardOutputs([
      part({ "loss:sum": 1, "tokens:mean": 2, "lp:min": -3 }, 2),
      part({ "loss:sum": 2, "tokens:mean": 2, "lp:min": -1 }, 2),
      part({ "loss:sum": 0.5, "tokens:mean": 1, "lp:min": -2 }, 1),
    ]);
    assert.equal(merged.metrics["loss:sum"], 3.5);
    // (2·2 + 2·2 + 1·1) / 5
    assert.ok(Math.abs(merged.metrics["tokens:mean"] - 9 / 5) < 1e-12);
    assert.equal(merged.metrics["lp:min"], -3);
  });
});
