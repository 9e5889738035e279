/**
 * The Tinker client over real HTTP on loopback, against the project's local backend (src/server)
 * driven through its test seam: requests recorded, faults and slow results scripted. Timings are
 * shrunk through the retry policy so the suite runs in seconds.
 */
import assert from "node:assert/strict";
import {
  TinkerApiError,
  TinkerAuthError,
  TinkerBillingError,
  TinkerKeyError,
  TinkerRequestFailedError,
  TinkerService,
  type RetryPolicy,
} from "../../../../../src/core/base/tinker";
import { rlDatum, sftDatum, type Datum, type TensorData } from "../../../../../src/core/base/tinker/wire";
import { SUPPORTED_MODELS } from "../../../../../src/server/backend";
import { UserInputError } from "../../../../../src/server/model/errors";
import { ScriptedBackend, continuePrompt } from "./scripted-backend";

const KEY = "tml-test-secret-key-1234567890";
const FAST: Partial<RetryPolicy> = {
  baseDelayMs: 5,
  maxDelayMs: 20,
  pollBaseDelayMs: 5,
  pollMaxDelayMs: 20,
  sampleBackoffSmallMs: 30,
  sampleBackoffLargeMs: 30,
  billingPollMs: 10,
  archiveRetryMs: 5,
};

