/**
 * The local backend's state and operations, independent of HTTP: sessions, training models with
 * their per-model op queues (strict seq_id order, retries answered with the first future), samplers,
 * checkpoints and futures. The HTTP layer (http-server.ts) decodes requests and calls in here.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { CheckpointStore, parseTinkerPath, tinkerPath, validCheckpointName, type RunRecord, type TinkerPath } from "./checkpoint-store";
import { FutureStore, type FutureResult } from "./futures";
import { UserInputError } from "./model/errors";
import { LOSS_NAMES, type LossName } from "./model/losses";
import { sample, scorePrompt } from "./model/sample";
import { TinyModel } from "./model/tiny-model";
import { forwardBackward, optimStep, type AdamParams, type TrainDatum } from "./model/train";
import { encodeForwardBackwardOutput, encodeSampleResponse } from "../core/tinker/wire/codec";
import type {
  Datum,
  ForwardBackwardRequest,
  LoraConfig,
  SampleRequest,
  SampleResponse,
  TensorData,
} from "../core/tinker/wire/types";

/** An error with the HTTP status the server should answer (4xx user errors; never 409, spec §7.2). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface BackendOptions {
  dir: string;
  seed: number;
  /** Extra time each queued operation takes before it runs (simulates a slow service). */
  opDelayMs: () => number;
  /** Token ids → text, needed only for stop strings. */
  decode?: (ids: number[]) => string;
  log: (line: string) => void;
}

export interface OpRecord {
  kind: string;
  /** performance.now() when the op started running, and when its result was ready. */
  start: number;
  end: number;
}

interface SessionState {
  id: string;
  runIds: string[];
  samplerIds: string[];
  /** Ephemeral samplers (save_weights_and_get_sampling_client), oldest first; bounded (see MAX_EPHEMERAL_SAMPLERS). */
  ephemeral: string[];
  lastHeartbeat: number;
}

interface TrainingState {
  run: RunRecord;
  model: TinyModel;
  /** The next seq_id to execute; create_model is implicitly 0. */
  nextSeq: number;
  pending: Map<number, { kind: string; run: () => FutureResult }>;
  futureBySeq: Map<number, string>;
  running: boolean;
}

interface SamplerState {
  id: string;
  baseModel: string;
  modelPath?: string;
  model: TinyModel;
  futureBySeq: Map<number, string>;
}

/** Unnamed sampler snapshots kept per session (each holds a copy of the weights). */
export const MAX_EPHEMERAL_SAMPLERS = 16;

