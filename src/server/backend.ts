/**
 * The local backend's state and operations, independent of HTTP: sessions, training models with
 * their per-model op queues (strict seq_id order, retries answered with the first future), samplers,
 * checkpoints and futures. Requests arrive already validated (validate.ts); the models themselves
 * live in the compute worker (compute/), so nothing here runs model code on the HTTP event loop.
 * Every collection is bounded, and a request that is refused changes nothing.
 */
import { randomBytes } from "node:crypto";
import {
  CheckpointStore,
  parseTinkerPath,
  tinkerPath,
  validCheckpointName,
  type RunRecord,
  type TinkerPath,
} from "./checkpoint-store";
import { ComputeClient } from "./compute/client";
import type { ComputeJob, ComputeResult } from "./compute/jobs";
import { decodeSampleResponse, encodeSampleResponse } from "../core/base/tinker/wire/codec";
import { FutureStore, type FutureResult } from "./futures";
import { HttpError } from "./http-error";
import { UserInputError } from "./model/errors";
import { MAX_RANK } from "./model/tiny-model";
import type { TestSeam } from "./test-seam";
import { UsageMeter } from "./usage-meter";
import type {
  CreateModelBody,
  CreateSamplingSessionBody,
  ForwardBackwardBody,
  LoadWeightsBody,
  LoraRequest,
  OptimStepBody,
  SampleBody,
  SaveWeightsBody,
} from "./validate";

export { HttpError };

export interface BackendOptions {
  dir: string;
  seed: number;
  /** Extra time each queued operation takes before it runs (simulates a slow service). */
  opDelayMs: () => number;
  log: (line: string) => void;
  /** The test seam's result gate and scripted sampler (test-seam.ts); absent in production. */
  seam?: Pick<TestSeam, "beforeResult" | "sample">;
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
  /** The model's handle in the compute worker. */
  handle: string;
  rank: number;
  /** The next seq_id to execute; create_model is implicitly 0. */
  nextSeq: number;
  pending: Map<number, { kind: string; run: () => Promise<FutureResult> }>;
  futureBySeq: Map<number, string>;
  running: boolean;
  lastUsed: number;
}

interface SamplerState {
  id: string;
  baseModel: string;
  modelPath?: string;
  /** Compute handle: shared per checkpoint path or base seed, own for an ephemeral snapshot. */
  handle: string;
  futureBySeq: Map<number, string>;
}

/** Unnamed sampler snapshots kept per session (each holds a copy of the weights). */
export const MAX_EPHEMERAL_SAMPLERS = 16;
/** Bounds that keep the server's memory flat however many requests arrive. */
export const BOUNDS = {
  sessions: 10_000,
  /** Training models held in memory; the least recently used idle one is unloaded past this. */
  trainingModels: 32,
  /** Checkpoint samplers loaded at once (reloaded from disk on demand). */
  loadedCheckpoints: 16,
  /** Training ops queued ahead of the next one to run (a seq_id further ahead is refused). */
  seqAhead: 4096,
  /** seq_id → future entries remembered per model or sampler, for retries. */
  seqMemory: 4096,
  /** Compute jobs waiting: past this, asample answers 429 (the SDK backs off and resends). */
  queuedJobs: 2048,
  forgottenIds: 10_000,
} as const;

export const SUPPORTED_MODELS = ["Qwen/Qwen3.5-4B", "Qwen/Qwen3.5-9B", "Qwen/Qwen3.5-27B", "Qwen/Qwen3.5-35B-A3B"];
export const STAND_IN_NOTICE =
  "Agent Lab local backend: a local stand-in for Tinker with a tiny CPU model (whatever base_model you name); its numbers say nothing about the real model.";

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const DEFAULT_LORA: LoraRequest = { rank: 32, train_unembed: true, train_mlp: true, train_attn: true };

/** Drops the oldest entries of an insertion-ordered map or set past a size. */
function trim(m: Map<unknown, unknown> | Set<unknown>, max: number): void {
  for (const k of m.keys()) {
    if (m.size <= max) break;
    m.delete(k);
  }
}

