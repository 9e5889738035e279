/**
 * A small Tinker-speaking node:http server for the client tests: JSON and protobuf per the spec
 * (through the shared wire layer), futures with long-polling, per-model seq_id bookkeeping,
 * idempotent replays, and fault injection (statuses, dropped connections, slow results).
 * It is a test double: its "model" returns fixed logprobs, it trains nothing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodeForwardBackwardRequest,
  encodeForwardBackwardOutput,
  encodeSampleResponse,
  modelInputTokens,
  type ForwardBackwardRequest,
  type SampleRequest,
  type SampleResponse,
  type TensorData,
} from "../../../../src/core/tinker/wire";

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: Buffer;
  /** Parsed JSON body, when it was JSON. */
  json?: Record<string, unknown>;
  /** Decoded protobuf body of forward_backward. */
  proto?: ForwardBackwardRequest;
  at: number;
}

export type Reply =
  | { status: number; json?: unknown; body?: Buffer | string; headers?: Record<string, string> }
  | { drop: true }
  /** Handle the request normally (apply it), then drop the connection instead of answering. */
  | { dropAfterHandling: true };

type FutureValue = { proto: Uint8Array } | { json: unknown };

interface Fault {
  path: string;
  reply: Reply;
  times: number;
}

export class FakeTinkerServer {
  readonly requests: Recorded[] = [];
  /** Replies for POST /client/config. */
  clientConfig: Record<string, unknown> = { use_pyqwest_transport: false, pjwt_auth_enabled: false };
  dynamicConfig: "404" | Record<string, unknown> = "404";
  /** JWT returned by /auth/token (a function to hand out a new one per call). */
  jwt: string | (() => string) = "";
  /** How long retrieve_future holds a request before answering try_again. */
  longPollMs = 200;
  /** Optimizer steps applied per model (a replayed idempotency key is not applied again). */
  readonly appliedSteps = new Map<string, number>();
  /** seq_ids seen per model, in arrival order. */
  readonly seqIds = new Map<string, number[]>();
  /** Optional delay or gate before a future's result is ready, by request kind. */
  resultGate: (kind: string, rec: Recorded) => Promise<void> = () => Promise.resolve();
  /** Override the sample result. */
  sampleResult: (req: SampleRequest) => SampleResponse = defaultSample;

  private server: Server;
  private faults: Fault[] = [];
  private futures = new Map<string, Promise<FutureValue>>();
  private byIdempotencyKey = new Map<string, string>();
  private nextId = 0;
  private sessions = 0;
  private waiters: Array<{ path: string; resolve: () => void }> = [];
  url = "";

  constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next `times` requests to `path` get `reply` instead of normal handling. */
  inject(path: string, reply: Reply, times = 1): void {
    this.faults.push({ path, reply, times });
  }

  paths(): string[] {
    return this.requests.map((r) => r.path);
  }