export const SUPPORTED_MODELS = ["Qwen/Qwen3.5-4B", "Qwen/Qwen3.5-9B", "Qwen/Qwen3.5-27B", "Qwen/Qwen3.5-35B-A3B"];
export const STAND_IN_NOTICE =
  "Agent Lab local backend: a local stand-in for Tinker with a tiny CPU model (whatever base_model you name); its numbers say nothing about the real model.";

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class LocalBackend {
  readonly futures = new FutureStore();
  readonly store: CheckpointStore;
  private readonly sessions = new Map<string, SessionState>();
  private readonly training = new Map<string, TrainingState>();
  private readonly samplers = new Map<string, SamplerState>();
  /**
   * One vocabulary for the whole server (see tiny-model.ts): every model is brought up to it
   * before it computes, so a sampler and its trainer always agree on the softmax's support and
   * sampled logprobs match the learner's for the same weights.
   */
  private readonly vocabIds: number[] = [];
  private readonly vocabSet = new Set<number>();
  private readonly vocabSynced = new WeakMap<TinyModel, number>();
  private vocabDirty = false;
  private closed = false;
  /** What ran and for how long (queue wait excluded): for benchmarks and diagnostics. Newest last, bounded. */
  readonly opLog: OpRecord[] = [];
  private readonly evicted = new Set<string>();

  private logOp(kind: string, start: number): void {
    this.opLog.push({ kind, start, end: performance.now() });
    if (this.opLog.length > 10_000) this.opLog.splice(0, 1_000);
  }

  constructor(readonly options: BackendOptions) {
    this.store = new CheckpointStore(options.dir);
    const vocabFile = join(options.dir, "vocab.json");
    if (existsSync(vocabFile)) for (const id of JSON.parse(readFileSync(vocabFile, "utf8")) as number[]) this.addVocab(id);
    this.vocabDirty = false;
  }

  // ---------- vocabulary ----------

  private addVocab(id: number): void {
    if (!Number.isInteger(id) || id < 0 || id > 0x7fffffff) throw new UserInputError(`token id ${id} is not a valid id`);
    if (this.vocabSet.has(id)) return;
    this.vocabSet.add(id);
    this.vocabIds.push(id);
    this.vocabDirty = true;
  }

  /** Registers ids from a request server-wide and brings a model up to the shared vocabulary. */
  private syncVocab(model: TinyModel, ids: Iterable<number>): void {
    for (const id of ids) this.addVocab(id);
    let from = this.vocabSynced.get(model) ?? 0;
    for (; from < this.vocabIds.length; from++) model.ensureToken(this.vocabIds[from]);
    this.vocabSynced.set(model, from);
  }

  /** Persists the shared vocabulary (called periodically and on close). */
  flushVocab(): void {
    if (!this.vocabDirty) return;
    const file = join(this.options.dir, "vocab.json");
    writeFileSync(`${file}.tmp`, JSON.stringify(this.vocabIds));
    renameSync(`${file}.tmp`, file);
    this.vocabDirty = false;
  }

  // ---------- sessions ----------

  createSession(): { session_id: string; type: "create_session"; info_message: string } {
    const id = `sess-${randomBytes(6).toString("hex")}`;
    this.sessions.set(id, { id, runIds: [], samplerIds: [], ephemeral: [], lastHeartbeat: Date.now() });
    return { session_id: id, type: "create_session", info_message: STAND_IN_NOTICE };
  }

  /** Sessions are lenient: an id from before a restart is adopted rather than refused. */
  private session(id: unknown): SessionState {
    if (typeof id !== "string" || id.length === 0) throw new HttpError(400, "session_id is required");
    let s = this.sessions.get(id);
    if (!s) {
      s = { id, runIds: [], samplerIds: [], ephemeral: [], lastHeartbeat: Date.now() };
      this.sessions.set(id, s);
    }
    return s;
  }

  heartbeat(id: unknown): void {
    if (typeof id !== "string" || !this.sessions.has(id)) throw new HttpError(404, `unknown session ${String(id)}`);
    this.sessions.get(id)!.lastHeartbeat = Date.now();
  }

  listSessions(): string[] {
    return [...this.sessions.keys()];
  }

  getSession(id: string): { training_run_ids: string[]; sampler_ids: string[] } {
    const s = this.sessions.get(id);
    if (!s) throw new HttpError(404, `unknown session ${id}`);
    return { training_run_ids: s.runIds, sampler_ids: s.samplerIds };
  }

  // ---------- futures ----------

  private immediateFuture(result: FutureResult): string {
    const id = this.futures.create();
    this.futures.resolve(id, result);
    return id;
  }

  private static failure(e: unknown): FutureResult {
    if (e instanceof UserInputError || e instanceof HttpError) return { kind: "error", message: e.message, category: "user" };
    return { kind: "error", message: `local backend error: ${(e as Error).message}`, category: "server" };
  }

  // ---------- training models ----------

  createModel(body: Record<string, unknown>): { request_id: string; model_id: string } {
    const session = this.session(body.session_id);
    const seq = body.model_seq_id;
    if (!Number.isInteger(seq) || (seq as number) < 0) throw new HttpError(400, "model_seq_id must be a non-negative integer");
    if (typeof body.base_model !== "string" || body.base_model.length === 0) throw new HttpError(400, "base_model is required");
    const lora = parseLora(body.lora_config);
    const modelId = `${session.id}:train:${seq}`;
    const existing = this.training.get(modelId);
    if (existing) return { request_id: this.immediateFuture({ kind: "json", body: { model_id: modelId, type: "create_model" } }), model_id: modelId };
    const now = new Date().toISOString();
    const run: RunRecord = {
      training_run_id: modelId,
      base_model: body.base_model,
      lora_config: lora,
      session_id: session.id,
      created: now,
      last_request_time: now,
    };
    if (isStringRecord(body.user_metadata)) run.user_metadata = body.user_metadata;
    const model = this.newModel(lora);
    this.training.set(modelId, { run, model, nextSeq: 1, pending: new Map(), futureBySeq: new Map(), running: false });
    session.runIds.push(modelId);
    this.store.saveRun(run);
    this.options.log(`created model ${modelId} (base ${run.base_model}, rank ${lora.rank})`);
    return { request_id: this.immediateFuture({ kind: "json", body: { model_id: modelId, type: "create_model" } }), model_id: modelId };
  }

  private newModel(lora: LoraConfig): TinyModel {
    return new TinyModel({
      rank: lora.rank,
      seed: lora.seed ?? this.options.seed,
      trainUnembed: lora.train_unembed,
      trainMlp: lora.train_mlp,
      trainAttn: lora.train_attn,
    });
  }

  private trainingState(modelId: unknown): TrainingState {
    if (typeof modelId !== "string") throw new HttpError(400, "model_id is required");
    const t = this.training.get(modelId);
    if (!t) throw new HttpError(404, `unknown model ${modelId} (models live in memory; after a restart, load a checkpoint into a new training client)`);
    return t;
  }

  getInfo(modelId: unknown): Record<string, unknown> {
    const t = this.trainingState(modelId);
    return {
      type: "get_info",
      model_id: t.run.training_run_id,
      model_data: { arch: "agent-lab-tiny-copy-lm (local stand-in)", model_name: t.run.base_model, tokenizer_id: t.run.base_model },
      is_lora: true,
      lora_rank: t.model.config.rank,
      model_name: t.run.base_model,
    };
  }

  /**
   * Queues a training op at its seq_id. A seq_id seen before returns the first request's future, so
   * a retried request is never applied twice; ops run strictly in seq_id order, each only after all
   * lower ones have arrived.
   */
  private submit(modelId: unknown, seqId: unknown, kind: string, run: (t: TrainingState) => FutureResult): { request_id: string; model_id: string } {
    const t = this.trainingState(modelId);
    let seq: number;
    if (seqId === undefined || seqId === null) seq = Math.max(t.nextSeq - 1, ...t.pending.keys()) + 1;
    else if (Number.isInteger(seqId) && (seqId as number) >= 1) seq = seqId as number;
    else throw new HttpError(400, `seq_id must be a positive integer, got ${String(seqId)}`);
    const previous = t.futureBySeq.get(seq);
    if (previous) return { request_id: previous, model_id: t.run.training_run_id };
    if (seq < t.nextSeq) throw new HttpError(400, `seq_id ${seq} was already executed for ${t.run.training_run_id}`);
    const id = this.futures.create();
    t.futureBySeq.set(seq, id);
    t.pending.set(seq, { kind, run: () => {
      try {
        return run(t);
      } catch (e) {
        return LocalBackend.failure(e);
      }
    } });
    t.run.last_request_time = new Date().toISOString();
    void this.pump(t);
    return { request_id: id, model_id: t.run.training_run_id };
  }

  private async pump(t: TrainingState): Promise<void> {
    if (t.running) return;
    t.running = true;
    try {
      while (!this.closed && t.pending.has(t.nextSeq)) {
        const seq = t.nextSeq;
        const op = t.pending.get(seq)!;
        t.pending.delete(seq);
        const start = performance.now();
        // Yield first so the HTTP response carrying the future goes out before the work blocks.
        await delay(this.options.opDelayMs());
        const result = op.run();
        this.logOp(op.kind, start);
        this.futures.resolve(t.futureBySeq.get(seq)!, result);
        t.nextSeq = seq + 1;
      }
    } finally {
      t.running = false;
    }
  }

  forwardBackward(req: ForwardBackwardRequest): { request_id: string; model_id: string } {
    return this.submit(req.model_id, req.seq_id || undefined, req.forward_only ? "forward" : "forward_backward", (t) => {
      if (!LOSS_NAMES.includes(req.loss_fn as LossName)) throw new UserInputError(`unknown loss_fn "${req.loss_fn}"`);
      const datums = req.data.map((d, i) => toTrainDatum(d, i));
      this.syncVocab(t.model, datums.flatMap((d) => [...d.input, ...d.targets]));
      const result = forwardBackward(t.model, datums, req.loss_fn as LossName, req.loss_fn_config ?? {}, !req.forward_only);
      const outputs = result.logprobs.map((lp, i) => {
        const shape = datums[i].k > 1 ? [datums[i].input.length, datums[i].k] : [datums[i].input.length];
        return { logprobs: { data: Array.from(lp), dtype: "float32", shape } as TensorData };
      });
      const bytes = encodeForwardBackwardOutput({ loss_fn_output_type: "ArrayRecord", loss_fn_outputs: outputs, metrics: { "loss:sum": result.loss } });
      return { kind: "proto", bytes };
    });
  }

  optimStep(body: Record<string, unknown>): { request_id: string; model_id: string } {
    return this.submit(body.model_id, body.seq_id, "optim_step", (t) => {
      const p = body.adam_params as Partial<AdamParams> | undefined;
      if (!p || typeof p !== "object") throw new UserInputError("adam_params is required");
      const params: AdamParams = {
        learning_rate: p.learning_rate ?? 1e-4,
        beta1: p.beta1 ?? 0.9,
        beta2: p.beta2 ?? 0.95,
        eps: p.eps ?? 1e-12,
        weight_decay: p.weight_decay ?? 0,
        grad_clip_norm: p.grad_clip_norm ?? 0,
      };
      return { kind: "json", body: { metrics: optimStep(t.model, params) } };
    });
  }

  saveWeights(body: Record<string, unknown>): { request_id: string; model_id: string } {
    const name = body.path;
    if (typeof name !== "string" || !validCheckpointName(name)) throw new HttpError(400, "path must be a checkpoint name without '/'");
    return this.submit(body.model_id, body.seq_id, "save_weights", (t) => {
      const p: TinkerPath = { runId: t.run.training_run_id, kind: "weights", name };
      if (this.store.exists(p) && body.overwrite !== true) throw new UserInputError(`checkpoint ${tinkerPath(p)} exists (pass overwrite=true to replace it)`);
      this.store.save(p, t.model, ttl(body.ttl_seconds));
      this.store.saveRun(t.run);
      return { kind: "json", body: { path: tinkerPath(p), type: "save_weights" } };
    });
  }

  saveWeightsForSampler(body: Record<string, unknown>): { request_id: string; model_id: string } {
    const name = body.path;
    if (name !== undefined && name !== null && (typeof name !== "string" || !validCheckpointName(name))) throw new HttpError(400, "path must be a checkpoint name without '/'");
    // The ephemeral sampler id is fixed at submission, so a retry maps to the same sampler.
    return this.submit(body.model_id, body.seq_id, "save_weights_for_sampler", (t) => {
      if (typeof name === "string") {
        const p: TinkerPath = { runId: t.run.training_run_id, kind: "sampler_weights", name };
        this.store.save(p, t.model, ttl(body.ttl_seconds));
        this.store.saveRun(t.run);
        return { kind: "json", body: { path: tinkerPath(p), type: "save_weights_for_sampler" } };
      }
      const session = this.session(t.run.session_id);
      const n = Number.isInteger(body.sampling_session_seq_id) ? (body.sampling_session_seq_id as number) : session.samplerIds.length;
      const samplerId = `${session.id}:sample:${n}`;
      this.addSampler(session, { id: samplerId, baseModel: t.run.base_model, model: t.model.cloneWeights(), futureBySeq: new Map() });
      // An RL loop makes one of these per step; keep memory bounded by forgetting the oldest.
      session.ephemeral.push(samplerId);
      while (session.ephemeral.length > MAX_EPHEMERAL_SAMPLERS) {
        const old = session.ephemeral.shift()!;
        this.samplers.delete(old);
        this.evicted.add(old);
      }
      return { kind: "json", body: { sampling_session_id: samplerId, type: "save_weights_for_sampler" } };
    });
  }

  loadWeights(body: Record<string, unknown>): { request_id: string; model_id: string } {
    const path = body.path;
    const p = typeof path === "string" ? parseTinkerPath(path) : undefined;
    if (!p) throw new HttpError(400, `path must be tinker://<run>/<weights|sampler_weights>/<name>, got ${String(path)}`);
    const withOptimizer = body.optimizer === true;
    let modelId = body.model_id;
    let seqId = body.seq_id;
    if (modelId === undefined && body.session_id !== undefined) {
      // create-via-load addressing: make the model from the checkpoint's run, then load into it.
      const run = this.store.getRun(p.runId);
      const created = this.createModel({
        session_id: body.session_id,
        model_seq_id: body.model_seq_id,
        base_model: body.base_model ?? run?.base_model ?? SUPPORTED_MODELS[0],
        lora_config: run?.lora_config ?? { rank: 32, train_unembed: true, train_mlp: true, train_attn: true },
        user_metadata: body.user_metadata,
      });
      modelId = created.model_id;
      seqId = 1;
    }
    return this.submit(modelId, seqId, "load_weights", (t) => {
      if (!this.store.exists(p)) throw new UserInputError(`no checkpoint at ${path as string}`);
      const loaded = this.store.load(p, withOptimizer);
      // Keep the training client's choice of trainable parts; weights (and rank) come from the file.
      const lora = t.run.lora_config;
      const model = new TinyModel({ ...loaded.config, trainUnembed: lora.train_unembed, trainMlp: lora.train_mlp, trainAttn: lora.train_attn }, false);
      model.adoptState(loaded.vocab, loaded.tensors, loaded.adamStep);
      t.model = model;
      return { kind: "json", body: { path, model_id: t.run.training_run_id, type: "load_weights" } };
    });
  }

  unloadModel(modelId: unknown): { request_id: string; model_id: string } {
    const t = this.trainingState(modelId);
    this.training.delete(t.run.training_run_id);
    return { request_id: this.immediateFuture({ kind: "json", body: { model_id: t.run.training_run_id, type: "unload_model" } }), model_id: t.run.training_run_id };
  }

  weightsInfo(path: unknown): Record<string, unknown> {
    const p = typeof path === "string" ? parseTinkerPath(path) : undefined;
    if (!p) throw new HttpError(400, `tinker_path must be tinker://<run>/<weights|sampler_weights>/<name>`);
    if (!this.store.exists(p)) throw new HttpError(404, `no checkpoint at ${path as string}`);
    const run = this.store.getRun(p.runId);
    const lora = run?.lora_config ?? { rank: 32, train_unembed: true, train_mlp: true, train_attn: true };
    return { base_model: run?.base_model ?? SUPPORTED_MODELS[0], is_lora: true, lora_rank: lora.rank, train_unembed: lora.train_unembed, train_mlp: lora.train_mlp, train_attn: lora.train_attn };
  }

  // ---------- sampling ----------

  private addSampler(session: SessionState, s: SamplerState): void {
    if (!this.samplers.has(s.id)) session.samplerIds.push(s.id);
    this.samplers.set(s.id, s);
  }

  createSamplingSession(body: Record<string, unknown>): { sampling_session_id: string; type: "create_sampling_session" } {
    const session = this.session(body.session_id);
    const n = Number.isInteger(body.sampling_session_seq_id) ? (body.sampling_session_seq_id as number) : session.samplerIds.length;
    const id = `${session.id}:sample:${n}`;
    if (this.samplers.has(id)) return { sampling_session_id: id, type: "create_sampling_session" };
    if (typeof body.model_path === "string") {
      const p = parseTinkerPath(body.model_path);
      if (!p) throw new HttpError(400, `model_path must be tinker://<run>/<weights|sampler_weights>/<name>`);
      if (!this.store.exists(p)) throw new HttpError(404, `no checkpoint at ${body.model_path}`);
      const run = this.store.getRun(p.runId);
      this.addSampler(session, { id, baseModel: run?.base_model ?? SUPPORTED_MODELS[0], modelPath: body.model_path, model: this.store.load(p, false, false), futureBySeq: new Map() });
    } else if (typeof body.base_model === "string") {
      this.addSampler(session, { id, baseModel: body.base_model, model: new TinyModel({ seed: this.options.seed }, true, false), futureBySeq: new Map() });
    } else {
      throw new HttpError(400, "create_sampling_session needs base_model or model_path");
    }
    return { sampling_session_id: id, type: "create_sampling_session" };
  }

  samplerInfo(id: string): Record<string, unknown> {
    const s = this.samplers.get(id);
    if (!s) throw new HttpError(404, `unknown sampler ${id}`);
    return s.modelPath ? { sampler_id: id, base_model: s.baseModel, model_path: s.modelPath } : { sampler_id: id, base_model: s.baseModel };
  }

  /** Queues a sample request; the same (sampler, seq_id) returns the first future. */
  asample(body: SampleRequest): { request_id: string } {
    const s = this.samplers.get(body.sampling_session_id);
    if (!s && this.evicted.has(body.sampling_session_id)) {
      throw new HttpError(404, `sampler ${body.sampling_session_id} was dropped: the local backend keeps the newest ${MAX_EPHEMERAL_SAMPLERS} unnamed samplers per session (save named sampler weights to keep one)`);
    }
    if (!s) throw new HttpError(404, `unknown sampling session ${String(body.sampling_session_id)}`);
    const seq = Number.isInteger(body.seq_id) ? body.seq_id : undefined;
    if (seq !== undefined) {
      const previous = s.futureBySeq.get(seq);
      if (previous) return { request_id: previous };
    }
    const id = this.futures.create();
    if (seq !== undefined) s.futureBySeq.set(seq, id);
    const start = performance.now();
    void delay(this.options.opDelayMs()).then(() => {
      let result: FutureResult;
      try {
        result = { kind: "proto", bytes: encodeSampleResponse(this.runSample(s, body)) };
      } catch (e) {
        result = LocalBackend.failure(e);
      }
      this.logOp("sample", start);
      this.futures.resolve(id, result);
    });
    return { request_id: id };
  }

  private runSample(s: SamplerState, body: SampleRequest): SampleResponse {
    const prompt = promptTokens(body.prompt);
    this.syncVocab(s.model, prompt);
    const p = body.sampling_params ?? ({} as SampleRequest["sampling_params"]);
    const stop = p.stop;
    const stopTokens = Array.isArray(stop) && stop.every((x) => typeof x === "number") ? (stop as number[]) : [];
    const stopStrings = typeof stop === "string" ? [stop] : Array.isArray(stop) && stop.every((x) => typeof x === "string") ? (stop as string[]) : [];
    const numSamples = body.num_samples ?? 1;
    const seed = p.seed !== undefined && p.seed !== null ? Number(BigInt.asUintN(63, BigInt(Math.trunc(p.seed)))) : Math.floor(Math.random() * 2 ** 31);
    const sequences = sample(s.model, prompt, numSamples, {
      maxTokens: p.max_tokens ?? 256,
      temperature: p.temperature ?? 1,
      topK: p.top_k ?? -1,
      topP: p.top_p ?? 1,
      seed,
      stopTokens,
      stopStrings,
      decode: this.options.decode,
    });
    const response: SampleResponse = {
      sequences: sequences.map((q) => ({ tokens: q.tokens, logprobs: q.logprobs, stop_reason: q.stopReason })),
      prompt_logprobs: null,
      topk_prompt_logprobs: null,
      prompt_cache_hit_tokens: 0,
    };
    const topk = body.topk_prompt_logprobs ?? 0;
    if (body.prompt_logprobs || topk > 0) {
      const scored = scorePrompt(s.model, prompt, topk);
      if (body.prompt_logprobs) response.prompt_logprobs = scored.logprobs;
      if (topk > 0) response.topk_prompt_logprobs = scored.topk;
    }
    return response;
  }

  // ---------- REST listing ----------

  listTrainingRuns(limit: number, offset: number): { training_runs: unknown[]; cursor: { offset: number; limit: number; total_count: number } } {
    const runs = this.store.listRuns().map((r) => this.training.get(r.training_run_id)?.run ?? r);
    return {
      training_runs: runs.slice(offset, offset + limit).map((r) => this.store.trainingRun(r)),
      cursor: { offset, limit, total_count: runs.length },
    };
  }

  getTrainingRun(runId: string): unknown {
    const run = this.training.get(runId)?.run ?? this.store.getRun(runId);
    if (!run) throw new HttpError(404, `unknown training run ${runId}`);
    return this.store.trainingRun(run);
  }

  listRunCheckpoints(runId: string): { checkpoints: unknown[] } {
    if (!this.store.getRun(runId)) throw new HttpError(404, `unknown training run ${runId}`);
    return { checkpoints: this.store.listCheckpoints(runId) };
  }

  listAllCheckpoints(limit: number, offset: number): { checkpoints: unknown[]; cursor: { offset: number; limit: number; total_count: number } } {
    const all = this.store.listRuns().flatMap((r) => this.store.listCheckpoints(r.training_run_id));
    all.sort((a, b) => (a.time < b.time ? 1 : -1));
    return { checkpoints: all.slice(offset, offset + limit), cursor: { offset, limit, total_count: all.length } };
  }

  checkpointPath(runId: string, checkpointId: string): TinkerPath {
    const slash = checkpointId.indexOf("/");
    const kind = checkpointId.slice(0, slash);
    const name = checkpointId.slice(slash + 1);
    if (slash < 0 || (kind !== "weights" && kind !== "sampler_weights") || !validCheckpointName(name)) {
      throw new HttpError(400, `checkpoint id must be weights/<name> or sampler_weights/<name>, got ${checkpointId}`);
    }
    return { runId, kind, name };
  }

  deleteCheckpoint(runId: string, checkpointId: string): void {
    if (!this.store.delete(this.checkpointPath(runId, checkpointId))) throw new HttpError(404, `no checkpoint ${checkpointId} in ${runId}`);
  }

  close(): void {
    this.closed = true;
    this.futures.wakeAll();
    this.flushVocab();
  }
}