function bytesOf(r: ComputeResult): Uint8Array {
  if (!("bytes" in r)) throw new Error("compute answered JSON where protobuf was expected");
  return r.bytes;
}

function jsonOf(r: ComputeResult): unknown {
  if (!("json" in r)) throw new Error("compute answered protobuf where JSON was expected");
  return r.json;
}

export class LocalBackend {
  readonly futures = new FutureStore();
  readonly store: CheckpointStore;
  /** What Tinker would bill, answered by GET billing/usage/events. */
  readonly usage: UsageMeter;
  private readonly compute = new ComputeClient();
  private readonly sessions = new Map<string, SessionState>();
  private readonly training = new Map<string, TrainingState>();
  private readonly samplers = new Map<string, SamplerState>();
  /** Checkpoint and base-model handles loaded in the compute worker, least recently used first. */
  private readonly shared = new Map<string, Promise<void>>();
  private closed = false;
  private handles = 0;
  /** What ran and for how long (queue wait excluded): for benchmarks and diagnostics. Newest last, bounded. */
  readonly opLog: OpRecord[] = [];
  /** Samplers and models dropped to bound memory, so a later request can say why they are gone. */
  private readonly evicted = new Set<string>();
  private readonly unloaded = new Set<string>();

  constructor(readonly options: BackendOptions) {
    this.store = new CheckpointStore(options.dir);
    this.usage = new UsageMeter(options.dir);
  }

  private logOp(kind: string, start: number): void {
    this.opLog.push({ kind, start, end: performance.now() });
    if (this.opLog.length > 10_000) this.opLog.splice(0, 1_000);
  }

  private run(job: ComputeJob): Promise<ComputeResult> {
    return this.compute.run(job);
  }

  /** Sizes of the bounded collections (for the reliability tests and diagnostics). */
  stats(): Record<string, number> {
    return {
      sessions: this.sessions.size,
      trainingModels: this.training.size,
      samplers: this.samplers.size,
      futures: this.futures.size,
      computeInFlight: this.compute.inFlight,
    };
  }

  // ---------- sessions ----------

  createSession(): { session_id: string; type: "create_session"; info_message: string } {
    const id = `sess-${randomBytes(6).toString("hex")}`;
    this.addSession(id);
    return { session_id: id, type: "create_session", info_message: STAND_IN_NOTICE };
  }

  private addSession(id: string): SessionState {
    const s: SessionState = { id, runIds: [], samplerIds: [], ephemeral: [], lastHeartbeat: Date.now() };
    this.sessions.set(id, s);
    if (this.sessions.size > BOUNDS.sessions) {
      // Forget the longest-idle sessions that own no live model; their samplers stay reachable by id.
      for (const [key, old] of this.sessions) {
        if (this.sessions.size <= BOUNDS.sessions) break;
        if (key !== id && !old.runIds.some((r) => this.training.has(r))) this.sessions.delete(key);
      }
    }
    return s;
  }

  /** Sessions are lenient: an id from before a restart is adopted rather than refused (call only once a request is known good). */
  private session(id: string): SessionState {
    return this.sessions.get(id) ?? this.addSession(id);
  }

  heartbeat(id: string): void {
    const s = this.sessions.get(id);
    if (!s) throw new HttpError(404, `unknown session ${id}`);
    s.lastHeartbeat = Date.now();
    // Keep live sessions at the young end, so the bound forgets idle ones first.
    this.sessions.delete(id);
    this.sessions.set(id, s);
  }

  listSessions(offset: number, limit: number): string[] {
    const out: string[] = [];
    let i = 0;
    for (const id of this.sessions.keys()) {
      if (i++ < offset) continue;
      if (out.length >= limit) break;
      out.push(id);
    }
    return out;
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
    if (e instanceof UserInputError || e instanceof HttpError)
      return { kind: "error", message: e.message, category: "user" };
    return { kind: "error", message: `local backend error: ${(e as Error).message}`, category: "server" };
  }

  // ---------- training models ----------