function jwtWith(payload: Record<string, unknown>): string {
  const part = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(payload)}.sig`;
}

/** The session a training model belongs to (model ids are <session>:train:<n>). */
const sessionOf = (modelId: string): string => modelId.split(":")[0];

/** Σ −logprob·weight over datums: what cross_entropy's loss:sum must be for these outputs. */
function crossEntropy(data: Datum[], outputs: Array<Record<string, TensorData>>): number {
  return data.reduce(
    (sum, d, k) =>
      sum - outputs[k].logprobs.data.reduce((a, lp, i) => a + lp * (d.loss_fn_inputs.weights?.data[i] ?? 0), 0),
    0,
  );
}

describe("tinker client over HTTP", function () {
  this.timeout(20_000);
  let server: ScriptedBackend;
  let service: TinkerService | undefined;

  beforeEach(async () => {
    server = new ScriptedBackend();
    await server.start();
  });
  afterEach(async () => {
    service?.close();
    service = undefined;
    await server.stop();
  });

  function connect(extra: Partial<ConstructorParameters<typeof TinkerService>[0]> = {}): TinkerService {
    service = new TinkerService({ apiKey: KEY, baseUrl: server.url, env: {}, retry: FAST, ...extra });
    return service;
  }

  async function trainer(extra: Partial<ConstructorParameters<typeof TinkerService>[0]> = {}) {
    return connect(extra).createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
  }

  /** Makes a real checkpoint through a service of its own, then forgets its requests. */
  async function checkpoint(
    kind: "weights" | "sampler_weights",
    name: string,
    lora: { rank?: number; trainUnembed?: boolean } = {},
  ): Promise<string> {
    const setup = new TinkerService({ apiKey: KEY, baseUrl: server.url, env: {}, retry: FAST });
    try {
      const tc = await setup.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", ...lora });
      const saved =
        kind === "weights" ? await tc.saveState(name).result() : await tc.saveWeightsForSampler(name).result();
      server.clear();
      return saved.path;
    } finally {
      setup.close();
    }
  }

  describe("bootstrap, session, auth", () => {
    it("sends nothing until the first call, then config → dynamic config → session → create_model", async () => {
      const s = connect();
      assert.equal(server.requests.length, 0);
      const tc = await s.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
      assert.deepEqual(server.paths().slice(0, 5), [
        "/api/v1/client/config",
        "/api/v1/client/dynamic_config",
        "/api/v1/create_session",
        "/api/v1/create_model",
        "/api/v1/retrieve_future",
      ]);
      assert.deepEqual(server.to("/api/v1/client/config")[0].json, { sdk_version: "0.25.0" });
      assert.deepEqual(server.to("/api/v1/create_session")[0].json, {
        tags: [],
        user_metadata: {},
        sdk_version: "0.25.0",
        type: "create_session",
      });
      const session = sessionOf(tc.modelId);
      assert.match(session, /^sess-/);
      assert.deepEqual(server.to("/api/v1/create_model")[0].json, {
        session_id: session,
        model_seq_id: 0,
        base_model: "Qwen/Qwen3.5-4B",
        lora_config: { rank: 8, train_unembed: true, train_mlp: true, train_attn: true },
        type: "create_model",
      });
      assert.equal(tc.modelId, `${session}:train:0`);
      const h = server.requests[0].headers;
      assert.equal(h["x-api-key"], KEY);
      assert.match(String(h["user-agent"]), /AgentLab/);
      assert.match(String(h["x-idempotency-key"]), /.+/);
      assert.equal(h["content-type"], "application/json");
      // A second training client reuses the session and counts model_seq_id up.
      await s.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      assert.equal(server.to("/api/v1/create_session").length, 1);
      assert.equal(server.to("/api/v1/create_model")[1].json?.model_seq_id, 1);
    });

    it("REST calls bootstrap without a session; capabilities list the models", async () => {
      const s = connect();
      assert.deepEqual(await s.supportedModels(), SUPPORTED_MODELS);
      assert.deepEqual(server.paths(), [
        "/api/v1/client/config",
        "/api/v1/client/dynamic_config",
        "/api/v1/get_server_capabilities",
      ]);
      const get = server.to("/api/v1/get_server_capabilities")[0];
      assert.equal(get.method, "GET");
      assert.equal(get.headers["x-idempotency-key"], undefined);
    });

    it("takes TINKER_BASE_URL and TINKER_API_KEY from the environment", async () => {
      service = new TinkerService({
        env: { TINKER_API_KEY: KEY, TINKER_BASE_URL: server.url, TINKER_TAGS: "a,b,a" },
        retry: FAST,
      });
      await service.createSamplingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      assert.equal(server.requests[0].headers["x-api-key"], KEY);
      assert.deepEqual(server.to("/api/v1/create_session")[0].json?.tags, ["a", "b"]);
    });

    it("refuses a missing or malformed key before any request, without echoing it", () => {
      assert.throws(() => new TinkerService({ baseUrl: server.url, env: {} }), TinkerKeyError);
      assert.throws(
        () => new TinkerService({ apiKey: "sk-not-a-tinker-key", baseUrl: server.url, env: {} }),
        (e: Error) =>
          e instanceof TinkerKeyError && !e.message.includes("sk-not-a-tinker-key") && /TINKER_API_KEY/.test(e.message),
      );
      assert.equal(server.requests.length, 0);
    });

    it("heart-beats every interval with the session id, and stops on close", async () => {
      const s = connect({ heartbeatMs: 40 });
      await s.createSamplingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      await new Promise((r) => setTimeout(r, 230));
      const beats = server.to("/api/v1/session_heartbeat");
      assert.ok(beats.length >= 3, `${beats.length} heartbeats`);
      const session = server.to("/api/v1/create_sampling_session")[0].json?.session_id;
      assert.deepEqual(beats[0].json, { session_id: session, type: "session_heartbeat" });
      s.close();
      const after = server.to("/api/v1/session_heartbeat").length;
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(server.to("/api/v1/session_heartbeat").length, after);
    });

    it("JWT mode: exchanges the key for a JWT, sends the JWT, refreshes it when about to expire", async () => {
      let issued = 0;
      server.clientConfig = { pjwt_auth_enabled: true };
      // The first JWT expires in 30 s (inside the 60 s refresh window), later ones in an hour.
      server.jwt = () =>
        jwtWith({
          sub: "user:1",
          email: "a@b.c",
          exp: Math.floor(Date.now() / 1000) + (issued++ === 0 ? 30 : 3600),
          n: issued,
        });
      const s = connect();
      await s.createSamplingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      const paths = server.paths();
      assert.deepEqual(paths.slice(0, 2), ["/api/v1/client/config", "/api/v1/auth/token"]);
      const token = server.to("/api/v1/auth/token");
      assert.equal(token[0].headers["x-api-key"], KEY);
      assert.deepEqual(token[0].json, {});
      assert.equal(token.length, 2, "the near-expiry JWT was refreshed on demand");
      const session = server.to("/api/v1/create_session")[0];
      assert.match(String(session.headers["x-api-key"]), /^eyJ/);
      assert.equal(
        JSON.parse(Buffer.from(String(session.headers["x-api-key"]).split(".")[1], "base64url").toString()).n,
        2,
      );
      assert.deepEqual(s.whoami(), { userUrn: "user:1", email: "a@b.c" });
    });

    it("JWT mode refreshes in the background 300 s before expiry", async () => {
      server.clientConfig = { pjwt_auth_enabled: true };
      // Expires in 301 s: the refresh is due in about 1 s, with no request needed to trigger it.
      server.jwt = () => jwtWith({ sub: "u", exp: Math.floor(Date.now() / 1000) + 301 });
      const s = connect();
      await s.supportedModels();
      assert.equal(server.to("/api/v1/auth/token").length, 1);
      await new Promise((r) => setTimeout(r, 1300));
      assert.ok(server.to("/api/v1/auth/token").length >= 2);
      assert.equal(server.to("/api/v1/get_server_capabilities").length, 1);
    });

    it("401 says how to set the key and never contains it; error text echoing the key is redacted", async () => {
      server.inject("/api/v1/client/config", { status: 401, json: { detail: `bad key ${KEY}` } });
      const s = connect();
      await assert.rejects(s.supportedModels(), (e: Error) => {
        assert.ok(e instanceof TinkerAuthError);
        assert.match(e.message, /TINKER_API_KEY/);
        assert.match(e.message, /Agent Lab: Set Tinker API Key/);
        assert.ok(!e.message.includes(KEY));
        return true;
      });
      server.inject("/api/v1/get_server_capabilities", { status: 400, json: { detail: `echo ${KEY}` } });
      await assert.rejects(
        s.supportedModels(),
        (e: Error) => e instanceof TinkerApiError && !e.message.includes(KEY) && /HTTP 400/.test(e.message),
      );
    });

    it("402 pauses and retries, then fails with a billing message when it lasts", async () => {
      const s = connect({ retry: { ...FAST, billingMaxPauseMs: 150 } });
      server.inject("/api/v1/get_server_capabilities", { status: 402, json: { detail: "payment required" } }, 2);
      assert.equal((await s.supportedModels()).length, SUPPORTED_MODELS.length);
      assert.equal(server.to("/api/v1/get_server_capabilities").length, 3);
      server.inject("/api/v1/get_server_capabilities", { status: 402, json: { detail: "payment required" } }, 1000);
      await assert.rejects(
        s.supportedModels(),
        (e: Error) => e instanceof TinkerBillingError && /billing/.test(e.message) && /credit/.test(e.message),
      );
    });

    it("the billing pause defaults to the server's billing_exception_max_pause_duration_sec", async () => {
      server.clientConfig = { billing_exception_max_pause_duration_sec: 0.1 };
      service = new TinkerService({ apiKey: KEY, baseUrl: server.url, env: {}, retry: { ...FAST, billingPollMs: 20 } });
      await service.supportedModels();
      server.inject("/api/v1/get_server_capabilities", { status: 402 }, 1000);
      const t0 = Date.now();
      await assert.rejects(service.supportedModels(), TinkerBillingError);
      assert.ok(Date.now() - t0 < 2000);
    });
  });

  describe("training calls", () => {
    const data = (): Datum[] => [sftDatum([1, 2, 3, 4], [0, 0, 1, 1]), sftDatum([5, 6, 7], [0, 1, 1])];

    it("sends every training call with the spec's shape and consecutive seq_ids", async () => {
      const tc = await trainer();
      const info = await tc.getInfo();
      assert.equal(info.model_id, tc.modelId);
      const fb = await tc.forwardBackward(data(), "cross_entropy").result();
      const fwd = await tc.forward(data(), "cross_entropy").result();
      const rl = [rlDatum([1, 2, 3], [0, -0.5, -0.7], [0, 1, 1])];
      await tc.forwardBackward(rl, "importance_sampling").result();
      await tc.forwardBackward(rl, "ppo", { clip_low_threshold: 0.8, clip_high_threshold: 1.2 }).result();
      await tc.forwardBackward(rl, "cispo", { clip_low_threshold: 0, clip_high_threshold: 4 }).result();
      await tc.forwardBackward(rl, "dro", { beta: 0.05 }).result();
      const step = await tc.optimStep({ learning_rate: 4e-5, eps: 1e-8 }).result();
      const state = await tc.saveState("ckpt-001", { ttlSeconds: 3600 }).result();
      const sampler = await tc.saveWeightsForSampler("ckpt-001").result();
      const ephemeral = await tc.saveWeightsAndGetSamplingClient().result();

      assert.deepEqual(server.to("/api/v1/get_info")[0].json, { model_id: tc.modelId, type: "get_info" });
      const fbs = server.to("/api/v1/forward_backward");
      assert.equal(fbs[0].headers["content-type"], "application/x-protobuf");
      assert.deepEqual(
        fbs.map((r) => [r.proto?.seq_id, r.proto?.loss_fn, r.proto?.forward_only, r.proto?.loss_fn_config]),
        [
          [1, "cross_entropy", false, undefined],
          [2, "cross_entropy", true, undefined],
          [3, "importance_sampling", false, undefined],
          [4, "ppo", false, { clip_low_threshold: 0.8, clip_high_threshold: 1.2 }],
          [5, "cispo", false, { clip_low_threshold: 0, clip_high_threshold: 4 }],
          [6, "dro", false, { beta: 0.05 }],
        ],
      );
      assert.equal(fbs[0].proto?.model_id, tc.modelId);
      assert.deepEqual(fbs[0].proto?.data[0].model_input, { chunks: [{ type: "encoded_text", tokens: [1, 2, 3] }] });
      assert.deepEqual(fbs[2].proto?.data[0].loss_fn_inputs.advantages.data, [1, 1]);
      assert.deepEqual(server.to("/api/v1/optim_step")[0].json, {
        adam_params: { learning_rate: 4e-5, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 },
        model_id: tc.modelId,
        seq_id: 7,
        type: "optim_step",
      });
      assert.deepEqual(server.to("/api/v1/save_weights")[0].json, {
        model_id: tc.modelId,
        path: "ckpt-001",
        seq_id: 8,
        ttl_seconds: 3600,
        overwrite: false,
        type: "save_weights",
      });
      const sws = server.to("/api/v1/save_weights_for_sampler");
      assert.deepEqual(sws[0].json, {
        model_id: tc.modelId,
        path: "ckpt-001",
        seq_id: 9,
        type: "save_weights_for_sampler",
      });
      assert.deepEqual(sws[1].json, {
        model_id: tc.modelId,
        sampling_session_seq_id: 0,
        seq_id: 10,
        type: "save_weights_for_sampler",
      });

      // Results decoded from protobuf: one logprobs tensor per datum, metrics by key.
      assert.deepEqual(
        fb.outputs.map((o) => o.logprobs.data.length),
        [3, 2],
      );
      const loss = crossEntropy(data(), fb.outputs);
      assert.ok(
        loss > 0 && Math.abs(fb.metrics["loss:sum"] - loss) < 1e-4 * loss,
        `${fb.metrics["loss:sum"]} vs ${loss}`,
      );
      assert.equal(fwd.lossFnOutputType, "ArrayRecord");
      assert.equal(step.metrics["learning_rate:mean"], 4e-5);
      assert.equal(state.path, `tinker://${tc.modelId}/weights/ckpt-001`);
      assert.equal(sampler.path, `tinker://${tc.modelId}/sampler_weights/ckpt-001`);
      assert.equal(ephemeral.samplingSessionId, `${sessionOf(tc.modelId)}:sample:0`);

      // Polls name the request type and ask for protobuf where the result is protobuf.
      const polls = server.to("/api/v1/retrieve_future");
      const types = polls.map((p) => `${p.headers["x-tinker-request-type"]}|${p.headers.accept}`);
      assert.ok(types.includes("ForwardBackward|application/x-protobuf"));
      assert.ok(types.includes("Forward|application/x-protobuf"));
      assert.ok(types.includes("OptimStep|application/json"));
      assert.ok(types.includes("SaveWeightsForSampler|application/json"));
      assert.match(String(polls[0].json?.request_id), /^req-/);
      assert.equal(polls[0].json?.allow_metadata_only, true);
    });

    it("resumes from a saved state with and without optimizer (weights_info → create_model → load_weights)", async () => {
      // A real checkpoint with rank 16 and no unembedding: weights_info reports both.
      const path = await checkpoint("weights", "ckpt-001", { rank: 16, trainUnembed: false });
      const s = connect();
      const a = await s.createTrainingClientFromState(path);
      const b = await s.createTrainingClientFromState(path, { withOptimizer: true });
      assert.deepEqual(server.to("/api/v1/weights_info")[0].json, { tinker_path: path });
      const creates = server.to("/api/v1/create_model");
      // The checkpoint's rank and flags (weights_info says train_unembed false, rank 16) are reused.
      assert.deepEqual(creates[0].json?.lora_config, {
        rank: 16,
        train_unembed: false,
        train_mlp: true,
        train_attn: true,
      });
      const loads = server.to("/api/v1/load_weights");
      assert.deepEqual(loads[0].json, { model_id: a.modelId, seq_id: 1, path, optimizer: false, type: "load_weights" });
      assert.deepEqual(loads[1].json, { model_id: b.modelId, seq_id: 1, path, optimizer: true, type: "load_weights" });
      // The next op after the load is seq_id 2.
      await a.optimStep().result();
      assert.equal(server.to("/api/v1/optim_step")[0].json?.seq_id, 2);
      await assert.rejects(s.createTrainingClientFromState("tinker://r/sampler_weights/x"), /sampler checkpoint/);
    });

    it("create-via-load mode sends one load_weights with session addressing", async () => {
      const path = await checkpoint("weights", "a");
      server.clientConfig = { create_model_via_load_weights: true };
      const s = connect();
      const tc = await s.createTrainingClientFromState(path, { withOptimizer: true });
      assert.equal(server.to("/api/v1/create_model").length, 0);
      const session = sessionOf(tc.modelId);
      assert.deepEqual(server.to("/api/v1/load_weights")[0].json, {
        session_id: session,
        model_seq_id: 0,
        path,
        optimizer: true,
        type: "load_weights",
      });
      assert.equal(tc.modelId, `${session}:train:0`);
    });

    it("chunks large forward_backward calls by datum count and bytes, merging results in order", async () => {
      server.clientConfig = { fwdbwd_max_chunk_len: 2 };
      const tc = await trainer();
      const batch = [2, 3, 4, 5, 6].map((n) =>
        sftDatum(
          Array.from({ length: n }, (_, i) => i + 1),
          Array(n).fill(1),
        ),
      );
      const out = await tc.forwardBackward(batch, "cross_entropy").result();
      const fbs = server.to("/api/v1/forward_backward");
      assert.equal(fbs.length, 3);
      assert.deepEqual(fbs.map((r) => r.proto?.seq_id).sort(), [1, 2, 3]);
      const bySeq = new Map(fbs.map((r) => [r.proto?.seq_id, r.proto?.data.length]));
      assert.deepEqual([bySeq.get(1), bySeq.get(2), bySeq.get(3)], [2, 2, 1]);
      // The first chunk is sent last (the server holds later chunks until it arrives).
      assert.equal(fbs[fbs.length - 1].proto?.seq_id, 1);
      assert.deepEqual(
        out.outputs.map((o) => o.logprobs.data.length),
        [1, 2, 3, 4, 5],
      );
      // The chunks' loss:sum values add up to the whole batch's (":mean" weighting: chunking.test.ts).
      const expectedLoss = crossEntropy(batch, out.outputs);
      assert.ok(
        Math.abs(out.metrics["loss:sum"] - expectedLoss) < 1e-4 * expectedLoss,
        `${out.metrics["loss:sum"]} vs ${expectedLoss}`,
      );
      // The next call continues after the chunks' seq_ids.
      await tc.optimStep().result();
      assert.equal(server.to("/api/v1/optim_step")[0].json?.seq_id, 4);

      service?.close();
      server.clientConfig = { fwdbwd_max_chunk_bytes_count: 100 };
      const small = await trainer();
      // Each 6-token datum is 5·4 + 5·8 + 5·4 = 80 estimated bytes: one per request.
      await small.forwardBackward(batch.slice(3, 5).concat(batch.slice(3, 5)), "cross_entropy").result();
      assert.equal(server.to("/api/v1/forward_backward").filter((r) => r.proto?.model_id === small.modelId).length, 4);
    });

    it("pipelines: forward_backward and optim_step are both sent before either result is awaited", async () => {
      let optimBeforeFirstResult = false;
      server.resultGate = async (kind) => {
        if (kind !== "forward_backward") return;
        // Hold the first result until optim_step arrives (or give up after 2 s, failing the assertion).
        const arrived = await Promise.race([
          server.waitFor("/api/v1/optim_step").then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref()),
        ]);
        optimBeforeFirstResult = arrived;
      };
      const tc = await trainer();
      const fb = tc.forwardBackward([sftDatum([1, 2, 3], [0, 1, 1])], "cross_entropy");
      const step = tc.optimStep({ learning_rate: 1e-4 });
      const [fbResult] = await Promise.all([fb.result(), step.result()]);
      assert.equal(optimBeforeFirstResult, true);
      assert.equal(fbResult.outputs.length, 1);
      assert.deepEqual(server.seqIds(tc.modelId), [1, 2]);
    });

    it("retries a dropped training step with the same idempotency key and seq_id, applied exactly once", async () => {
      const tc = await trainer();
      server.inject("/api/v1/optim_step", { dropAfterHandling: true });
      await tc.optimStep().result();
      const sends = server.to("/api/v1/optim_step");
      assert.equal(sends.length, 2);
      assert.equal(sends[0].headers["x-idempotency-key"], sends[1].headers["x-idempotency-key"]);
      assert.deepEqual(
        [sends[0].headers["x-stainless-retry-count"], sends[1].headers["x-stainless-retry-count"]],
        ["0", "1"],
      );
      assert.equal(sends[0].json?.seq_id, sends[1].json?.seq_id);
      assert.equal(server.ran("optim_step"), 1, "the replay ran nothing");
    });

    it("retries 5xx / 408 / 409 / 429 with back-off, honouring retry-after-ms", async () => {
      const tc = await trainer();
      server.inject("/api/v1/forward_backward", { status: 500 }); // a bare 500: the lowest 5xx is retryable too
      server.inject("/api/v1/forward_backward", { status: 503, json: { detail: "busy" } });
      server.inject("/api/v1/forward_backward", { status: 408 });
      server.inject("/api/v1/forward_backward", { status: 409 });
      server.inject("/api/v1/forward_backward", { status: 429, headers: { "retry-after-ms": "120" } });
      const t0 = Date.now();
      await tc.forwardBackward([sftDatum([1, 2], [0, 1])], "cross_entropy").result();
      assert.ok(Date.now() - t0 >= 110, "waited for retry-after-ms");
      const sends = server.to("/api/v1/forward_backward");
      assert.equal(sends.length, 6);
      assert.equal(new Set(sends.map((s) => s.headers["x-idempotency-key"])).size, 1);
      // A non-retryable 4xx is not retried.
      server.inject("/api/v1/optim_step", { status: 422, json: { detail: "bad adam params" } });
      await assert.rejects(tc.optimStep().result(), (e: Error) => e instanceof TinkerApiError && e.status === 422);
      assert.equal(server.to("/api/v1/optim_step").length, 1);
    });

    it("x-should-retry overrides the status rule; an empty-body 400 (proxy glitch) is retried", async () => {
      const tc = await trainer();
      server.inject("/api/v1/optim_step", { status: 400 });
      await tc.optimStep().result();
      assert.equal(server.to("/api/v1/optim_step").length, 2);
      server.inject("/api/v1/optim_step", { status: 503, headers: { "x-should-retry": "false" } });
      await assert.rejects(tc.optimStep().result(), (e: Error) => e instanceof TinkerApiError && e.status === 503);
      assert.equal(server.to("/api/v1/optim_step").length, 3);
      // That seq_id never reached the server, which runs a model's ops strictly in seq_id order
      // (spec §1.6): later ops of this client would wait for it forever, so go on with a new one.
      const next = await trainer();
      server.inject("/api/v1/optim_step", { status: 418, headers: { "x-should-retry": "true" } });
      await next.optimStep().result();
      assert.equal(server.to("/api/v1/optim_step").length, 5);
    });

    it("long-polls slow futures, survives dropped polls and 5xx, and surfaces error envelopes", async () => {
      // Polls held 40 ms, so a 250 ms result takes several.
      await server.stop();
      server = new ScriptedBackend();
      await server.start({ longPollMs: 40 });
      server.resultGate = (kind) =>
        kind === "optim_step" ? new Promise((r) => setTimeout(r, 250)) : Promise.resolve();
      const tc = await trainer();
      server.inject("/api/v1/retrieve_future", { drop: true });
      server.inject("/api/v1/retrieve_future", { status: 502 });
      await tc.optimStep().result();
      const polls = server
        .to("/api/v1/retrieve_future")
        .filter((p) => p.headers["x-tinker-request-type"] === "OptimStep");
      assert.ok(polls.length >= 4, `${polls.length} polls`);
      assert.deepEqual(
        polls.slice(0, 3).map((p) => p.headers["x-tinker-request-iteration"]),
        ["0", "1", "2"],
      );
      assert.ok(polls[0].headers["x-tinker-create-promise-roundtrip-time"] !== undefined);
      assert.equal(polls[1].headers["x-tinker-create-promise-roundtrip-time"], undefined);

      server.resultGate = () => Promise.reject(new UserInputError("datum 0 has no target_tokens"));
      await assert.rejects(
        tc.forwardBackward([sftDatum([1, 2], [0, 1])], "cross_entropy").result(),
        (e: Error) =>
          e instanceof TinkerRequestFailedError && e.category === "user" && /no target_tokens/.test(e.message),
      );
    });

    it("a metadata-only answer is followed by one full poll", async () => {
      const tc = await trainer();
      // A first step warms the compute worker, so the second's result is ready within one long-poll.
      await tc.optimStep().result();
      server.inject("/api/v1/retrieve_future", {
        status: 200,
        json: { status: "complete_metadata", response_payload_size: 10 },
      });
      await tc.optimStep().result();
      const polls = server.to("/api/v1/retrieve_future").slice(-2);
      assert.deepEqual(
        polls.map((p) => p.json?.allow_metadata_only),
        [true, false],
      );
    });

    it("aborts a pending call promptly, and refuses an already-aborted signal", async () => {
      server.resultGate = (kind) =>
        kind === "optim_step" ? new Promise((r) => setTimeout(r, 5000).unref()) : Promise.resolve();
      const tc = await trainer();
      const controller = new AbortController();
      const pending = tc.optimStep({}, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      const t0 = Date.now();
      await assert.rejects(pending.result(), (e: Error) => e.name === "AbortError");
      assert.ok(Date.now() - t0 < 1000);
      await assert.rejects(
        tc
          .forwardBackward([sftDatum([1, 2], [0, 1])], "cross_entropy", undefined, { signal: AbortSignal.abort() })
          .result(),
        (e: Error) => e.name === "AbortError",
      );
    });
  });

  describe("sampling and REST", () => {
    it("samples with the spec's JSON request and decodes the protobuf result", async () => {
      server.sampleResult = continuePrompt;
      const s = connect();
      const sc = await s.createSamplingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      const session = server.to("/api/v1/create_sampling_session")[0].json?.session_id;
      assert.match(String(session), /^sess-/);
      assert.deepEqual(server.to("/api/v1/create_sampling_session")[0].json, {
        session_id: session,
        sampling_session_seq_id: 0,
        base_model: "Qwen/Qwen3.5-4B",
        type: "create_sampling_session",
      });
      const r = await sc.sample({ prompt: [10, 11, 12], numSamples: 2, maxTokens: 4, seed: 3, stop: [14] }).result();
      const req = server.to("/api/v1/asample")[0];
      assert.deepEqual(req.json, {
        num_samples: 2,
        prompt: { chunks: [{ type: "encoded_text", tokens: [10, 11, 12] }] },
        sampling_params: { max_tokens: 4, temperature: 1, top_k: -1, top_p: 1, seed: 3, stop: [14] },
        sampling_session_id: `${session}:sample:0`,
        seq_id: 0,
        prompt_logprobs: false,
        topk_prompt_logprobs: 0,
        type: "sample",
      });
      assert.equal(req.headers["x-tinker-sampling-backpressure"], "1");
      assert.equal(r.sequences.length, 2);
      assert.deepEqual(r.sequences[0], { tokens: [13, 14], logprobs: [-0.5, -0.5], stopReason: "stop" });
      // Stop strings go out as strings; the local backend has no tokenizer and refuses them (a 400, not retried).
      await assert.rejects(
        sc.sample({ prompt: [1], maxTokens: 3, temperature: 0.7, topP: 0.9, topK: 20, stop: ["</answer>"] }).result(),
        (e: Error) => e instanceof TinkerApiError && e.status === 400 && /stop strings/.test(e.message),
      );
      const second = server.to("/api/v1/asample")[1].json;
      assert.equal(second?.seq_id, 1);
      assert.deepEqual(second?.sampling_params, {
        max_tokens: 3,
        temperature: 0.7,
        top_k: 20,
        top_p: 0.9,
        stop: ["</answer>"],
      });
      assert.equal(server.to("/api/v1/asample").length, 2);
      const long = await sc.sample({ prompt: [1], maxTokens: 3, stop: [99] }).result();
      assert.equal(long.sequences[0].stopReason, "length");
      const lps = await sc.computeLogprobs([5, 6, 7]).result();
      assert.deepEqual(
        lps.map((x) => (x === null ? null : Math.round(x * 10) / 10)),
        [null, -1.1, -1.2],
      );
      assert.equal(server.to("/api/v1/asample").at(-1)?.json?.prompt_logprobs, true);
    });

    it("sampler from a tinker:// path; a bad path is a user error before any request", async () => {
      const path = await checkpoint("sampler_weights", "000020");
      const s = connect();
      await s.createSamplingClient({ modelPath: path });
      assert.equal(server.to("/api/v1/create_sampling_session")[0].json?.model_path, path);
      await assert.rejects(
        s.createSamplingClient({ modelPath: "sess-1/sampler_weights/x" }),
        /must start with tinker:\/\//,
      );
    });

    it("treats 429 on asample as back-pressure: waits, then re-sends with a new seq_id", async () => {
      const s = connect();
      const sc = await s.createSamplingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      server.inject("/api/v1/asample", { status: 429, json: { detail: "slow down" } }, 2);
      server.inject("/api/v1/asample", { status: 500 });
      const t0 = Date.now();
      const r = await sc.sample({ prompt: [1, 2], maxTokens: 2 }).result();
      assert.ok(Date.now() - t0 >= 55, "two back-offs of 30 ms");
      assert.equal(r.sequences[0].tokens.length, 2);
      assert.deepEqual(
        server.to("/api/v1/asample").map((x) => x.json?.seq_id),
        [0, 1, 2, 3],
      );
    });

    it("keeps at most sample_max_concurrent_requests samples in flight per sampler", async () => {
      server.clientConfig = { sample_max_concurrent_requests: 2 };
      let release: () => void = () => undefined;
      const held = new Promise<void>((r) => (release = r));
      server.resultGate = (kind) => (kind === "sample" ? held : Promise.resolve());
      const s = connect();
      const sc = await s.createSamplingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      const all = Array.from({ length: 5 }, () => sc.sample({ prompt: [1], maxTokens: 1 }));
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(server.to("/api/v1/asample").length, 2);
      release();
      await Promise.all(all.map((f) => f.result()));
      assert.equal(server.to("/api/v1/asample").length, 5);
    });

    it("a non-JSON answer is an error that quotes the body redacted", async () => {
      const s = connect();
      await s.supportedModels();
      server.inject("/api/v1/get_server_capabilities", { status: 200, body: `<html>proxy saw ${KEY}</html>` });
      await assert.rejects(
        s.supportedModels(),
        (e: Error) => /not JSON/.test(e.message) && /proxy saw/.test(e.message) && !e.message.includes(KEY),
      );
    });

    it("sample_no_retries: a failed sample is not retried", async () => {
      server.clientConfig = { sample_no_retries: true };
      const sc = await connect().createSamplingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      server.inject("/api/v1/asample", { status: 500 });
      await assert.rejects(
        sc.sample({ prompt: [1], maxTokens: 1 }).result(),
        (e: Error) => e instanceof TinkerApiError && e.status === 500,
      );
      assert.equal(server.to("/api/v1/asample").length, 1);
    });

    it("accepts the legacy JSON sample result as a fallback", async () => {
      const s = connect();
      const sc = await s.createSamplingClient({ baseModel: "Qwen/Qwen3.5-4B" });
      server.inject("/api/v1/retrieve_future", {
        status: 200,
        json: {
          sequences: [{ stop_reason: "length", tokens: [4, 5], logprobs: [-1, -2] }],
          prompt_logprobs: null,
          type: "sample",
        },
      });
      const r = await sc.sample({ prompt: [1], maxTokens: 2 }).result();
      assert.deepEqual(r.sequences[0], { tokens: [4, 5], logprobs: [-1, -2], stopReason: "length" });
    });

    it("REST calls: runs, checkpoints, weights info, sampler, delete, archive URL", async () => {
      const s = connect();
      const tc = await s.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
      const runId = tc.modelId;
      const state = await tc.saveState("ckpt-001").result();
      const sampler = await tc.saveWeightsAndGetSamplingClient().result();
      server.clear();
      const runs = await s.listTrainingRuns({ limit: 5 });
      assert.deepEqual(runs.cursor, { offset: 0, limit: 5, total_count: 1 });
      const listReq = server.to("/api/v1/training_runs")[0];
      assert.equal(listReq.query.toString(), "limit=5&offset=0&access_scope=owned");
      const run = await s.getTrainingRun(runId);
      assert.equal(run.training_run_id, runId);
      const cps = await s.listCheckpoints(runId);
      assert.deepEqual(
        cps.checkpoints.map((c) => c.checkpoint_id),
        ["weights/ckpt-001"],
      );
      await s.listUserCheckpoints();
      assert.equal(server.to("/api/v1/checkpoints")[0].query.toString(), "limit=100&offset=0");
      const info = await s.weightsInfo(state.path);
      assert.equal(info.lora_rank, 8);
      assert.equal((await s.getSampler(sampler.samplingSessionId)).sampler_id, sampler.samplingSessionId);
      // The local backend answers the archive with JSON (a URL it serves); Tinker redirects, with Expires.
      assert.match(
        (await s.checkpointArchiveUrl(state.path)).url,
        /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/checkpoint_archives\//,
      );
      // The lifecycle calls send what the official CLI sends (its rest_client: method, path, body).
      const ckptPath = `/api/v1/training_runs/${runId}/checkpoints/weights/ckpt-001`;
      await s.setCheckpointPublished(state.path, true);
      await s.setCheckpointPublished(state.path, false);
      await s.setCheckpointTtl(state.path, 3600);
      await s.setCheckpointTtl(state.path, null);
      assert.deepEqual(
        server.to(`${ckptPath}/publish`).map((r) => r.method),
        ["POST", "DELETE"],
      );
      assert.deepEqual(
        server.to(`${ckptPath}/ttl`).map((r) => [r.method, r.body.toString()]),
        [
          ["PUT", '{"ttl_seconds":3600}'],
          ["PUT", '{"ttl_seconds":null}'],
        ],
      );
      const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
      await s.billingUsage(hour, new Date(hour.getTime() + 3_600_000));
      assert.equal(
        server.to("/api/v1/billing/usage/events")[0].query.toString(),
        new URLSearchParams({
          starting_on: hour.toISOString(),
          ending_before: new Date(hour.getTime() + 3_600_000).toISOString(),
        }).toString(),
      );
      const archivePath = `/api/v1/training_runs/${runId}/checkpoints/weights/ckpt-001/archive`;
      const redirect = {
        status: 302,
        headers: { location: "https://example.invalid/archive/ckpt-001.tar", expires: "Sun, 29 Nov 2026 15:00:00 GMT" },
      };
      server.inject(archivePath, redirect);
      const archive = await s.checkpointArchiveUrl(state.path);
      assert.equal(archive.url, "https://example.invalid/archive/ckpt-001.tar");
      assert.equal(archive.expires, "2026-11-29T15:00:00.000Z");
      server.inject(archivePath, { status: 503 }, 2);
      server.inject(archivePath, redirect);
      assert.match((await s.checkpointArchiveUrl(state.path)).url, /ckpt-001\.tar$/);
      assert.equal(server.to(archivePath).length, 5);
      await s.deleteCheckpoint(state.path);
      const del = server.requests.filter((r) => r.method === "DELETE").at(-1);
      assert.equal(del?.path, `/api/v1/training_runs/${runId}/checkpoints/weights/ckpt-001`);
      assert.deepEqual((await s.listCheckpoints(runId)).checkpoints, []);
      await assert.rejects(s.deleteCheckpoint("tinker://only-two/parts"), /three parts/);
    });
  });
});