// ---------- request decoding helpers ----------

function isStringRecord(v: unknown): v is Record<string, string> {
  return typeof v === "object" && v !== null && Object.values(v).every((x) => typeof x === "string");
}

function ttl(v: unknown): number | undefined {
  return typeof v === "number" && v > 0 ? v : undefined;
}

function parseLora(v: unknown): LoraConfig {
  const o = (typeof v === "object" && v !== null ? v : {}) as Partial<LoraConfig>;
  const rank = o.rank ?? 32;
  if (!Number.isInteger(rank) || rank < 1) throw new HttpError(400, `lora_config.rank must be a positive integer, got ${String(rank)}`);
  const lora: LoraConfig = { rank, train_unembed: o.train_unembed ?? true, train_mlp: o.train_mlp ?? true, train_attn: o.train_attn ?? true };
  if (!lora.train_unembed && !lora.train_mlp && !lora.train_attn) throw new HttpError(400, "lora_config must train at least one of unembed, mlp, attn");
  if (o.seed !== undefined && o.seed !== null) lora.seed = o.seed;
  return lora;
}

function promptTokens(input: unknown): number[] {
  const chunks = (input as { chunks?: unknown[] } | undefined)?.chunks;
  if (!Array.isArray(chunks)) throw new UserInputError("prompt.chunks is required");
  const out: number[] = [];
  for (const c of chunks as Array<{ type?: string; tokens?: unknown }>) {
    if (c.type !== undefined && c.type !== "encoded_text") throw new UserInputError(`the local backend reads text only, got a ${c.type} chunk`);
    if (!Array.isArray(c.tokens) || !c.tokens.every((t) => Number.isInteger(t))) throw new UserInputError("encoded_text chunk needs integer tokens");
    out.push(...(c.tokens as number[]));
  }
  return out;
}

