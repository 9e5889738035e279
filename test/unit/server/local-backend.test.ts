/**
 * The local backend over real HTTP on loopback: endpoints and encodings as the spec describes,
 * futures, seq_id ordering, idempotency, persistence across a restart, and fault injection.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import {
  decodeForwardBackwardOutput,
  decodeSampleResponse,
  encodeForwardBackwardRequest,
} from "../../../src/core/base/tinker/wire/codec";
import { rlDatum, sftDatum } from "../../../src/core/base/tinker/wire/builders";
import type { Datum, ForwardBackwardOutput, LossFn, SampleResponse } from "../../../src/core/base/tinker/wire/types";
import { freePort } from "../../helpers/local-backend";

interface Reply {
  status: number;
  json?: Record<string, unknown>;
  bytes?: Uint8Array;
  contentType: string;
}

class Wire {
  constructor(readonly url: string) {}

  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    const isBytes = body instanceof Uint8Array;
    const res = await fetch(`${this.url}/api/v1/${path}`, {
      method,
      headers: {
        "X-API-Key": "tml-test",
        "Content-Type": isBytes ? "application/x-protobuf" : "application/json",
        ...headers,
      },
      body: body === undefined ? undefined : isBytes ? (body as Uint8Array<ArrayBuffer>) : JSON.stringify(body),
    });
    const contentType = res.headers.get("content-type") ?? "";
    const buf = new Uint8Array(await res.arrayBuffer());
    if (contentType.includes("application/x-protobuf")) return { status: res.status, bytes: buf, contentType };
    const text = Buffer.from(buf).toString("utf8");
    return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined, contentType };
  }

  async post(path: string, body: unknown, headers?: Record<string, string>): Promise<Record<string, unknown>> {
    const r = await this.send("POST", path, body, headers);
    assert.equal(r.status, 200, `${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json!;
  }

  async get(path: string): Promise<Record<string, unknown>> {
    const r = await this.send("GET", path);
    assert.equal(r.status, 200, `${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json!;
  }

  /** Polls a future until it is not try_again; counts the try_agains. */
  async result(requestId: string): Promise<Reply & { tries: number }> {
    for (let tries = 0; ; tries++) {
      const r = await this.send(
        "POST",
        "retrieve_future",
        { request_id: requestId, allow_metadata_only: true },
        { Accept: "application/x-protobuf" },
      );
      if (r.json?.type === "try_again") continue;
      return { ...r, tries };
    }
  }

  async json(requestId: string): Promise<Record<string, unknown>> {
    const r = await this.result(requestId);
    assert.ok(r.json && !("error" in r.json), `future failed: ${JSON.stringify(r.json)}`);
    return r.json;
  }

  async fb(
    modelId: string,
    seq: number,
    data: Datum[],
    lossFn: LossFn = "cross_entropy",
    forwardOnly = false,
  ): Promise<ForwardBackwardOutput> {
    const body = encodeForwardBackwardRequest({
      model_id: modelId,
      seq_id: seq,
      data,
      loss_fn: lossFn,
      forward_only: forwardOnly,
    });
    const f = await this.post("forward_backward", body);
    const r = await this.result(f.request_id as string);
    assert.ok(r.bytes, `forward_backward result is not protobuf: ${JSON.stringify(r.json)}`);
    return decodeForwardBackwardOutput(r.bytes);
  }

  async optim(modelId: string, seq: number, lr = 0.05): Promise<Record<string, unknown>> {
    const adam_params = { learning_rate: lr, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 };
    const f = await this.post("optim_step", { adam_params, model_id: modelId, seq_id: seq, type: "optim_step" });
    return this.json(f.request_id as string);
  }

  async sample(samplerId: string, seq: number, prompt: number[], maxTokens = 5, seed = 1): Promise<SampleResponse> {
    const f = await this.post("asample", {
      num_samples: 2,
      prompt: { chunks: [{ tokens: prompt, type: "encoded_text" }] },
      sampling_params: { max_tokens: maxTokens, seed, temperature: 1, top_k: -1, top_p: 1 },
      sampling_session_id: samplerId,
      seq_id: seq,
      prompt_logprobs: true,
      topk_prompt_logprobs: 0,
      type: "sample",
    });
    const r = await this.result(f.request_id as string);
    assert.ok(r.bytes, `sample result is not protobuf: ${JSON.stringify(r.json)}`);
    return decodeSampleResponse(r.bytes);
  }

  async session(): Promise<string> {
    const s = await this.post("create_session", {
      tags: [],
      user_metadata: {},
      sdk_version: "0.25.0",
      type: "create_session",
    });
    return s.session_id as string;
  }

  async model(session: string, seq = 0, rank = 4): Promise<string> {
    const f = await this.post("create_model", {
      session_id: session,
      model_seq_id: seq,
      base_model: "Qwen/Qwen3.5-4B",
      lora_config: { rank, train_unembed: true, train_mlp: true, train_attn: true },
      type: "create_model",
    });
    const r = await this.json(f.request_id as string);
    return r.model_id as string;
  }
}

