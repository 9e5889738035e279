import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel, saveModel } from "../../../src/server/model/persist";
import { Rng } from "../../../src/server/model/rng";
import { sample, scorePrompt } from "../../../src/server/model/sample";
import { SequenceState, TinyModel, VOCAB_SIZE } from "../../../src/server/model/tiny-model";
import { forwardBackward, optimStep, type TrainDatum } from "../../../src/server/model/train";
import { tokenLossFor, type LossName } from "../../../src/server/model/losses";

const ADAM = { learning_rate: 0.05, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 };

/** A small model whose adapters are all non-zero, so every gradient path carries signal. */
function perturbedModel(seed = 3): TinyModel {
  // A small vocabulary in few buckets, so ids share buckets and finite differences stay fast.
  const m = new TinyModel({ dim: 5, rank: 2, taps: 2, seed, vocabSize: 4096, buckets: 8 });
  const rng = new Rng(99);
  for (const t of m.tensors) {
    if (!m.isTrainable(t)) continue;
    const v = t.values();
    for (let i = 0; i < v.length; i++) v[i] += 0.3 * rng.normal();
  }
  m.invalidate();
  return m;
}

// Repeats (13 after 7 twice) give the copy head something to attend to.
const TOKENS = [7, 13, 11, 7, 13, 2, 4001, 7];

function rlDatum(): TrainDatum {
  const input = TOKENS.slice(0, -1);
  const targets = TOKENS.slice(1);
  return {
    input,
    targets,
    k: 1,
    lossInputs: {
      // Sampler logprobs near the model's so ppo/cispo exercise both clipped and unclipped tokens.
      logprobs: [-1.2, -2.5, -0.7, -1.9, -1.6, -3.1, -0.4],
      advantages: [0, 0.8, -0.5, 1.3, 0, -1.1, 0.6],
    },
  };
}

function ceDatum(): TrainDatum {
  const input = TOKENS.slice(0, -1);
  return {
    input,
    // Top-2 targets per position with negative weights too (forward_backward_custom sends −g).
    targets: input.flatMap((_, t) => [TOKENS[t + 1], [2, 5, 11][t % 3]]),
    k: 2,
    lossInputs: { weights: input.flatMap((_, t) => [1, t % 2 === 0 ? -0.4 : 0.25]) },
  };
}

function checkGradients(loss: LossName, datums: TrainDatum[], config: Record<string, number> = {}) {
  const m = perturbedModel();
  m.zeroGrad();
  forwardBackward(m, datums, loss, config, true);
  const lossAt = () => forwardBackward(m, datums, loss, config, false).loss;
  const rng = new Rng(5);
  let checked = 0;
  for (const t of m.tensors) {
    if (!m.isTrainable(t)) continue;
    // β is one entry per id: check the ids the data names as well as random ones.
    const picks = new Set<number>(t.name === "beta" ? [7, 13, 2, 4001] : []);
    while (picks.size < Math.min(4, t.size)) picks.add(Math.floor(rng.next() * t.size));
    for (const i of picks) {
      const orig = t.data[i];
      const h = 1e-5;
      t.data[i] = orig + h;
      m.invalidate();
      const up = lossAt();
      t.data[i] = orig - h;
      m.invalidate();
      const down = lossAt();
      t.data[i] = orig;
      m.invalidate();
      const numeric = (up - down) / (2 * h);
      const analytic = t.grad[i];
      assert.ok(
        Math.abs(numeric - analytic) <= 1e-6 + 1e-4 * Math.abs(numeric),
        `${loss} d/d${t.name}[${i}]: analytic ${analytic} vs numeric ${numeric}`,
      );
      checked++;
    }
  }
  assert.ok(checked >= 45, `checked ${checked} coordinates`);
}

