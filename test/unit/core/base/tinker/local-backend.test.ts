/**
 * The client end to end against the project's local Tinker-compatible backend (src/server) over
 * loopback HTTP: real training steps, checkpoints, samplers, resume, and fault injection.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../../../src/server";
import { TinkerService, type RetryPolicy, type TrainingClient } from "../../../../../src/core/base/tinker";
import { sftDatum, type Datum } from "../../../../../src/core/base/tinker/wire";

const FAST: Partial<RetryPolicy> = {
  baseDelayMs: 5,
  maxDelayMs: 20,
  pollBaseDelayMs: 5,
  pollMaxDelayMs: 20,
  sampleBackoffSmallMs: 10,
  sampleBackoffLargeMs: 10,
};

function batch(): Datum[] {
  const seqs = [
    [101, 102, 103, 104, 105, 106],
    [101, 102, 107, 108, 109],
    [110, 111, 112, 113, 114, 115, 116],
  ];
  return seqs.map((s) =>
    sftDatum(
      s,
      s.map((_, i) => (i < 2 ? 0 : 1)),
    ),
  );
}

async function trainSteps(tc: TrainingClient, steps: number): Promise<number[]> {
  const losses: number[] = [];
  for (let i = 0; i < steps; i++) {
    const fb = tc.forwardBackward(batch(), "cross_entropy");
    const step = tc.optimStep({ learning_rate: 0.05, eps: 1e-8 });
    losses.push((await fb.result()).metrics["loss:sum"]);
    await step.result();
  }
  return losses;
}

describe("tinker client against the local backend", function () {
  let dir: string;
  let backend: RunningLocalBackend;
  let service: TinkerService;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-tinker-client-"));
    backend = await startLocalBackend({ dir, seed: 7, longPollMs: 1000, log: () => undefined });
    service = new TinkerService({ apiKey: "tml-local-test", baseUrl: backend.url, env: {}, retry: FAST });
  });
  afterEach(async () => {
    service.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("trains (loss falls), saves, samples from the checkpoint, and resumes with the same weights", async () => {
    const tc = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
    const losses = await trainSteps(tc, 6);
    assert.ok(losses[losses.length - 1] < losses[0], `loss ${losses.map((l) => l.toFixed(3)).join(" → ")}`);

    const state = await tc.saveState("s1").result();
    const sampler = await tc.saveWeightsForSampler("s1").result();
    assert.equal(state.path, `tinker://${tc.modelId}/weights/s1`);
    assert.equal(sampler.path, `tinker://${tc.modelId}/sampler_weights/s1`);

    const sc = await service.createSamplingClient({ modelPath: sampler.path });
    const r = await sc.sample({ prompt: [101, 102], maxTokens: 5, numSamples: 2, seed: 1 }).result();
    assert.equal(r.sequences.length, 2);
    for (const seq of r.sequences) {
      assert.ok(seq.tokens.length >= 1 && seq.tokens.length <= 5);
      assert.equal(seq.logprobs?.length, seq.tokens.length);
      assert.ok(seq.logprobs!.every((lp) => lp <= 0 && Number.isFinite(lp)));
    }
    const prompt = await sc.computeLogprobs([101, 102, 103, 104]).result();
    assert.equal(prompt.length, 4);
    assert.equal(prompt[0], null);

    const ephemeral = await tc.saveWeightsAndGetSamplingClient().result();
    assert.equal((await ephemeral.sample({ prompt: [101], maxTokens: 3 }).result()).sequences.length, 1);

    // Same weights after resume: forward logprobs match the original client's.
    const resumed = await service.createTrainingClientFromState(state.path, { withOptimizer: true });
    const [a, b] = await Promise.all([tc.forward(batch()).result(), resumed.forward(batch()).result()]);
    a.outputs.forEach((o, i) => {
      const x = o.logprobs.data;
      const y = b.outputs[i].logprobs.data;
      assert.equal(x.length, y.length);
      x.forEach((v, j) => assert.ok(Math.abs(v - y[j]) < 1e-5, `datum ${i} token ${j}: ${v} vs ${y[j]}`));
    });

    const listed = await service.listCheckpoints(tc.modelId);
    const ids = listed.checkpoints.map((c) => c.checkpoint_id).sort();
    assert.deepEqual(ids, ["sampler_weights/s1", "weights/s1"]);
  });

  it("under 429s, 5xx, dropped responses and slow futures every step is applied exactly once", async () => {
    const clean = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
    const expected = await trainSteps(clean, 4);

    Object.assign(backend.faults, {
      sample429Rate: 0.4,
      error5xxRate: 0.2,
      dropRate: 0.2,
      slowFutureMs: 10,
      latencyMs: 2,
    });
    // Count what the faults did to this client's requests, so the test knows they happened.
    const seen = { 429: 0, 503: 0, dropped: 0 };
    const counting: typeof fetch = async (input, init) => {
      try {
        const res = await fetch(input, init);
        if (res.status === 429 || res.status === 503) seen[res.status]++;
        return res;
      } catch (e) {
        seen.dropped++;
        throw e;
      }
    };
    const faultyService = new TinkerService({
      apiKey: "tml-local-test",
      baseUrl: backend.url,
      env: {},
      retry: FAST,
      fetch: counting,
    });
    try {
      await trainUnderFaults(faultyService, expected);
    } finally {
      faultyService.close();
    }
    assert.ok(seen[429] > 0 && seen[503] > 0 && seen.dropped > 0, `faults seen: ${JSON.stringify(seen)}`);
  });
});

/** Trains 4 steps on a fresh model (losses must match the fault-free run) and samples 6 times. */
async function trainUnderFaults(service: TinkerService, expected: number[]): Promise<void> {
  const faulty = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
  const got = await trainSteps(faulty, 4);
  got.forEach((l, i) =>
    assert.ok(Math.abs(l - expected[i]) < 1e-6, `step ${i}: ${l} vs ${expected[i]} (a retried step applied twice?)`),
  );

  const sc = await faulty.saveWeightsAndGetSamplingClient().result();
  const samples = await Promise.all(
    Array.from({ length: 6 }, (_, i) => sc.sample({ prompt: [101, 102], maxTokens: 3, seed: i }).result()),
  );
  assert.ok(samples.every((s) => s.sequences.length === 1 && s.sequences[0].logprobs !== null));
}