// A short real-looking sequence: prompt tokens then a completion (weights 1 on the completion).
const SEQ = [151644, 872, 198, 3838, 374, 279, 6722, 30, 151645, 198, 151644, 77091, 198, 785, 6722, 13];
const WEIGHTS = SEQ.map((_, i) => (i >= 12 ? 1 : 0));
const lossOf = (o: ForwardBackwardOutput) => o.metrics["loss:sum"];

describe("server/local-backend", function () {
  this.timeout(30_000);
  let dir: string;
  let server: RunningLocalBackend;
  let wire: Wire;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "local-backend-"));
    server = await startLocalBackend({ dir, seed: 0, longPollMs: 300 });
    wire = new Wire(server.url);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    for (const k of Object.keys(server.faults)) delete (server.faults as Record<string, unknown>)[k];
  });

  it("answers the SDK's bootstrap: client config without pyqwest, dynamic config, telemetry, capabilities saying it is a stand-in", async () => {
    const config = await wire.post("client/config", { sdk_version: "0.25.0" });
    assert.equal(config.use_pyqwest_transport, false);
    assert.equal(config.pjwt_auth_enabled, false);
    assert.equal((await wire.post("client/dynamic_config", { sdk_version: "0.25.0" })).refresh_interval_sec, 300);
    assert.deepEqual(
      await wire.post("telemetry", {
        events: [{ event: "SESSION_START" }],
        platform: "Linux",
        sdk_version: "0.25.0",
        session_id: "x",
        process_uuid: "y",
      }),
      { status: "accepted" },
    );
    const caps = await wire.get("get_server_capabilities");
    assert.ok((caps.supported_models as Array<{ model_name: string }>).some((m) => m.model_name === "Qwen/Qwen3.5-4B"));
    assert.match(String(caps.notice), /stand-in/);
    const session = await wire.post("create_session", {
      tags: [],
      user_metadata: {},
      sdk_version: "0.25.0",
      type: "create_session",
    });
    assert.match(String(session.info_message), /stand-in/);
    assert.deepEqual(
      await wire.post("session_heartbeat", { session_id: session.session_id, type: "session_heartbeat" }),
      { type: "session_heartbeat" },
    );
    assert.equal(
      (await wire.send("POST", "session_heartbeat", { session_id: "nope", type: "session_heartbeat" })).status,
      404,
    );
  });

  it("trains over protobuf: forward_backward results come back as ForwardBackwardOutput and loss falls after optim_step", async () => {
    const model = await wire.model(await wire.session());
    const info = await wire.post("get_info", { model_id: model, type: "get_info" });
    assert.equal(info.model_id, model);
    assert.equal(info.lora_rank, 4);
    const data = [sftDatum(SEQ, WEIGHTS)];
    const first = await wire.fb(model, 1, data);
    assert.equal(first.loss_fn_outputs.length, 1);
    const lps = first.loss_fn_outputs[0].logprobs;
    assert.equal(lps.dtype, "float32");
    assert.equal(lps.data.length, SEQ.length - 1);
    // loss:sum = −Σ lp·w over the shifted weights.
    const expected = -lps.data.reduce((s, lp, i) => s + lp * WEIGHTS[i + 1], 0);
    assert.ok(Math.abs(lossOf(first) - expected) < 1e-3);
    const metrics = (await wire.optim(model, 2)).metrics as Record<string, number>;
    assert.ok(metrics["grad_norm:mean"] > 0);
    let seq = 3;
    let last = first;
    for (let i = 0; i < 4; i++) {
      last = await wire.fb(model, seq++, data);
      await wire.optim(model, seq++);
    }
    assert.ok(lossOf(last) < lossOf(first) * 0.7, `${lossOf(first)} → ${lossOf(last)}`);
    // A request the loss cannot use is refused at the door as a user error, before it is queued.
    const bad = await wire.send(
      "POST",
      "forward_backward",
      encodeForwardBackwardRequest({
        model_id: model,
        seq_id: seq,
        data: [
          rlDatum(
            SEQ,
            SEQ.map(() => 0),
            SEQ.map(() => 0),
          ),
        ],
        loss_fn: "cross_entropy",
      }),
    );
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json, {
      detail: "forward_backward.data[0]: loss_fn cross_entropy needs loss_fn_inputs.weights",
      category: "user",
    });
  });

  it("runs training ops strictly in seq_id order and waits for a missing seq_id", async () => {
    const model = await wire.model(await wire.session());
    const adam_params = { learning_rate: 0.05, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0, grad_clip_norm: 0 };
    // optim_step (seq 2) arrives before forward_backward (seq 1): it must wait, then see its gradient.
    const opt = await wire.post("optim_step", { adam_params, model_id: model, seq_id: 2, type: "optim_step" });
    const early = await wire.send("POST", "retrieve_future", { request_id: opt.request_id, allow_metadata_only: true });
    assert.equal(early.json?.type, "try_again");
    assert.equal(early.json?.queue_state, "active");
    const fb = await wire.post(
      "forward_backward",
      encodeForwardBackwardRequest({
        model_id: model,
        seq_id: 1,
        data: [sftDatum(SEQ, WEIGHTS)],
        loss_fn: "cross_entropy",
      }),
    );
    const metrics = (await wire.json(opt.request_id as string)).metrics as Record<string, number>;
    assert.ok(metrics["grad_norm:mean"] > 0, "optim_step ran before the forward_backward it follows");
    assert.ok((await wire.result(fb.request_id as string)).bytes);
  });

  it("applies a retried request once: same idempotency key or same seq_id returns the first future", async () => {
    const model = await wire.model(await wire.session());
    const data = [sftDatum(SEQ, WEIGHTS)];
    const body = encodeForwardBackwardRequest({ model_id: model, seq_id: 1, data, loss_fn: "cross_entropy" });
    const a = await wire.post("forward_backward", body, { "X-Idempotency-Key": "stainless-python-retry-1" });
    const b = await wire.post("forward_backward", body, { "X-Idempotency-Key": "stainless-python-retry-1" });
    const c = await wire.post("forward_backward", body, { "X-Idempotency-Key": "stainless-python-retry-2" });
    assert.equal(b.request_id, a.request_id);
    assert.equal(c.request_id, a.request_id);
    const step = (await wire.optim(model, 2)).metrics as Record<string, number>;
    assert.equal(step["step:max"], 1);
    // Gradients were accumulated once: a fresh model with one forward_backward has the same norm.
    const twin = await wire.model(await wire.session());
    await wire.fb(twin, 1, data);
    const twinStep = (await wire.optim(twin, 2)).metrics as Record<string, number>;
    assert.ok(Math.abs(twinStep["grad_norm:mean"] - step["grad_norm:mean"]) < 1e-9);
  });

  it("long-polls retrieve_future: a result that arrives within the poll window needs no try_again", async () => {
    const session = await wire.session();
    const s = await wire.post("create_sampling_session", {
      session_id: session,
      sampling_session_seq_id: 0,
      base_model: "Qwen/Qwen3.5-4B",
      type: "create_sampling_session",
    });
    // The first sample on a sampler also loads its model in the compute worker: keep that out of the timing.
    await wire.sample(s.sampling_session_id as string, 99, [1, 2, 3], 1);
    server.faults.slowFutureMs = 150;
    const f = await wire.post("asample", {
      num_samples: 1,
      prompt: { chunks: [{ tokens: [1, 2, 3], type: "encoded_text" }] },
      sampling_params: { max_tokens: 2, seed: 1, temperature: 1, top_k: -1, top_p: 1 },
      sampling_session_id: s.sampling_session_id,
      seq_id: 0,
      prompt_logprobs: false,
      topk_prompt_logprobs: 0,
      type: "sample",
    });
    const start = Date.now();
    const r = await wire.result(f.request_id as string);
    assert.equal(r.tries, 0);
    assert.ok(Date.now() - start >= 100);
    server.faults.slowFutureMs = 700; // longer than the 300 ms poll window
    const g = await wire.post("asample", {
      num_samples: 1,
      prompt: { chunks: [{ tokens: [1, 2, 3], type: "encoded_text" }] },
      sampling_params: { max_tokens: 2, seed: 1, temperature: 1, top_k: -1, top_p: 1 },
      sampling_session_id: s.sampling_session_id,
      seq_id: 1,
      prompt_logprobs: false,
      topk_prompt_logprobs: 0,
      type: "sample",
    });
    assert.ok((await wire.result(g.request_id as string)).tries >= 1);
    assert.equal(
      (await wire.send("POST", "retrieve_future", { request_id: "req-unknown", allow_metadata_only: true })).status,
      410,
    );
  });

  it("samples over JSON → protobuf with logprobs equal to the learner's forward logprobs", async () => {
    const session = await wire.session();
    const model = await wire.model(session);
    await wire.fb(model, 1, [sftDatum(SEQ, WEIGHTS)]);
    await wire.optim(model, 2);
    const s = await wire.post("save_weights_for_sampler", {
      model_id: model,
      sampling_session_seq_id: 0,
      seq_id: 3,
      type: "save_weights_for_sampler",
    });
    const samplerId = (await wire.json(s.request_id as string)).sampling_session_id as string;
    assert.equal(samplerId, `${session}:sample:0`);
    assert.equal((await wire.get(`samplers/${samplerId}`)).base_model, "Qwen/Qwen3.5-4B");
    const prompt = SEQ.slice(0, 12);
    const res = await wire.sample(samplerId, 0, prompt, 6, 42);
    assert.equal(res.sequences.length, 2);
    assert.equal(res.prompt_logprobs?.[0], null);
    assert.equal(res.prompt_logprobs?.length, prompt.length);
    for (const seq of res.sequences) {
      const full = [...prompt, ...seq.tokens];
      const fwd = await wire.fb(
        model,
        4 + res.sequences.indexOf(seq),
        [
          sftDatum(
            full,
            full.map(() => 0),
          ),
        ],
        "cross_entropy",
        true,
      );
      const learner = fwd.loss_fn_outputs[0].logprobs.data.slice(prompt.length - 1);
      seq.logprobs!.forEach((lp, i) =>
        assert.ok(Math.abs(lp - learner[i]) < 1e-4, `token ${i}: ${lp} vs ${learner[i]}`),
      );
    }
    // The same seed gives the same tokens.
    const again = await wire.sample(samplerId, 7, prompt, 6, 42);
    assert.deepEqual(
      again.sequences.map((s2) => s2.tokens),
      res.sequences.map((s2) => s2.tokens),
    );
  });

  it("keeps tinker:// checkpoints across a restart: weights_info, sampling from the path, loading into a new model, listings", async () => {
    const session = await wire.session();
    const model = await wire.model(session, 0, 6);
    const data = [sftDatum(SEQ, WEIGHTS)];
    await wire.fb(model, 1, data);
    await wire.optim(model, 2);
    const saved = await wire.post("save_weights", {
      model_id: model,
      path: "step-1",
      seq_id: 3,
      overwrite: false,
      type: "save_weights",
    });
    const statePath = (await wire.json(saved.request_id as string)).path as string;
    assert.equal(statePath, `tinker://${model}/weights/step-1`);
    const exported = await wire.post("save_weights_for_sampler", {
      model_id: model,
      path: "step-1",
      seq_id: 4,
      type: "save_weights_for_sampler",
    });
    const samplerPath = (await wire.json(exported.request_id as string)).path as string;
    assert.equal(samplerPath, `tinker://${model}/sampler_weights/step-1`);
    const dup = await wire.post("save_weights", {
      model_id: model,
      path: "step-1",
      seq_id: 5,
      overwrite: false,
      type: "save_weights",
    });
    assert.match(String((await wire.result(dup.request_id as string)).json?.error), /exists/);
    const before = lossOf(await wire.fb(model, 6, data, "cross_entropy", true));

    await server.close();
    server = await startLocalBackend({ dir, seed: 0, longPollMs: 300 });
    wire = new Wire(server.url);

    const info = await wire.post("weights_info", { tinker_path: statePath });
    assert.deepEqual(info, {
      base_model: "Qwen/Qwen3.5-4B",
      is_lora: true,
      lora_rank: 6,
      train_unembed: true,
      train_mlp: true,
      train_attn: true,
    });
    const session2 = await wire.session();
    const fromPath = await wire.post("create_sampling_session", {
      session_id: session2,
      sampling_session_seq_id: 0,
      model_path: samplerPath,
      type: "create_sampling_session",
    });
    assert.equal((await wire.get(`samplers/${fromPath.sampling_session_id as string}`)).model_path, samplerPath);
    const restored = await wire.model(session2, 0, 6);
    const load = await wire.post("load_weights", {
      model_id: restored,
      seq_id: 1,
      path: statePath,
      optimizer: true,
      type: "load_weights",
    });
    await wire.json(load.request_id as string);
    const after = lossOf(await wire.fb(restored, 2, data, "cross_entropy", true));
    assert.ok(Math.abs(after - before) < 1e-4, `${before} vs ${after}`);

    const runs = await wire.get("training_runs?limit=20&offset=0&access_scope=owned");
    const ids = (runs.training_runs as Array<{ training_run_id: string }>).map((r) => r.training_run_id);
    assert.ok(ids.includes(model) && ids.includes(restored));
    assert.equal((runs.cursor as { total_count: number }).total_count, ids.length);
    const run = await wire.get(`training_runs/${model}`);
    assert.equal((run.last_checkpoint as { tinker_path: string }).tinker_path, statePath);
    const listed = await wire.get(`training_runs/${model}/checkpoints`);
    assert.deepEqual((listed.checkpoints as Array<{ checkpoint_id: string }>).map((c) => c.checkpoint_id).sort(), [
      "sampler_weights/step-1",
      "weights/step-1",
    ]);
    const all = await wire.get("checkpoints?limit=100&offset=0");
    assert.ok((all.checkpoints as Array<{ tinker_path: string }>).some((c) => c.tinker_path === samplerPath));
    assert.equal((await wire.send("DELETE", `training_runs/${model}/checkpoints/sampler_weights/step-1`)).status, 200);
    assert.equal((await wire.send("DELETE", `training_runs/${model}/checkpoints/sampler_weights/step-1`)).status, 404);
    assert.equal((await wire.send("POST", "weights_info", { tinker_path: samplerPath })).status, 404);
    assert.equal((await wire.send("POST", "weights_info", { tinker_path: "not-a-path" })).status, 400);
  });

  it("injects faults: sampling 429s, 5xx before any work, added latency, and dropped responses that a keyed retry recovers", async () => {
    const session = await wire.session();
    const s = await wire.post("create_sampling_session", {
      session_id: session,
      sampling_session_seq_id: 0,
      base_model: "Qwen/Qwen3.5-4B",
      type: "create_sampling_session",
    });
    const sampleBody = {
      num_samples: 1,
      prompt: { chunks: [{ tokens: [5, 6], type: "encoded_text" }] },
      sampling_params: { max_tokens: 1, temperature: 1, top_k: -1, top_p: 1 },
      sampling_session_id: s.sampling_session_id,
      seq_id: 0,
      prompt_logprobs: false,
      topk_prompt_logprobs: 0,
      type: "sample",
    };
    server.faults.sample429Rate = 1;
    assert.equal((await wire.send("POST", "asample", sampleBody)).status, 429);
    server.faults.sample429Rate = 0;
    server.faults.error5xxRate = 1;
    assert.equal(
      (
        await wire.send("POST", "create_session", {
          tags: [],
          user_metadata: {},
          sdk_version: "0.25.0",
          type: "create_session",
        })
      ).status,
      503,
    );
    assert.equal(
      (await wire.send("POST", "client/config", { sdk_version: "0.25.0" })).status,
      200,
      "bootstrap is never faulted",
    );
    server.faults.error5xxRate = 0;
    server.faults.latencyMs = 120;
    const t0 = Date.now();
    await wire.get("healthz");
    assert.ok(Date.now() - t0 >= 110);
    server.faults.latencyMs = 0;
    // A dropped response: the work was done; the retry with the same key gets the same future.
    const model = await wire.model(session);
    const body = encodeForwardBackwardRequest({
      model_id: model,
      seq_id: 1,
      data: [sftDatum(SEQ, WEIGHTS)],
      loss_fn: "cross_entropy",
    });
    server.faults.dropRate = 1;
    await assert.rejects(wire.send("POST", "forward_backward", body, { "X-Idempotency-Key": "k-drop" }));
    server.faults.dropRate = 0;
    const retried = await wire.post("forward_backward", body, { "X-Idempotency-Key": "k-drop" });
    assert.ok((await wire.result(retried.request_id as string)).bytes);
    assert.equal(((await wire.optim(model, 2)).metrics as Record<string, number>)["step:max"], 1);
  });
});