  to(path: string): Recorded[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves when a request to `path` has arrived (at once if one already has). */
  waitFor(path: string): Promise<void> {
    if (this.requests.some((r) => r.path === path)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ path, resolve }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", "http://x");
    const rec: Recorded = { method: req.method ?? "", path: url.pathname, query: url.searchParams, headers: req.headers, body, at: Date.now() };
    if ((req.headers["content-type"] ?? "").includes("json") && body.length > 0) rec.json = JSON.parse(body.toString("utf8"));
    if ((req.headers["content-type"] ?? "").includes("protobuf")) rec.proto = decodeForwardBackwardRequest(body);
    this.requests.push(rec);
    for (const w of this.waiters.filter((x) => x.path === rec.path)) w.resolve();
    this.waiters = this.waiters.filter((x) => x.path !== rec.path);

    const fault = this.faults.find((f) => f.path === rec.path && f.times > 0);
    if (fault) fault.times--;
    if (fault && "drop" in fault.reply) {
      req.socket.destroy();
      return;
    }
    let reply: Reply;
    if (fault && "status" in fault.reply) reply = fault.reply;
    else {
      try {
        reply = await this.route(rec);
      } catch (e) {
        reply = { status: 400, json: { detail: (e as Error).message } };
      }
      if (fault && "dropAfterHandling" in fault.reply) {
        req.socket.destroy();
        return;
      }
    }
    if (!("status" in reply)) {
      req.socket.destroy();
      return;
    }
    const headers: Record<string, string> = { ...reply.headers };
    let out: Buffer;
    if (reply.json !== undefined) {
      headers["content-type"] ??= "application/json";
      out = Buffer.from(JSON.stringify(reply.json));
    } else out = typeof reply.body === "string" ? Buffer.from(reply.body) : (reply.body ?? Buffer.alloc(0));
    res.writeHead(reply.status, { ...headers, "content-length": String(out.length) });
    res.end(out);
  }

  /** A future: the same idempotency key always maps to the same future (a retried request is not applied twice). */
  private future(rec: Recorded, kind: string, compute: () => FutureValue | Promise<FutureValue>, modelId?: string): Reply {
    const key = rec.headers["x-idempotency-key"] as string | undefined;
    const known = key ? this.byIdempotencyKey.get(key) : undefined;
    if (known) return { status: 200, json: { request_id: known, model_id: modelId } };
    const id = `req-${this.nextId++}`;
    if (key) this.byIdempotencyKey.set(key, id);
    const value = this.resultGate(kind, rec).then(compute);
    value.catch(() => undefined);
    this.futures.set(id, value);
    return { status: 200, json: { request_id: id, model_id: modelId } };
  }

  private noteSeq(modelId: string, seqId: number): void {
    const list = this.seqIds.get(modelId) ?? [];
    list.push(seqId);
    this.seqIds.set(modelId, list);
  }

  private async route(rec: Recorded): Promise<Reply> {
    const j = rec.json ?? {};
    const p = rec.path;
    const ok = (json: unknown): Reply => ({ status: 200, json });
    switch (p) {
      case "/api/v1/client/config":
        return ok(this.clientConfig);
      case "/api/v1/client/dynamic_config":
        return this.dynamicConfig === "404" ? { status: 404, json: { detail: "not found" } } : ok(this.dynamicConfig);
      case "/api/v1/auth/token":
        return ok({ jwt: typeof this.jwt === "function" ? this.jwt() : this.jwt });
      case "/api/v1/create_session":
        return ok({ session_id: `sess-${this.sessions++}`, type: "create_session" });
      case "/api/v1/session_heartbeat":
        return ok({ type: "session_heartbeat" });
      case "/api/v1/get_server_capabilities":
        return ok({ supported_models: [{ model_name: "Qwen/Qwen3.5-4B", max_context_length: 32768 }, { model_name: "Qwen/Qwen3.5-9B" }] });
      case "/api/v1/create_model": {
        const modelId = `${j.session_id}:train:${j.model_seq_id}`;
        return this.future(rec, "create_model", () => ({ json: { model_id: modelId, type: "create_model" } }));
      }
      case "/api/v1/get_info":
        return ok({ type: "get_info", model_id: j.model_id, model_data: { arch: "qwen3_5", model_name: "Qwen/Qwen3.5-4B", tokenizer_id: "Qwen/Qwen3.5-4B" }, is_lora: true, lora_rank: 8 });
      case "/api/v1/forward_backward": {
        const fb = rec.proto;
        if (!fb) return { status: 400, json: { detail: "forward_backward body must be protobuf" } };
        this.noteSeq(fb.model_id, fb.seq_id);
        return this.future(rec, fb.forward_only ? "forward" : "forward_backward", () => ({ proto: forwardOutput(fb) }));
      }
      case "/api/v1/optim_step": {
        const modelId = String(j.model_id);
        const seqId = Number(j.seq_id);
        this.noteSeq(modelId, seqId);
        // A repeat of a known idempotency key is the same request: answer with its future, apply nothing.
        const key = rec.headers["x-idempotency-key"] as string | undefined;
        if (!key || !this.byIdempotencyKey.has(key)) this.appliedSteps.set(modelId, (this.appliedSteps.get(modelId) ?? 0) + 1);
        return this.future(rec, "optim_step", () => ({ json: { metrics: { "lr:mean": (j.adam_params as { learning_rate: number }).learning_rate } } }));
      }
      case "/api/v1/save_weights":
        this.noteSeq(String(j.model_id), Number(j.seq_id));
        return this.future(rec, "save_weights", () => ({ json: { path: `tinker://${j.model_id}/weights/${j.path}`, type: "save_weights" } }));
      case "/api/v1/save_weights_for_sampler":
        this.noteSeq(String(j.model_id), Number(j.seq_id));
        return this.future(rec, "save_weights_for_sampler", () => ({
          json:
            j.path !== undefined
              ? { path: `tinker://${j.model_id}/sampler_weights/${j.path}` }
              : { sampling_session_id: `${String(j.model_id).split(":")[0]}:sample:${j.sampling_session_seq_id}` },
        }));
      case "/api/v1/load_weights": {
        const modelId = j.model_id !== undefined ? String(j.model_id) : `${j.session_id}:train:${j.model_seq_id}`;
        if (j.seq_id !== undefined) this.noteSeq(modelId, Number(j.seq_id));
        return this.future(rec, "load_weights", () => ({ json: { path: j.path, model_id: modelId, type: "load_weights" } }));
      }
      case "/api/v1/weights_info":
        return ok({ base_model: "Qwen/Qwen3.5-4B", is_lora: true, lora_rank: 16, train_unembed: false });
      case "/api/v1/create_sampling_session":
        return ok({ sampling_session_id: `${j.session_id}:sample:${j.sampling_session_seq_id}`, type: "create_sampling_session" });
      case "/api/v1/asample": {
        const sr = j as unknown as SampleRequest;
        return this.future(rec, "sample", () => ({ proto: encodeSampleResponse(this.sampleResult(sr)) }));
      }
      case "/api/v1/retrieve_future":
        return this.retrieve(String(j.request_id));
      case "/api/v1/training_runs":
        return ok({ training_runs: [], cursor: { offset: Number(rec.query.get("offset")), limit: Number(rec.query.get("limit")), total_count: 0 } });
      case "/api/v1/checkpoints":
        return ok({ checkpoints: [], cursor: { offset: 0, limit: 100, total_count: 0 } });
      default:
        break;
    }
    const run = /^\/api\/v1\/training_runs\/([^/]+)(\/checkpoints(?:\/(.+?))?(\/archive)?)?$/.exec(p);
    if (run) {
      const [, runId, checkpoints, checkpointId, archive] = run;
      if (archive) return { status: 302, headers: { location: `https://example.invalid/archive/${runId}/${checkpointId}.tar`, expires: "Sun, 29 Nov 2026 15:00:00 GMT" } };
      if (rec.method === "DELETE") return ok({});
      if (checkpoints) {
        return ok({
          checkpoints: [{ checkpoint_id: "weights/ckpt-001", checkpoint_type: "training", time: "2026-11-29T12:00:00Z", tinker_path: `tinker://${runId}/weights/ckpt-001` }],
        });
      }
      return ok({ training_run_id: runId, base_model: "Qwen/Qwen3.5-4B", model_owner: "me", is_lora: true, last_request_time: "2026-11-29T12:00:00Z" });
    }
    const sampler = /^\/api\/v1\/samplers\/(.+)$/.exec(p);
    if (sampler) return ok({ sampler_id: sampler[1], base_model: "Qwen/Qwen3.5-4B" });
    return { status: 404, json: { detail: `no route ${p}` } };
  }

  private async retrieve(requestId: string): Promise<Reply> {
    const value = this.futures.get(requestId);
    if (!value) return { status: 404, json: { detail: `unknown future ${requestId}` } };
    const timeout = new Promise<"wait">((resolve) => setTimeout(() => resolve("wait"), this.longPollMs).unref());
    let got: FutureValue | "wait";
    try {
      got = await Promise.race([value, timeout]);
    } catch (e) {
      return { status: 200, json: { error: (e as Error).message, category: "user" } };
    }
    if (got === "wait") return { status: 200, json: { type: "try_again", request_id: requestId, queue_state: "active" } };
    if ("proto" in got) return { status: 200, body: Buffer.from(got.proto), headers: { "content-type": "application/x-protobuf" } };
    return { status: 200, json: got.json };
  }
}

/** Fixed, checkable outputs: logprob of target t at position i is -(i+1)/10; loss:sum = Σ -lp·w (or Σ -A). */
function forwardOutput(fb: ForwardBackwardRequest): Uint8Array {
  let loss = 0;
  const outputs = fb.data.map((d) => {
    const targets = d.loss_fn_inputs.target_tokens?.data ?? [];
    const lps = targets.map((_, i) => -(i + 1) / 10);
    const w = d.loss_fn_inputs.weights?.data ?? d.loss_fn_inputs.advantages?.data ?? [];
    lps.forEach((lp, i) => (loss += -lp * (w[i] ?? 0)));
    const out: Record<string, TensorData> = { logprobs: { data: lps, dtype: "float32", shape: [lps.length] } };
    return out;
  });
  return encodeForwardBackwardOutput({ loss_fn_output_type: "ArrayRecord", loss_fn_outputs: outputs, metrics: { "loss:sum": loss, "tokens:mean": outputs.length } });
}

/** Continues the prompt with last+1, last+2, …; stops after a stop token id when one comes up, else at max_tokens. */
function defaultSample(req: SampleRequest): SampleResponse {
  const prompt = modelInputTokens(req.prompt);
  const stop = Array.isArray(req.sampling_params.stop) ? (req.sampling_params.stop as Array<number | string>).filter((s): s is number => typeof s === "number") : [];
  const sequences = Array.from({ length: req.num_samples }, () => {
    const tokens: number[] = [];
    let reason: "stop" | "length" = "length";
    for (let i = 1; i <= (req.sampling_params.max_tokens ?? 16); i++) {
      const t = (prompt[prompt.length - 1] ?? 0) + i;
      tokens.push(t);
      if (stop.includes(t)) {
        reason = "stop";
        break;
      }
    }
    return { tokens, logprobs: tokens.map(() => -0.5), stop_reason: reason };
  });
  return {
    sequences,
    prompt_logprobs: req.prompt_logprobs ? prompt.map((_, i) => (i === 0 ? null : -1 - i / 10)) : null,
    topk_prompt_logprobs: null,
    prompt_cache_hit_tokens: 0,
  };
}