  createModel(body: CreateModelBody): { request_id: string; model_id: string } {
    const modelId = `${body.session_id}:train:${body.model_seq_id}`;
    const existing = this.training.get(modelId);
    const done = () => ({
      request_id: this.immediateFuture({ kind: "json", body: { model_id: modelId, type: "create_model" } }),
      model_id: modelId,
    });
    if (existing) return done();
    this.makeTrainingModel(modelId, body, true);
    return done();
  }

  private makeTrainingModel(modelId: string, body: CreateModelBody, init: boolean): TrainingState {
    const session = this.session(body.session_id);
    const now = new Date().toISOString();
    const lora = body.lora_config;
    const run: RunRecord = {
      training_run_id: modelId,
      base_model: body.base_model,
      lora_config: lora,
      session_id: session.id,
      created: now,
      last_request_time: now,
    };
    if (body.user_metadata) run.user_metadata = body.user_metadata;
    this.evictIdleModels();
    const handle = `train#${++this.handles}`;
    const t: TrainingState = {
      run,
      handle,
      rank: Math.min(lora.rank, MAX_RANK),
      nextSeq: 1,
      pending: new Map(),
      futureBySeq: new Map(),
      running: false,
      lastUsed: Date.now(),
    };
    this.training.set(modelId, t);
    this.unloaded.delete(modelId);
    session.runIds.push(modelId);
    if (session.runIds.length > 4 * BOUNDS.trainingModels)
      session.runIds.splice(0, session.runIds.length - 4 * BOUNDS.trainingModels);
    this.store.saveRun(run);
    if (init) {
      void this.run({
        kind: "create",
        handle,
        config: {
          rank: lora.rank,
          seed: lora.seed ?? this.options.seed,
          trainUnembed: lora.train_unembed,
          trainMlp: lora.train_mlp,
          trainAttn: lora.train_attn,
        },
        trainable: true,
      }).catch((e: unknown) => this.options.log(`creating ${modelId} failed: ${(e as Error).message}`));
    }
    this.options.log(`created model ${modelId} (base ${run.base_model}, rank ${lora.rank})`);
    return t;
  }

  /** Unloads the least recently used idle training models past the bound. */
  private evictIdleModels(): void {
    if (this.training.size < BOUNDS.trainingModels) return;
    const idle = [...this.training.values()]
      .filter((t) => !t.running && t.pending.size === 0)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    for (const t of idle) {
      if (this.training.size < BOUNDS.trainingModels) break;
      this.dropModel(t);
      this.unloaded.add(t.run.training_run_id);
      trim(this.unloaded, BOUNDS.forgottenIds);
    }
  }

  private dropModel(t: TrainingState): void {
    this.training.delete(t.run.training_run_id);
    void this.run({ kind: "drop", handle: t.handle }).catch(() => undefined); // only fails when shutting down
  }

  private trainingState(modelId: string): TrainingState {
    const t = this.training.get(modelId);
    if (!t && this.unloaded.has(modelId)) {
      throw new HttpError(
        404,
        `model ${modelId} was unloaded: the local backend keeps the ${BOUNDS.trainingModels} most recently used training models in memory; load a checkpoint into a new training client`,
      );
    }
    if (!t)
      throw new HttpError(
        404,
        `unknown model ${modelId} (models live in memory; after a restart, load a checkpoint into a new training client)`,
      );
    t.lastUsed = Date.now();
    return t;
  }

  getInfo(modelId: string): Record<string, unknown> {
    const t = this.trainingState(modelId);
    return {
      type: "get_info",
      model_id: t.run.training_run_id,
      model_data: {
        arch: "agent-lab-tiny-copy-lm (local stand-in)",
        model_name: t.run.base_model,
        tokenizer_id: t.run.base_model,
      },
      is_lora: true,
      lora_rank: t.rank,
      model_name: t.run.base_model,
    };
  }

