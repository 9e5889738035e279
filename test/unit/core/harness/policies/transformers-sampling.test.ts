import assert from "node:assert/strict";
import {
  argmax,
  chooseToken,
  logSoftmaxAt,
  sampleWithTemperature,
  SeededRandom,
} from "../../../../../src/core/harness/policies/transformers/sampling";

describe("policies: transformers sampling helpers", function () {
  it("argmax takes the first of equal maxima, as torch.argmax does", () => {
    assert.equal(argmax([0.5, 2, -1, 2]), 1);
    assert.equal(argmax(new Float32Array([-3, -2, -7])), 1);
  });

  it("logSoftmaxAt is a stable log-probability (huge logits, probabilities summing to 1)", () => {
    const logits = [1000, 1001, 999, -Infinity];
    const probs = logits.map((_, i) => Math.exp(logSoftmaxAt(logits, i)));
    assert.ok(Math.abs(probs.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    const z = Math.exp(0) + Math.exp(1) + Math.exp(-1);
    assert.ok(Math.abs(logSoftmaxAt(logits, 1) - Math.log(Math.exp(1) / z)) < 1e-12);
    assert.equal(probs[3], 0);
  });

  it("the seeded generator repeats per seed, differs across seeds and stays in [0, 1)", () => {
    const draw = (seed: number) => {
      const r = new SeededRandom(seed);
      return Array.from({ length: 1000 }, () => r.next());
    };
    assert.deepEqual(draw(42), draw(42));
    assert.notDeepEqual(draw(42), draw(43));
    const xs = draw(7);
    assert.ok(xs.every((x) => x >= 0 && x < 1));
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.ok(Math.abs(mean - 0.5) < 0.05, `mean ${mean}`);
    assert.throws(() => new SeededRandom(1.5));
  });

  it("temperature sampling follows softmax(logits / T)", () => {
    const logits = [2, 1, 0, -1, -Infinity];
    for (const temperature of [1, 0.5, 2]) {
      const random = new SeededRandom(temperature * 100);
      const n = 20000;
      const counts = new Array<number>(logits.length).fill(0);
      for (let i = 0; i < n; i++) counts[sampleWithTemperature(logits, temperature, random)]++;
      const weights = logits.map((l) => Math.exp(l / temperature));
      const total = weights.reduce((a, b) => a + b, 0);
      weights.forEach((w, i) => {
        const expected = (w / total) * n;
        // 5 standard deviations of a binomial count: fails only on a real bias.
        const sd = Math.sqrt(n * (w / total) * (1 - w / total));
        assert.ok(
          Math.abs(counts[i] - expected) <= 5 * sd + 1e-9,
          `T=${temperature} token ${i}: ${counts[i]} vs ${expected}`,
        );
      });
      assert.equal(counts[4], 0);
    }
  });

  it("temperature 0 is greedy and does not consume randomness", () => {
    const random = new SeededRandom(3);
    const fresh = new SeededRandom(3);
    assert.equal(chooseToken([0.1, 0.3, 0.2], 0, random), 1);
    assert.equal(random.next(), fresh.next());
    assert.throws(() => sampleWithTemperature([1, 2], 0, random));
  });
});
