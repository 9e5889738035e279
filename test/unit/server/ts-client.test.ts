/**
 * Our TypeScript Tinker client (src/core/base/tinker) against the local backend over real HTTP: the two
 * halves of the protocol agree, including under injected faults the client must retry through.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import { TinkerService } from "../../../src/core/base/tinker";
import { rlDatum, sftDatum } from "../../../src/core/base/tinker/wire/builders";

const PROMPT = [151644, 872, 198, 3838, 374, 279, 6722, 30, 151645, 198, 151644, 77091, 198];
const COMPLETION = [785, 6722, 13, 151645];
const FULL = [...PROMPT, ...COMPLETION];
const WEIGHTS = FULL.map((_, i) => (i >= PROMPT.length ? 1 : 0));

describe("server/ts-client", function () {
  this.timeout(60_000);
  let dir: string;
  let server: RunningLocalBackend;
  let service: TinkerService;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "local-backend-client-"));
    server = await startLocalBackend({ dir, seed: 0, longPollMs: 2_000 });
    service = new TinkerService({
      apiKey: "tml-local",
      baseUrl: server.url,
      log: () => {},
      retry: { baseDelayMs: 10, maxDelayMs: 50, pollBaseDelayMs: 10, pollMaxDelayMs: 50, sampleBackoffSmallMs: 20 },
    });
  });
  after(async () => {
    service?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("trains, samples with matching logprobs, saves and resumes through TinkerService", async () => {
    const trainer = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8, seed: 3 });
    const data = [sftDatum(FULL, WEIGHTS)];
    const losses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const fb = trainer.forwardBackward(data, "cross_entropy");
      const opt = trainer.optimStep({ learning_rate: 0.05, eps: 1e-8 });
      losses.push((await fb.result()).metrics["loss:sum"]);
      await opt.result();
    }
    assert.ok(losses[4] < losses[0] * 0.7, losses.join(" → "));

    const sampler = await trainer.saveWeightsAndGetSamplingClient().result();
    const res = await sampler.sample({ prompt: PROMPT, numSamples: 3, maxTokens: 6, seed: 5, stop: [151645] }).result();
    assert.equal(res.sequences.length, 3);
    const rl = res.sequences.map((s) => {
      const full = [...PROMPT, ...s.tokens];
      return rlDatum(
        full,
        full.map((_, i) => (i >= PROMPT.length ? s.logprobs![i - PROMPT.length] : 0)),
        full.map((_, i) => (i >= PROMPT.length ? 1 : 0)),
      );
    });
    // On-policy: the learner's logprobs equal the sampler's, so every ratio is 1 and loss = −(#action tokens).
    const isOut = await trainer.forwardBackward(rl, "importance_sampling").result();
    const actionTokens = res.sequences.reduce((n, s) => n + s.tokens.length, 0);
    assert.ok(
      Math.abs(isOut.metrics["loss:sum"] + actionTokens) < 1e-3,
      `${isOut.metrics["loss:sum"]} vs −${actionTokens}`,
    );
    res.sequences.forEach((s, i) => {
      const learner = isOut.outputs[i].logprobs.data.slice(PROMPT.length - 1);
      s.logprobs!.forEach((lp, j) => assert.ok(Math.abs(lp - learner[j]) < 1e-4));
    });

    const state = await trainer.saveState("resume-me").result();
    const resumed = await service.createTrainingClientFromState(state.path, { withOptimizer: true });
    const a = (await trainer.forward(data).result()).outputs[0].logprobs.data;
    const b = (await resumed.forward(data).result()).outputs[0].logprobs.data;
    a.forEach((x, i) => assert.ok(Math.abs(x - b[i]) < 1e-6));
    const checkpoints = await service.listCheckpoints(trainer.modelId);
    assert.deepEqual(
      checkpoints.checkpoints.map((c) => c.tinker_path),
      [state.path],
    );
  });

  it("gets through injected 5xx, dropped responses and sampling 429s by retrying, without applying anything twice", async () => {
    const trainer = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 4 });
    const sampler = await trainer.saveWeightsAndGetSamplingClient().result();
    Object.assign(server.faults, { error5xxRate: 0.3, dropRate: 0.2, sample429Rate: 0.5 });
    try {
      const data = [sftDatum(FULL, WEIGHTS)];
      let step = 0;
      for (let i = 0; i < 4; i++) {
        await trainer.forwardBackward(data, "cross_entropy").result();
        step = (await trainer.optimStep({ learning_rate: 0.01 }).result()).metrics["step:max"];
      }
      assert.equal(step, 4, "an optim_step was applied twice or lost");
      const samples = await Promise.all(
        Array.from({ length: 6 }, (_, i) => sampler.sample({ prompt: PROMPT, maxTokens: 3, seed: i }).result()),
      );
      assert.equal(samples.length, 6);
    } finally {
      Object.assign(server.faults, { error5xxRate: 0, dropRate: 0, sample429Rate: 0 });
    }
  });
});
