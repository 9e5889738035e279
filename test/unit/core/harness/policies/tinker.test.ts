/** TinkerPolicy (the harness's Policy over a Tinker sampler) against the local backend over HTTP, samples scripted through its test seam. */
import assert from "node:assert/strict";
import type { ChatTokenizer } from "../../../../../src/core/base/chat/tokenizer";
import { TinkerKeyError, TinkerService } from "../../../../../src/core/base/tinker";
import {
  MISSING_LOGPROBS_MESSAGE,
  createTinkerPolicy,
  type TinkerPolicy,
} from "../../../../../src/core/harness/policies/tinker";
import { ScriptedBackend, continuePrompt } from "../../base/tinker/scripted-backend";

const KEY = "tml-policy-test-key";
const END = 14;

/** Only tokenId matters to the adapter; loading the real Qwen tokenizer would cost seconds per test. */
const tokenizer: ChatTokenizer = {
  name: "stub",
  encode: (text) => [...text].map((c) => c.charCodeAt(0)),
  decode: (ids) => String.fromCharCode(...ids),
  tokenId: (token) => {
    if (token !== "<|im_end|>") throw new Error(`no token ${token}`);
    return END;
  },
  renderChat: () => "",
};

describe("TinkerPolicy", function () {
  this.timeout(20_000);
  let server: ScriptedBackend;
  let policy: TinkerPolicy | undefined;
  beforeEach(async () => {
    server = new ScriptedBackend();
    await server.start();
    server.sampleResult = continuePrompt;
  });
  afterEach(async () => {
    policy?.close();
    policy = undefined;
    await server.stop();
  });

  it("samples one completion that stops at <|im_end|>, with logprobs", async () => {
    policy = await createTinkerPolicy({
      apiKey: KEY,
      baseUrl: server.url,
      model: "Qwen/Qwen3.5-4B",
      tokenizer,
      env: {},
    });
    assert.equal(policy.endToken, END);
    const s = await policy.sample([10, 11, 12], { temperature: 0.5, maxTokens: 8 });
    assert.deepEqual(s, { tokens: [13, 14], logprobs: [-0.5, -0.5], stopReason: "stop" });
    const req = server.to("/api/v1/asample")[0].json;
    assert.equal(req?.num_samples, 1);
    assert.deepEqual(req?.sampling_params, { max_tokens: 8, temperature: 0.5, top_k: -1, top_p: 1, stop: [END] });
    assert.deepEqual(server.to("/api/v1/create_sampling_session")[0].json?.base_model, "Qwen/Qwen3.5-4B");
    assert.deepEqual(policy.describe(), { kind: "tinker", model: "Qwen/Qwen3.5-4B", logprobs: true });
  });

  it("samples from a tinker:// checkpoint and records it", async () => {
    const setup = new TinkerService({ apiKey: KEY, baseUrl: server.url, env: {} });
    const trainer = await setup.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 4 });
    const path = (await trainer.saveWeightsForSampler("final").result()).path;
    setup.close();
    policy = await createTinkerPolicy({
      apiKey: KEY,
      baseUrl: server.url,
      model: "Qwen/Qwen3.5-4B",
      modelPath: path,
      tokenizer,
      env: {},
    });
    assert.equal(server.to("/api/v1/create_sampling_session")[0].json?.model_path, path);
    assert.equal(policy.describe().checkpoint, path);
  });

  it("requireLogprobs refuses samples without logprobs with the recipe's message", async () => {
    server.sampleResult = () => ({
      sequences: [{ tokens: [1, END], logprobs: null, stop_reason: "stop" }],
      prompt_logprobs: null,
      topk_prompt_logprobs: null,
      prompt_cache_hit_tokens: 0,
    });
    policy = await createTinkerPolicy({
      apiKey: KEY,
      baseUrl: server.url,
      model: "m",
      tokenizer,
      env: {},
      requireLogprobs: true,
    });
    await assert.rejects(policy.sample([1], { temperature: 1, maxTokens: 4 }), new RegExp(MISSING_LOGPROBS_MESSAGE));
    policy.close();
    policy = await createTinkerPolicy({ apiKey: KEY, baseUrl: server.url, model: "m", tokenizer, env: {} });
    assert.equal((await policy.sample([1], { temperature: 1, maxTokens: 4 })).logprobs, null);
  });

  it("passes the abort signal through", async () => {
    server.resultGate = (kind) =>
      kind === "sample" ? new Promise((r) => setTimeout(r, 3000).unref()) : Promise.resolve();
    policy = await createTinkerPolicy({ apiKey: KEY, baseUrl: server.url, model: "m", tokenizer, env: {} });
    const c = new AbortController();
    setTimeout(() => c.abort(), 30);
    await assert.rejects(
      policy.sample([1], { temperature: 1, maxTokens: 4, signal: c.signal }),
      (e: Error) => e.name === "AbortError",
    );
  });

  it("a missing key fails before any request", async () => {
    await assert.rejects(createTinkerPolicy({ baseUrl: server.url, model: "m", tokenizer, env: {} }), TinkerKeyError);
    assert.equal(server.requests.length, 0);
  });
});
