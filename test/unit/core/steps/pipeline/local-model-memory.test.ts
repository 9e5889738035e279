/**
 * Why the pipeline's local model has a context memory: two contexts whose last tokens agree but
 * whose earlier tokens differ (a first reply vs a reply after search results) must be able to get
 * different next tokens. With the memory the tiny model learns that; with taps alone it cannot do
 * better than a coin flip, since the answer tokens are not in the context to copy.
 */
import { strict as assert } from "node:assert";
import { TinyModel } from "../../../../../src/server/model/tiny-model";
import { forwardBackward, optimStep, type TrainDatum } from "../../../../../src/server/model/train";

const ADAM = { learning_rate: 0.05, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 };

function datum(first: number, target: number): TrainDatum {
  const input = [first, 50, 51, 50, 51, 60, 61, 62];
  return {
    input,
    targets: [...input.slice(1), target],
    k: 1,
    lossInputs: { weights: input.map((_, i) => (i === input.length - 1 ? 1 : 0)) },
  };
}

function trainedProbability(memoryDecays: number[]): number {
  // A small vocabulary keeps 300 steps fast; the ids used here all fit in it.
  const m = new TinyModel({ seed: 1, rank: 4, memoryDecays, vocabSize: 4096, buckets: 512 });
  const data = [datum(10, 100), datum(11, 101)];
  for (let step = 0; step < 150; step++) {
    forwardBackward(m, data, "cross_entropy", {}, true);
    optimStep(m, ADAM);
  }
  const lp = forwardBackward(m, data, "cross_entropy", {}, false).logprobs;
  // Mean probability of the right final token over both contexts.
  return (Math.exp(lp[0][7]) + Math.exp(lp[1][7])) / 2;
}

describe("local model: context memory", function () {
  this.timeout(60_000);
  it("tells apart contexts with the same last tokens; without memory it cannot beat a coin flip", () => {
    const withMemory = trainedProbability([0.8, 0.97]);
    const without = trainedProbability([]);
    assert.ok(withMemory > 0.9, `with memory: ${withMemory}`);
    assert.ok(without < 0.55, `without memory: ${without}`);
  });
});