describe("server/tiny-model", () => {
  it("cross_entropy (N×K targets, negative weights): loss = Σ −lp·w and gradients match finite differences", () => {
    const d = ceDatum();
    const m = perturbedModel();
    const { loss, logprobs } = forwardBackward(m, [d], "cross_entropy", {}, false);
    const expected = Array.from(logprobs[0]).reduce((s, lp, i) => s - lp * d.lossInputs.weights[i], 0);
    assert.ok(Math.abs(loss - expected) < 1e-12);
    checkGradients("cross_entropy", [
      d,
      { ...ceDatum(), input: [5, 2, 7], targets: [2, 7, 7, 5, 13, 13], lossInputs: { weights: [1, 1, 0.5, 0, 1, -1] } },
    ]);
  });

  it("importance_sampling: loss = Σ −exp(lp − q)·A and gradients match finite differences", () => {
    const d = rlDatum();
    const m = perturbedModel();
    const { loss, logprobs } = forwardBackward(m, [d], "importance_sampling", {}, false);
    const expected = Array.from(logprobs[0]).reduce(
      (s, lp, i) => s - Math.exp(lp - d.lossInputs.logprobs[i]) * d.lossInputs.advantages[i],
      0,
    );
    assert.ok(Math.abs(loss - expected) < 1e-12);
    checkGradients("importance_sampling", [d]);
  });

  it("ppo, cispo and dro gradients match finite differences", () => {
    checkGradients("ppo", [rlDatum()], { clip_low_threshold: 0.8, clip_high_threshold: 1.2 });
    // cispo stops the gradient through its ratio weight, so finite differences only apply with the
    // weight pinned (lo = hi); the unpinned per-token gradient is checked directly below.
    checkGradients("cispo", [rlDatum()], { clip_low_threshold: 1, clip_high_threshold: 1 });
    const cispo = tokenLossFor("cispo", { clip_low_threshold: 0, clip_high_threshold: 1.5 });
    const inputs = { logprobs: [-1, -1], advantages: [2, 2] };
    assert.deepEqual(cispo(-0.9, inputs, 0), { loss: -Math.exp(0.1) * -0.9 * 2, dlp: -Math.exp(0.1) * 2 });
    assert.deepEqual(cispo(0, inputs, 1), { loss: -0, dlp: -1.5 * 2 });
    checkGradients("dro", [rlDatum()], { beta: 0.3 });
  });

  it("a few cross-entropy steps lower the loss", () => {
    const m = new TinyModel({ seed: 1 });
    const seqs = [
      [1, 2, 3, 4, 5, 6],
      [1, 2, 3, 9, 5, 6],
      [8, 2, 3, 4, 5, 7],
    ];
    const data: TrainDatum[] = seqs.map((s) => ({
      input: s.slice(0, -1),
      targets: s.slice(1),
      k: 1,
      lossInputs: { weights: s.slice(1).map(() => 1) },
    }));
    const first = forwardBackward(m, data, "cross_entropy", {}, true).loss;
    optimStep(m, ADAM);
    let last = first;
    for (let i = 0; i < 10; i++) {
      last = forwardBackward(m, data, "cross_entropy", {}, true).loss;
      optimStep(m, ADAM);
    }
    assert.ok(last < first * 0.6, `loss ${first} → ${last}`);
  });

  it("an importance-sampling step with positive advantage raises the sampled tokens' logprobs", () => {
    const m = new TinyModel({ seed: 2 });
    const prompt = [40, 41, 42];
    const [s] = sample(m, prompt, 1, {
      maxTokens: 4,
      temperature: 1,
      topK: -1,
      topP: 1,
      seed: 7,
      stopTokens: [],
      stopStrings: [],
    });
    const full = [...prompt, ...s.tokens];
    const input = full.slice(0, -1);
    const targets = full.slice(1);
    const actionStart = prompt.length - 1;
    const datum: TrainDatum = {
      input,
      targets,
      k: 1,
      lossInputs: {
        logprobs: targets.map((_, i) => (i >= actionStart ? s.logprobs[i - actionStart] : 0)),
        advantages: targets.map((_, i) => (i >= actionStart ? 1 : 0)),
      },
    };
    const before = forwardBackward(m, [datum], "importance_sampling", {}, true).logprobs[0];
    optimStep(m, { ...ADAM, learning_rate: 0.01 });
    const after = forwardBackward(m, [datum], "importance_sampling", {}, false).logprobs[0];
    for (let i = actionStart; i < targets.length; i++)
      assert.ok(after[i] > before[i], `token ${i}: ${before[i]} → ${after[i]}`);
  });

  it("sampling logprobs equal the forward logprobs of the same tokens, and prompt scoring agrees", () => {
    const m = perturbedModel();
    const prompt = [7, 13, 11, 7];
    const seqs = sample(m, prompt, 3, {
      maxTokens: 6,
      temperature: 0.7,
      topK: 4,
      topP: 0.95,
      seed: 11,
      stopTokens: [],
      stopStrings: [],
    });
    for (const s of seqs) {
      const full = [...prompt, ...s.tokens];
      const input = full.slice(0, -1);
      const targets = full.slice(1);
      const lps = forwardBackward(
        m,
        [{ input, targets, k: 1, lossInputs: { weights: targets.map(() => 0) } }],
        "cross_entropy",
        {},
        false,
      ).logprobs[0];
      s.logprobs.forEach((lp, i) => assert.ok(Math.abs(lp - lps[prompt.length - 1 + i]) <= 1e-4, `token ${i}`));
      const scored = scorePrompt(m, full, 2);
      assert.equal(scored.logprobs[0], null);
      scored.logprobs.slice(1).forEach((lp, i) => assert.ok(Math.abs((lp as number) - lps[i]) <= 1e-9));
      assert.equal(scored.topk[1]?.length, 2);
    }
  });

  it("stops on a stop token (kept in the output) and otherwise at max_tokens", () => {
    const m = perturbedModel();
    const greedy = sample(m, [7, 13], 1, {
      maxTokens: 5,
      temperature: 0,
      topK: -1,
      topP: 1,
      seed: 0,
      stopTokens: [],
      stopStrings: [],
    })[0];
    assert.equal(greedy.stopReason, "length");
    assert.equal(greedy.tokens.length, 5);
    const stopAt = greedy.tokens[2];
    const stopped = sample(m, [7, 13], 1, {
      maxTokens: 5,
      temperature: 0,
      topK: -1,
      topP: 1,
      seed: 0,
      stopTokens: [stopAt],
      stopStrings: [],
    })[0];
    assert.equal(stopped.stopReason, "stop");
    assert.equal(stopped.tokens[stopped.tokens.length - 1], stopAt);
    assert.ok(stopped.tokens.length <= 3);
    assert.throws(
      () =>
        sample(m, [7], 1, {
          maxTokens: 2,
          temperature: 1,
          topK: -1,
          topP: 1,
          seed: 0,
          stopTokens: [],
          stopStrings: ["\n"],
        }),
      /tokenizer/,
    );
    // With a decoder, a stop string ends the sample as soon as the decoded text contains it.
    const decode = (ids: number[]) => ids.map((id) => `<${id}>`).join("");
    const text = decode(greedy.tokens.slice(0, 2));
    const byString = sample(m, [7, 13], 1, {
      maxTokens: 5,
      temperature: 0,
      topK: -1,
      topP: 1,
      seed: 0,
      stopTokens: [],
      stopStrings: [text],
      decode,
    })[0];
    assert.equal(byString.stopReason, "stop");
    assert.deepEqual(byString.tokens, greedy.tokens.slice(0, 2));
  });

  it("is deterministic given a seed, and different seeds differ", () => {
    const opts = { maxTokens: 12, temperature: 1, topK: -1, topP: 1, stopTokens: [], stopStrings: [] };
    const a = sample(perturbedModel(), [7, 13], 4, { ...opts, seed: 5 });
    const b = sample(perturbedModel(), [7, 13], 4, { ...opts, seed: 5 });
    const c = sample(perturbedModel(), [7, 13], 4, { ...opts, seed: 6 });
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    // The same model seed gives the same initial weights.
    assert.deepEqual(new TinyModel({ seed: 4 }).Wq.values(), new TinyModel({ seed: 4 }).Wq.values());
  });

  it("save/load gives identical logprobs and keeps the optimiser state", function () {
    const dir = mkdtempSync(join(tmpdir(), "tiny-model-"));
    try {
      const m = perturbedModel();
      const d = rlDatum();
      forwardBackward(m, [d], "importance_sampling", {}, true);
      optimStep(m, ADAM);
      saveModel(m, dir, true);
      const loaded = loadModel(dir, true);
      assert.equal(loaded.adamStep, 1);
      const a = forwardBackward(m, [d], "importance_sampling", {}, true).logprobs[0];
      const b = forwardBackward(loaded, [d], "importance_sampling", {}, true).logprobs[0];
      assert.deepEqual(b, a);
      // Same optimiser state → the next step lands on identical weights.
      optimStep(m, ADAM);
      optimStep(loaded, ADAM);
      assert.deepEqual(loaded.Ua.values(), m.Ua.values());
      assert.equal(loadModel(dir, false).adamStep, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("has a fixed vocabulary: an id's embedding does not depend on what else the model has read, and ids outside it are refused", () => {
    const a = new TinyModel({ seed: 9 });
    const b = new TinyModel({ seed: 9 });
    const opts = { maxTokens: 6, temperature: 0, topK: -1, topP: 1, seed: 0, stopTokens: [], stopStrings: [] };
    const before = sample(a, [5, 17, 200001], 1, opts);
    // Reading many other ids (as another request would) changes nothing about the model.
    scorePrompt(
      a,
      Array.from({ length: 400 }, (_, i) => 100 + i * 611),
      0,
    );
    assert.deepEqual(sample(a, [5, 17, 200001], 1, opts), before);
    assert.deepEqual(sample(b, [5, 17, 200001], 1, opts), before);
    assert.deepEqual(a.frozenEmbedding(200001), b.frozenEmbedding(200001));
    assert.throws(
      () => sample(a, [5, VOCAB_SIZE], 1, opts),
      new RegExp(`prompt token ${VOCAB_SIZE} is outside the local model's vocabulary \\(0 ≤ id < ${VOCAB_SIZE}\\)`),
    );
    assert.throws(() => a.checkToken(-1), /outside/);
  });

  it("top-p without top-k draws only from the exact nucleus of the sorted distribution", () => {
    const m = perturbedModel();
    const prompt = [7, 13, 11, 7];
    const seq = new SequenceState();
    for (const id of prompt) m.appendToken(seq, id);
    const p = m.fullDistribution(seq, m.position(seq, prompt.length - 1));
    const order = Array.from(p.keys()).sort((a, b) => p[b] - p[a] || a - b);
    const nucleus = new Set<number>();
    let cum = 0;
    for (const v of order) {
      if (cum >= 0.6) break;
      nucleus.add(v);
      cum += p[v];
    }
    const seen = new Set<number>();
    for (let seed = 0; seed < 200; seed++) {
      const [s] = sample(m, prompt, 1, {
        maxTokens: 1,
        temperature: 1,
        topK: -1,
        topP: 0.6,
        seed,
        stopTokens: [],
        stopStrings: [],
      });
      assert.ok(nucleus.has(s.tokens[0]), `seed ${seed}: ${s.tokens[0]} is outside the nucleus`);
      seen.add(s.tokens[0]);
    }
    assert.ok(seen.size > 1 || nucleus.size === 1);
  });

  it("greedy and exact temperature-1 draws agree with the full distribution", () => {
    const m = perturbedModel();
    const seq = new SequenceState();
    for (const id of [7, 13, 11, 7]) m.appendToken(seq, id);
    const ps = m.position(seq, 3);
    const p = m.fullDistribution(seq, ps);
    let best = 0;
    for (let v = 1; v < p.length; v++) if (p[v] > p[best]) best = v;
    assert.equal(m.greedy(seq, ps), best);
    assert.ok(Math.abs(p.reduce((s, x) => s + x, 0) - 1) < 1e-9);
    // Empirical frequencies of exact draws match p for the likeliest ids.
    const rng = new Rng(3);
    const counts = new Map<number, number>();
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const v = m.drawExact(seq, ps, rng);
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    for (const v of [...counts.keys()].sort((x, y) => p[y] - p[x]).slice(0, 3)) {
      assert.ok(Math.abs((counts.get(v) ?? 0) / n - p[v]) < 0.02, `id ${v}: ${(counts.get(v) ?? 0) / n} vs ${p[v]}`);
    }
  });
});

describe("server/tiny-model learns to copy", () => {
  it("after a short SFT, copies a two-token name from its context into the answer, for names it never trained on", () => {
    // A miniature of the offline task: the answer is the name after marker R, among distractor names.
    const BOS = 1,
      R = 2,
      ANS = 3,
      END = 4;
    const rng = new Rng(7);
    const id = (lo: number) => lo + Math.floor(rng.next() * 500);
    const example = (pool: number) => {
      const name = [id(pool), id(pool)];
      const filler = () =>
        Array.from({ length: 3 + Math.floor(rng.next() * 4) }, () => 100 + Math.floor(rng.next() * 50));
      return {
        prompt: [BOS, ...filler(), id(pool), id(pool), ...filler(), R, ...name, ...filler(), ANS],
        answer: [...name, END],
      };
    };
    const train = Array.from({ length: 64 }, () => example(1000));
    const heldOut = Array.from({ length: 20 }, () => example(5000));
    const m = new TinyModel({ seed: 0, rank: 16 });
    const accuracy = () =>
      heldOut.filter((e) => {
        const [s] = sample(m, e.prompt, 1, {
          maxTokens: 4,
          temperature: 0,
          topK: -1,
          topP: 1,
          seed: 0,
          stopTokens: [END],
          stopStrings: [],
        });
        return JSON.stringify(s.tokens) === JSON.stringify(e.answer);
      }).length / heldOut.length;
    assert.equal(accuracy(), 0);
    for (let step = 0; step < 16; step++) {
      const batch = Array.from({ length: 16 }, () => {
        const e = train[Math.floor(rng.next() * train.length)];
        const full = [...e.prompt, ...e.answer];
        return {
          input: full.slice(0, -1),
          targets: full.slice(1),
          k: 1,
          lossInputs: { weights: full.slice(1).map((_, i) => (i + 1 >= e.prompt.length ? 1 : 0)) },
        };
      });
      forwardBackward(m, batch, "cross_entropy", {}, true);
      optimStep(m, { ...ADAM, learning_rate: 0.02 });
    }
    const acc = accuracy();
    assert.ok(acc >= 0.5, `held-out copy accuracy ${acc}`);
  });
});