  /**
   * Queues a training op at its seq_id. A seq_id seen before returns the first request's future, so
   * a retried request is never applied twice; ops run strictly in seq_id order, each only after all
   * lower ones have arrived. Every check comes before anything is recorded.
   */
  private submit(
    modelId: string,
    seqId: number | undefined,
    kind: string,
    run: (t: TrainingState) => Promise<FutureResult>,
  ): { request_id: string; model_id: string } {
    const t = this.trainingState(modelId);
    const seq = seqId ?? Math.max(t.nextSeq - 1, ...t.pending.keys()) + 1;
    const previous = t.futureBySeq.get(seq);
    if (previous) return { request_id: previous, model_id: t.run.training_run_id };
    if (seq < t.nextSeq)
      throw new HttpError(
        400,
        `seq_id ${seq} was already executed for ${t.run.training_run_id} (the next is ${t.nextSeq})`,
      );
    if (seq - t.nextSeq >= BOUNDS.seqAhead) {
      throw new HttpError(
        400,
        `seq_id ${seq} is ${seq - t.nextSeq} ahead of the next operation of ${t.run.training_run_id} (seq_id ${t.nextSeq}); the local backend queues at most ${BOUNDS.seqAhead} ahead, so send the missing ones first`,
      );
    }
    const id = this.futures.create();
    t.futureBySeq.set(seq, id);
    trim(t.futureBySeq, BOUNDS.seqMemory);
    t.pending.set(seq, {
      kind,
      run: async () => {
        try {
          await this.options.seam?.beforeResult?.(kind);
          return await run(t);
        } catch (e) {
          return LocalBackend.failure(e);
        }
      },
    });
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
        await delay(this.options.opDelayMs());
        const result = await op.run();
        this.logOp(op.kind, start);
        this.futures.resolve(t.futureBySeq.get(seq)!, result);
        t.nextSeq = seq + 1;
      }
    } finally {
      t.running = false;
    }
  }

  forwardBackward(req: ForwardBackwardBody): { request_id: string; model_id: string } {
    return this.submit(req.model_id, req.seq_id, req.forward_only ? "forward" : "forward_backward", async (t) => {
      const r = await this.run({
        kind: "forward_backward",
        handle: t.handle,
        datums: req.datums,
        lossFn: req.loss_fn,
        lossConfig: req.loss_fn_config,
        backward: !req.forward_only,
      });
      const tokens = req.datums.reduce((sum, d) => sum + d.input.length, 0);
      this.usage.record("training", tokens, t.run.base_model, t.run.session_id);
      return { kind: "proto", bytes: bytesOf(r) };
    });
  }

  optimStep(body: OptimStepBody): { request_id: string; model_id: string } {
    return this.submit(body.model_id, body.seq_id, "optim_step", async (t) => ({
      kind: "json",
      body: jsonOf(await this.run({ kind: "optim_step", handle: t.handle, params: body.adam_params })),
    }));
  }

  /** Writes a model's checkpoint through the worker; checkpoint.json goes last, marking it complete. */
  private async saveCheckpoint(t: TrainingState, p: TinkerPath, ttl: number | undefined): Promise<void> {
    const dir = this.store.prepare(p);
    this.forgetShared(`path:${tinkerPath(p)}`);
    const size = jsonOf(
      await this.run({ kind: "save", handle: t.handle, dir, withOptimizer: p.kind === "weights" }),
    ) as number;
    this.store.commit(p, size, ttl);
    this.store.saveRun(t.run);
    this.usage.record("checkpoint", 1, t.run.base_model, t.run.session_id);
  }

  saveWeights(body: SaveWeightsBody): { request_id: string; model_id: string } {
    const name = body.name!;
    return this.submit(body.model_id, body.seq_id, "save_weights", async (t) => {
      const p: TinkerPath = { runId: t.run.training_run_id, kind: "weights", name };
      if (this.store.exists(p) && !body.overwrite)
        throw new UserInputError(`checkpoint ${tinkerPath(p)} exists (pass overwrite=true to replace it)`);
      await this.saveCheckpoint(t, p, body.ttl_seconds);
      return { kind: "json", body: { path: tinkerPath(p), type: "save_weights" } };
    });
  }

  saveWeightsForSampler(body: SaveWeightsBody): { request_id: string; model_id: string } {
    // The ephemeral sampler id is fixed when the op runs from the request's counter, so a retry maps to the same sampler.
    return this.submit(body.model_id, body.seq_id, "save_weights_for_sampler", async (t) => {
      if (body.name !== undefined) {
        const p: TinkerPath = { runId: t.run.training_run_id, kind: "sampler_weights", name: body.name };
        await this.saveCheckpoint(t, p, body.ttl_seconds);
        return { kind: "json", body: { path: tinkerPath(p), type: "save_weights_for_sampler" } };
      }
      const session = this.session(t.run.session_id);
      const n = body.sampling_session_seq_id ?? session.samplerIds.length;
      const samplerId = `${session.id}:sample:${n}`;
      const existing = this.samplers.get(samplerId);
      if (existing && existing.handle !== samplerId) this.samplers.delete(samplerId);
      await this.run({ kind: "clone", from: t.handle, handle: samplerId });
      this.addSampler(session, {
        id: samplerId,
        baseModel: t.run.base_model,
        handle: samplerId,
        futureBySeq: new Map(),
      });
      // An RL loop makes one of these per step; keep memory bounded by forgetting the oldest.
      if (!session.ephemeral.includes(samplerId)) session.ephemeral.push(samplerId);
      while (session.ephemeral.length > MAX_EPHEMERAL_SAMPLERS) {
        const old = session.ephemeral.shift()!;
        this.samplers.delete(old);
        session.samplerIds.splice(session.samplerIds.indexOf(old), 1);
        void this.run({ kind: "drop", handle: old }).catch(() => undefined); // only fails when shutting down
        this.evicted.add(old);
        trim(this.evicted, BOUNDS.forgottenIds);
      }
      return { kind: "json", body: { sampling_session_id: samplerId, type: "save_weights_for_sampler" } };
    });
  }

  loadWeights(body: LoadWeightsBody): { request_id: string; model_id: string } {
    const p = parseTinkerPath(body.path);
    if (!p)
      throw new HttpError(
        400,
        `load_weights.path must be tinker://<run>/<weights|sampler_weights>/<name>, got ${body.path}`,
      );
    let modelId = body.model_id;
    let seqId = body.seq_id;
    if (modelId === undefined) {
      // create-via-load addressing: make the model from the checkpoint's run, then load into it.
      if (!this.store.exists(p)) throw new HttpError(404, `no checkpoint at ${body.path}`);
      const run = this.store.getRun(p.runId);
      modelId = `${body.session_id!}:train:${body.model_seq_id!}`;
      if (!this.training.has(modelId)) {
        this.makeTrainingModel(
          modelId,
          {
            session_id: body.session_id!,
            model_seq_id: body.model_seq_id!,
            base_model: body.base_model ?? run?.base_model ?? SUPPORTED_MODELS[0],
            lora_config: run?.lora_config ?? DEFAULT_LORA,
            user_metadata: body.user_metadata,
          },
          false,
        );
      }
      seqId = 1;
    }
    return this.submit(modelId, seqId, "load_weights", async (t) => {
      if (!this.store.exists(p)) throw new UserInputError(`no checkpoint at ${body.path}`);
      const lora = t.run.lora_config;
      await this.run({
        kind: "load",
        handle: t.handle,
        dir: this.store.checkpointDir(p),
        withOptimizer: body.optimizer,
        forTraining: true,
        trainFlags: { trainUnembed: lora.train_unembed, trainMlp: lora.train_mlp, trainAttn: lora.train_attn },
      });
      t.rank = Math.min(this.store.getRun(p.runId)?.lora_config.rank ?? t.rank, MAX_RANK);
      return { kind: "json", body: { path: body.path, model_id: t.run.training_run_id, type: "load_weights" } };
    });
  }

  unloadModel(modelId: string): { request_id: string; model_id: string } {
    const t = this.trainingState(modelId);
    this.dropModel(t);
    return {
      request_id: this.immediateFuture({
        kind: "json",
        body: { model_id: t.run.training_run_id, type: "unload_model" },
      }),
      model_id: t.run.training_run_id,
    };
  }

  weightsInfo(path: string): Record<string, unknown> {
    const p = parseTinkerPath(path);
    if (!p) throw new HttpError(400, `tinker_path must be tinker://<run>/<weights|sampler_weights>/<name>`);
    if (!this.store.exists(p)) throw new HttpError(404, `no checkpoint at ${path}`);
    const run = this.store.getRun(p.runId);
    const lora = run?.lora_config ?? DEFAULT_LORA;
    return {
      base_model: run?.base_model ?? SUPPORTED_MODELS[0],
      is_lora: true,
      lora_rank: lora.rank,
      train_unembed: lora.train_unembed,
      train_mlp: lora.train_mlp,
      train_attn: lora.train_attn,
    };
  }

  // ---------- sampling ----------

  private addSampler(session: SessionState, s: SamplerState): void {
    if (!this.samplers.has(s.id) && !session.samplerIds.includes(s.id)) session.samplerIds.push(s.id);
    this.samplers.set(s.id, s);
  }

  /** A checkpoint or base model loaded in the worker, shared by every sampler of it; loaded on first use, least recently used unloaded. */
  private sharedHandle(handle: string, job: ComputeJob): Promise<void> {
    let ready = this.shared.get(handle);
    if (ready) {
      this.shared.delete(handle);
      this.shared.set(handle, ready);
      return ready;
    }
    ready = this.run(job).then(() => undefined);
    ready.catch(() => this.shared.delete(handle));
    this.shared.set(handle, ready);
    for (const old of this.shared.keys()) {
      if (this.shared.size <= BOUNDS.loadedCheckpoints) break;
      this.forgetShared(old);
    }
    return ready;
  }

  private forgetShared(handle: string): void {
    if (!this.shared.delete(handle)) return;
    void this.run({ kind: "drop", handle }).catch(() => undefined); // only fails when shutting down
  }

  private async samplerReady(s: SamplerState): Promise<void> {
    if (s.modelPath) {
      const p = parseTinkerPath(s.modelPath)!;
      if (!this.store.exists(p))
        throw new UserInputError(`no checkpoint at ${s.modelPath} (deleted since the sampler was made)`);
      await this.sharedHandle(s.handle, {
        kind: "load",
        handle: s.handle,
        dir: this.store.checkpointDir(p),
        withOptimizer: false,
        forTraining: false,
      });
    } else if (s.handle.startsWith("base:")) {
      await this.sharedHandle(s.handle, {
        kind: "create",
        handle: s.handle,
        config: { seed: this.options.seed },
        trainable: false,
      });
    }
  }

  createSamplingSession(body: CreateSamplingSessionBody): {
    sampling_session_id: string;
    type: "create_sampling_session";
  } {
    let sampler: Omit<SamplerState, "id">;
    if (body.model_path !== undefined) {
      const p = parseTinkerPath(body.model_path);
      if (!p)
        throw new HttpError(
          400,
          `create_sampling_session.model_path must be tinker://<run>/<weights|sampler_weights>/<name>`,
        );
      if (!this.store.exists(p)) throw new HttpError(404, `no checkpoint at ${body.model_path}`);
      const run = this.store.getRun(p.runId);
      sampler = {
        baseModel: run?.base_model ?? SUPPORTED_MODELS[0],
        modelPath: body.model_path,
        handle: `path:${body.model_path}`,
        futureBySeq: new Map(),
      };
    } else {
      sampler = { baseModel: body.base_model!, handle: `base:${this.options.seed}`, futureBySeq: new Map() };
    }
    const session = this.session(body.session_id);
    const n = body.sampling_session_seq_id ?? session.samplerIds.length;
    const id = `${session.id}:sample:${n}`;
    if (this.samplers.has(id)) return { sampling_session_id: id, type: "create_sampling_session" };
    const s = { id, ...sampler };
    this.addSampler(session, s);
    // Start loading now so the first sample does not wait for it; failures surface on that sample.
    this.samplerReady(s).catch(() => undefined);
    return { sampling_session_id: id, type: "create_sampling_session" };
  }

  samplerInfo(id: string): Record<string, unknown> {
    const s = this.samplers.get(id);
    if (!s) throw new HttpError(404, `unknown sampler ${id}`);
    return s.modelPath
      ? { sampler_id: id, base_model: s.baseModel, model_path: s.modelPath }
      : { sampler_id: id, base_model: s.baseModel };
  }

  /** Queues a sample request; the same (sampler, seq_id) returns the first future. */
  asample(body: SampleBody): { request_id: string } {
    const s = this.samplers.get(body.sampling_session_id);
    if (!s && this.evicted.has(body.sampling_session_id)) {
      throw new HttpError(
        404,
        `sampler ${body.sampling_session_id} was dropped: the local backend keeps the newest ${MAX_EPHEMERAL_SAMPLERS} unnamed samplers per session (save named sampler weights to keep one)`,
      );
    }
    if (!s) throw new HttpError(404, `unknown sampling session ${body.sampling_session_id}`);
    if (body.seq_id !== undefined) {
      const previous = s.futureBySeq.get(body.seq_id);
      if (previous && this.futures.has(previous)) return { request_id: previous };
    }
    if (this.compute.inFlight >= BOUNDS.queuedJobs)
      throw new HttpError(429, `the local backend has ${this.compute.inFlight} operations queued; retry shortly`);
    const id = this.futures.create();
    if (body.seq_id !== undefined) {
      s.futureBySeq.set(body.seq_id, id);
      trim(s.futureBySeq, BOUNDS.seqMemory);
    }
    const seed =
      body.seed !== undefined ? Number(BigInt.asUintN(63, BigInt(body.seed))) : Math.floor(Math.random() * 2 ** 31);
    const start = performance.now();
    void (async () => {
      let result: FutureResult;
      try {
        await delay(this.options.opDelayMs());
        const seam = this.options.seam;
        await seam?.beforeResult?.("sample");
        const scripted = seam?.sample?.(body);
        const r = scripted ? { bytes: encodeSampleResponse(scripted) } : await this.sampleWithModel(s, body, seed);
        result = { kind: "proto", bytes: bytesOf(r) };
        this.meterSample(s, body, result.bytes);
      } catch (e) {
        result = LocalBackend.failure(e);
      }
      this.logOp("sample", start);
      this.futures.resolve(id, result);
    })();
    return { request_id: id };
  }

  /** Bills a finished sample as Tinker does: the prompt once (whatever num_samples), every sampled token. */
  private meterSample(s: SamplerState, body: SampleBody, bytes: Uint8Array): void {
    const session = s.id.slice(0, s.id.indexOf(":sample:"));
    const sampled = decodeSampleResponse(bytes).sequences.reduce((sum, q) => sum + q.tokens.length, 0);
    this.usage.record("sampling_prefill", body.prompt.length, s.baseModel, session || undefined);
    this.usage.record("sampling_sample", sampled, s.baseModel, session || undefined);
  }

  private async sampleWithModel(s: SamplerState, body: SampleBody, seed: number): Promise<ComputeResult> {
    await this.samplerReady(s);
    return this.run({
      kind: "sample",
      handle: s.handle,
      lane: s.id,
      prompt: body.prompt,
      numSamples: body.num_samples,
      options: {
        maxTokens: body.max_tokens,
        temperature: body.temperature,
        topK: body.top_k,
        topP: body.top_p,
        seed,
        stopTokens: body.stop_tokens,
        stopStrings: [],
      },
      promptLogprobs: body.prompt_logprobs,
      topk: body.topk_prompt_logprobs,
    });
  }

  // ---------- REST listing ----------

  listTrainingRuns(
    limit: number,
    offset: number,
  ): { training_runs: unknown[]; cursor: { offset: number; limit: number; total_count: number } } {
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

  listAllCheckpoints(
    limit: number,
    offset: number,
  ): { checkpoints: unknown[]; cursor: { offset: number; limit: number; total_count: number } } {
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
    const p = this.checkpointPath(runId, checkpointId);
    this.forgetShared(`path:${tinkerPath(p)}`);
    if (!this.store.delete(p)) throw new HttpError(404, `no checkpoint ${checkpointId} in ${runId}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.futures.wakeAll();
    await this.compute.close();
  }
}