describe("server/local-backend start-or-reuse", () => {
  it("reuses a backend already on the port and starts one when none is there", async () => {
    const { connectOrStartLocalBackend, isLocalBackend } = await import("../../../src/server");
    const dir = mkdtempSync(join(tmpdir(), "local-backend-reuse-"));
    const first = await connectOrStartLocalBackend({ dir, port: 0 });
    try {
      assert.equal(first.started, true);
      const port = Number(new URL(first.url).port);
      const second = await connectOrStartLocalBackend({ dir, port });
      assert.equal(second.started, false);
      assert.equal(second.url, first.url);
      await second.close(); // a reused backend is not stopped by the borrower
      assert.equal(await isLocalBackend(first.url), true);
    } finally {
      await first.close();
      rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(await isLocalBackend(first.url), false);
  });

  it("never reuses another folder's backend: a job of another workspace serves its own folder on a free port", async () => {
    const { connectOrStartLocalBackend, localBackendAt, localStoreId } = await import("../../../src/server");
    const dirA = mkdtempSync(join(tmpdir(), "local-backend-a-"));
    const dirB = mkdtempSync(join(tmpdir(), "local-backend-b-"));
    const first = await connectOrStartLocalBackend({ dir: dirA, port: 0 });
    try {
      const port = Number(new URL(first.url).port);
      // Before, B's job took A's server on the shared port: B's checkpoints went to A's folder (a later
      // B job found "no checkpoint at …"), and A's stop did not wait for B's lease, taken in B's folder.
      const other = await connectOrStartLocalBackend({ dir: dirB, port });
      try {
        assert.equal(other.started, true);
        assert.notEqual(other.url, first.url);
        assert.equal((await localBackendAt(other.url))?.storeId, localStoreId(dirB));
        assert.equal((await localBackendAt(first.url))?.storeId, localStoreId(dirA));
      } finally {
        await other.close();
      }
    } finally {
      await first.close();
      rmSync(dirA, { recursive: true, force: true });
      rmSync(dirB, { recursive: true, force: true });
    }
  });

  it("stops the backend it started when its folder was deleted meanwhile (a workspace removed under a job): the port is free again", async () => {
    const { connectOrStartLocalBackend, isLocalBackend } = await import("../../../src/server");
    const dir = mkdtempSync(join(tmpdir(), "local-backend-gone-"));
    const port = await freePort();
    const handle = await connectOrStartLocalBackend({ dir, port });
    assert.equal(handle.started, true);
    rmSync(dir, { recursive: true, force: true });
    // Before, the stop's lock file could not be made in the deleted folder: close() rejected with
    // ENOENT and the server kept the port (and the process) alive with nothing left to stop it.
    await handle.close();
    assert.equal(await isLocalBackend(handle.url, 500), false);
  });
});

describe("server/local-backend memory bounds", () => {
  it("keeps the newest 16 unnamed samplers per session and says why an older one is gone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "local-backend-evict-"));
    const server = await startLocalBackend({ dir, longPollMs: 1_000 });
    try {
      const wire = new Wire(server.url);
      const session = await wire.session();
      const model = await wire.model(session);
      const ids: string[] = [];
      for (let i = 0; i < 18; i++) {
        const f = await wire.post("save_weights_for_sampler", {
          model_id: model,
          sampling_session_seq_id: i,
          seq_id: i + 1,
          type: "save_weights_for_sampler",
        });
        ids.push((await wire.json(f.request_id as string)).sampling_session_id as string);
      }
      const sampleOn = (id: string) =>
        wire.send("POST", "asample", {
          num_samples: 1,
          prompt: { chunks: [{ tokens: [1, 2], type: "encoded_text" }] },
          sampling_params: { max_tokens: 1, temperature: 1, top_k: -1, top_p: 1 },
          sampling_session_id: id,
          seq_id: 0,
          prompt_logprobs: false,
          topk_prompt_logprobs: 0,
          type: "sample",
        });
      const gone = await sampleOn(ids[1]);
      assert.equal(gone.status, 404);
      assert.match(String(gone.json?.detail), /newest 16/);
      assert.equal((await sampleOn(ids[2])).status, 200);
      assert.equal((await sampleOn(ids[17])).status, 200);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