/** Dense row-major values of a wire tensor (CSR tensors are expanded). */
function denseValues(t: TensorData, what: string): number[] {
  if (!t.sparse_crow_indices) return t.data;
  const shape = t.shape ?? [];
  if (shape.length !== 2 || !t.sparse_col_indices) throw new UserInputError(`${what}: a sparse tensor needs a 2-D shape and column indices`);
  const [rows, cols] = shape;
  const out = new Array<number>(rows * cols).fill(0);
  for (let r = 0; r < rows; r++) {
    for (let j = t.sparse_crow_indices[r]; j < t.sparse_crow_indices[r + 1]; j++) out[r * cols + t.sparse_col_indices[j]] = t.data[j];
  }
  return out;
}

function toTrainDatum(d: Datum, i: number): TrainDatum {
  const input: number[] = [];
  for (const c of d.model_input.chunks) {
    if (c.type !== "encoded_text") throw new UserInputError(`datum ${i}: the local backend reads text only, got a ${c.type} chunk`);
    input.push(...c.tokens);
  }
  const targetTensor = d.loss_fn_inputs.target_tokens;
  if (!targetTensor) throw new UserInputError(`datum ${i}: loss_fn_inputs.target_tokens is required`);
  const targets = denseValues(targetTensor, `datum ${i} target_tokens`);
  const shape = targetTensor.shape ?? [targets.length];
  const k = shape.length === 2 ? shape[1] : 1;
  const lossInputs: Record<string, number[]> = {};
  for (const [name, t] of Object.entries(d.loss_fn_inputs)) {
    if (name !== "target_tokens") lossInputs[name] = denseValues(t, `datum ${i} ${name}`);
  }
  return { input, targets, k, lossInputs };
}
