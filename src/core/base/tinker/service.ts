/**
 * Entry point to Tinker: holds the key, the client config, one session with its heartbeat, and
 * makes training and sampling clients. Nothing is sent until the first call; then the order is
 * client/config → (auth/token in JWT mode) → client/dynamic_config → create_session (spec §1.4).
 */
import { UserError } from "../errors";
import { submitAndPoll, type SamplingClientSource, type TinkerContext } from "./context";
import { TinkerApiError } from "./errors";
import { toJson } from "./futures";
import { DEFAULT_RETRY, TinkerHttp, sleep, type RetryPolicy } from "./http";
import { jwtPayload, resolveApiKey } from "./key";
import { parseTinkerPath } from "./paths";
import { SamplingClient } from "./sampling";
import { TrainingClient } from "./training";
import {
  CLIENT_CONFIG_DEFAULTS,
  PROTOCOL_SDK_VERSION,
  type AuthTokenResponse,
  type BillingUsageResponse,
  type CheckpointArchiveUrlResponse,
  type CheckpointsListResponse,
  type ClientConfigResponse,
  type ClientDynamicConfigResponse,
  type CreateModelResponse,
  type CreateSamplingSessionResponse,
  type CreateSessionResponse,
  type LoadWeightsResponse,
  type SamplerInfoResponse,
  type ServerCapabilitiesResponse,
  type TrainingRun,
  type TrainingRunsResponse,
  type WeightsInfoResponse,
} from "./wire";

export const DEFAULT_TINKER_BASE_URL = "https://tinker.thinkingmachines.dev/services/tinker-prod";

export interface TinkerServiceOptions {
  /** Else TINKER_API_KEY. */
  apiKey?: string;
  /** Else TINKER_BASE_URL (empty = default), else the real service. */
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
  retry?: Partial<RetryPolicy>;
  heartbeatMs?: number;
  /** Session tags; else TINKER_TAGS (comma-separated). */
  tags?: string[];
  /** Else TINKER_PROJECT_ID. */
  projectId?: string;
  userMetadata?: Record<string, unknown>;
  userAgent?: string;
  fetch?: typeof fetch;
  /** Non-secret notices: session messages, heartbeat trouble. */
  log?: (message: string) => void;
}

export interface CreateLoraOptions {
  baseModel: string;
  rank?: number;
  seed?: number;
  trainMlp?: boolean;
  trainAttn?: boolean;
  trainUnembed?: boolean;
  userMetadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

const HEARTBEAT_WARN_MS = 120_000;
const JWT_REFRESH_AHEAD_S = 300;
const JWT_MIN_LEFT_S = 60;

export class TinkerService implements SamplingClientSource {
  readonly baseUrl: string;
  readonly http: TinkerHttp;
  private readonly apiKey: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly retry: RetryPolicy;
  private readonly billingPauseFromUser: boolean;
  private config: Required<ClientConfigResponse> = { ...CLIENT_CONFIG_DEFAULTS };
  private jwt: string | undefined;
  private jwtRefreshing: Promise<void> | undefined;
  private bootstrapped: Promise<void> | undefined;
  private sessionStarted: Promise<string> | undefined;
  private modelSeqId = 0;
  private samplingSessionSeqId = 0;
  private readonly timers: NodeJS.Timeout[] = [];
  private jwtTimer: NodeJS.Timeout | undefined;
  private refreshIntervalSec = 300;
  private readonly sampleBackoff = { until: 0 };
  private lastHeartbeatOk = Date.now();
  private heartbeatWarned = false;
  private closed = false;
  private readonly log: (message: string) => void;

  /** Throws TinkerKeyError before anything is sent when the key is missing or malformed. */
  constructor(private readonly options: TinkerServiceOptions = {}) {
    this.env = options.env ?? process.env;
    this.apiKey = resolveApiKey(options.apiKey, this.env);
    this.baseUrl = options.baseUrl || this.env.TINKER_BASE_URL || DEFAULT_TINKER_BASE_URL;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.billingPauseFromUser = options.retry?.billingMaxPauseMs !== undefined;
    this.log = options.log ?? (() => undefined);
    this.http = new TinkerHttp({
      baseUrl: this.baseUrl,
      credential: () => this.credential(),
      secrets: () => [this.apiKey, this.jwt],
      userAgent:
        options.userAgent ?? `AgentLab/0.1.0 (Tinker protocol ${PROTOCOL_SDK_VERSION}; Node ${process.version})`,
      retry: this.retry,
      env: this.env,
      fetch: options.fetch,
    });
  }

  /** The server's client config (defaults filled in) once bootstrapped. */
  get clientConfig(): Readonly<Required<ClientConfigResponse>> {
    return this.config;
  }

  get jwtMode(): boolean {
    return this.jwt !== undefined;
  }

  // ---------- bootstrap, JWT, session ----------

  private async credential(): Promise<string> {
    if (this.jwt === undefined) return this.apiKey;
    const exp = jwtPayload(this.jwt).exp;
    if (exp !== undefined && exp - Date.now() / 1000 <= JWT_MIN_LEFT_S) await this.refreshJwt();
    return this.jwt;
  }

  private refreshJwt(): Promise<void> {
    this.jwtRefreshing ??= (async () => {
      try {
        // auth: false + explicit header, so fetching a JWT never asks for a JWT.
        const res = await this.http.request({
          method: "POST",
          path: "/api/v1/auth/token",
          json: {},
          auth: false,
          headers: { "X-API-Key": this.apiKey },
        });
        const jwt = res.json<AuthTokenResponse>().jwt;
        if (typeof jwt !== "string" || !jwt.startsWith("eyJ")) throw new Error("auth/token returned no JWT");
        this.jwt = jwt;
        this.scheduleJwtRefresh(jwt);
      } finally {
        this.jwtRefreshing = undefined;
      }
    })();
    return this.jwtRefreshing;
  }

  private scheduleJwtRefresh(jwt: string): void {
    if (this.jwtTimer) clearTimeout(this.jwtTimer);
    const exp = jwtPayload(jwt).exp;
    if (exp === undefined || this.closed) return;
    const inMs = Math.max(1000, (exp - JWT_REFRESH_AHEAD_S) * 1000 - Date.now());
    const retryLater = (): void => {
      if (this.closed) return;
      this.jwtTimer = setTimeout(() => void this.refreshJwt().catch(retryLater), 60_000);
      this.jwtTimer.unref();
    };
    this.jwtTimer = setTimeout(() => void this.refreshJwt().catch(retryLater), inMs);
    this.jwtTimer.unref();
  }

  private bootstrap(): Promise<void> {
    this.bootstrapped ??= (async () => {
      const res = await this.http.request({
        method: "POST",
        path: "/api/v1/client/config",
        json: { sdk_version: PROTOCOL_SDK_VERSION },
        // The first contact: a server that refuses connections now is most likely a wrong
        // TINKER_BASE_URL, said in seconds rather than after a minute of back-off.
        connectRetries: 2,
      });
      this.config = { ...CLIENT_CONFIG_DEFAULTS, ...res.json<ClientConfigResponse>() };
      if (!this.billingPauseFromUser)
        this.retry.billingMaxPauseMs = this.config.billing_exception_max_pause_duration_sec * 1000;
      if (this.config.pjwt_auth_enabled) await this.refreshJwt();
      this.refreshIntervalSec = await this.fetchDynamicConfig();
    })();
    this.bootstrapped.catch(() => (this.bootstrapped = undefined)); // a later call tries again
    return this.bootstrapped;
  }

  /** Optional: a 404 or any failure means defaults (spec §1.4). Returns the refresh interval in s. */
  private async fetchDynamicConfig(): Promise<number> {
    try {
      const res = await this.http.request({
        method: "POST",
        path: "/api/v1/client/dynamic_config",
        json: { sdk_version: PROTOCOL_SDK_VERSION },
        retry: false,
        timeoutMs: 10_000,
        passStatus: () => true, // never pause here (402) or fail: defaults are fine
      });
      if (res.status !== 200) return 300;
      return res.json<ClientDynamicConfigResponse>().refresh_interval_sec ?? 300;
    } catch {
      return 300;
    }
  }

  private session(): Promise<string> {
    if (this.closed) return Promise.reject(new Error("the Tinker service client is closed"));
    this.sessionStarted ??= (async () => {
      await this.bootstrap();
      const tags =
        this.options.tags ??
        (this.env.TINKER_TAGS ?? "")
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean);
      const res = await this.http.request({
        method: "POST",
        path: "/api/v1/create_session",
        json: {
          tags: [...new Set(tags)],
          user_metadata: this.options.userMetadata ?? {},
          sdk_version: PROTOCOL_SDK_VERSION,
          project_id: this.options.projectId ?? (this.env.TINKER_PROJECT_ID || undefined),
          type: "create_session",
        },
      });
      const body = res.json<CreateSessionResponse>();
      for (const m of [body.info_message, body.warning_message, body.error_message]) if (m) this.log(`Tinker: ${m}`);
      this.startSessionTimers(body.session_id);
      return body.session_id;
    })();
    this.sessionStarted.catch(() => (this.sessionStarted = undefined));
    return this.sessionStarted;
  }

  private startSessionTimers(sessionId: string): void {
    this.lastHeartbeatOk = Date.now();
    const heartbeat = setInterval(() => void this.heartbeat(sessionId), this.options.heartbeatMs ?? 10_000);
    heartbeat.unref(); // never keeps the process alive
    this.timers.push(heartbeat);
    const refresh = setInterval(
      () => void this.fetchDynamicConfig().then((sec) => (this.refreshIntervalSec = sec)),
      Math.max(this.refreshIntervalSec, 10) * 1000,
    );
    refresh.unref();
    this.timers.push(refresh);
  }

  private async heartbeat(sessionId: string): Promise<void> {
    try {
      const res = await this.http.request({
        method: "POST",
        path: "/api/v1/session_heartbeat",
        json: { session_id: sessionId, type: "session_heartbeat" },
        retry: false,
        timeoutMs: 10_000,
        passStatus: () => true, // a beat never waits (no 402 pause); the next one comes in 10 s
      });
      if (res.status >= 300) throw new Error(`heartbeat HTTP ${res.status}`);
      this.lastHeartbeatOk = Date.now();
      this.heartbeatWarned = false;
    } catch {
      // Failures are ignored, but a long silence means the server may end the session.
      if (!this.heartbeatWarned && Date.now() - this.lastHeartbeatOk > HEARTBEAT_WARN_MS) {
        this.heartbeatWarned = true;
        this.log("Tinker: no successful session heartbeat for 2 minutes; the session may be terminated");
      }
    }
  }

  private context(sessionId: string): TinkerContext {
    return {
      http: this.http,
      config: this.config,
      sessionId,
      nextSamplingSessionSeqId: () => this.samplingSessionSeqId++,
      service: this,
      sampleBackoff: this.sampleBackoff,
    };
  }

  /** Stops the heartbeat and timers; in-flight calls finish on their own. */
  close(): void {
    this.closed = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
    if (this.jwtTimer) clearTimeout(this.jwtTimer);
  }

  // ---------- training and sampling clients ----------

  async createLoraTrainingClient(options: CreateLoraOptions): Promise<TrainingClient> {
    const lora = {
      rank: options.rank ?? 32,
      seed: options.seed,
      train_unembed: options.trainUnembed ?? true,
      train_mlp: options.trainMlp ?? true,
      train_attn: options.trainAttn ?? true,
    };
    if (!lora.train_unembed && !lora.train_mlp && !lora.train_attn) {
      throw new UserError("a LoRA needs at least one of trainMlp, trainAttn, trainUnembed");
    }
    const sessionId = await this.session();
    const result = await submitAndPoll(this.http, {
      path: "/api/v1/create_model",
      json: {
        session_id: sessionId,
        model_seq_id: this.modelSeqId++,
        base_model: options.baseModel,
        lora_config: lora,
        user_metadata: options.userMetadata,
        type: "create_model",
      },
      requestType: "CreateModel",
      expectProto: false,
      signal: options.signal,
    });
    const modelId = toJson<CreateModelResponse>(result, "create_model").model_id;
    return new TrainingClient(this.context(sessionId), modelId, options.baseModel);
  }

  /** A training client that continues from a tinker://…/weights/<name> state; `withOptimizer` also restores Adam. */
  async createTrainingClientFromState(
    path: string,
    options: { withOptimizer?: boolean; signal?: AbortSignal } = {},
  ): Promise<TrainingClient> {
    const parsed = parseTinkerPath(path);
    if (parsed.kind !== "weights")
      throw new UserError(`"${path}" is a sampler checkpoint; resuming training needs a state (…/weights/<name>)`);
    const info = await this.weightsInfo(path, options);
    const optimizer = options.withOptimizer ?? false;
    // weightsInfo bootstrapped, so the server's config is known here.
    if (this.config.create_model_via_load_weights) {
      const sessionId = await this.session();
      const modelSeqId = this.modelSeqId++;
      const result = await submitAndPoll(this.http, {
        path: "/api/v1/load_weights",
        json: { session_id: sessionId, model_seq_id: modelSeqId, path, optimizer, type: "load_weights" },
        requestType: "LoadWeights",
        expectProto: false,
        signal: options.signal,
      });
      const modelId =
        toJson<LoadWeightsResponse>(result, "load_weights").model_id ?? `${sessionId}:train:${modelSeqId}`;
      return new TrainingClient(this.context(sessionId), modelId, info.base_model);
    }
    const client = await this.createLoraTrainingClient({
      baseModel: info.base_model,
      rank: info.lora_rank ?? 32,
      trainMlp: info.train_mlp ?? true,
      trainAttn: info.train_attn ?? true,
      trainUnembed: info.train_unembed ?? true,
      signal: options.signal,
    });
    await client.loadState(path, { optimizer, signal: options.signal }).result();
    return client;
  }

  /** A sampler for a base model, or for a tinker://…/sampler_weights/<name> checkpoint. */
  async createSamplingClient(options: {
    baseModel?: string;
    modelPath?: string;
    signal?: AbortSignal;
  }): Promise<SamplingClient> {
    if (!options.baseModel && !options.modelPath)
      throw new UserError("a sampling client needs a base model or a tinker:// model path");
    if (options.modelPath !== undefined && !options.modelPath.startsWith("tinker://")) {
      throw new UserError(`model path "${options.modelPath}" must start with tinker://`);
    }
    const sessionId = await this.session();
    const res = await this.http.request({
      method: "POST",
      path: "/api/v1/create_sampling_session",
      json: {
        session_id: sessionId,
        sampling_session_seq_id: this.samplingSessionSeqId++,
        base_model: options.baseModel,
        model_path: options.modelPath,
        type: "create_sampling_session",
      },
      signal: options.signal,
    });
    const id = res.json<CreateSamplingSessionResponse>().sampling_session_id;
    return new SamplingClient(this.context(sessionId), id, {
      baseModel: options.baseModel,
      modelPath: options.modelPath,
    });
  }

  // ---------- REST calls a UI needs ----------

  private async get<T>(
    path: string,
    query?: Record<string, string | number | undefined>,
    signal?: AbortSignal,
  ): Promise<T> {
    await this.bootstrap();
    return (await this.http.request({ method: "GET", path, query, signal })).json<T>();
  }

  async getServerCapabilities(options: { signal?: AbortSignal } = {}): Promise<ServerCapabilitiesResponse> {
    return this.get("/api/v1/get_server_capabilities", undefined, options.signal);
  }

  /** Names of the base models the server can train and sample. */
  async supportedModels(options: { signal?: AbortSignal } = {}): Promise<string[]> {
    const caps = await this.getServerCapabilities(options);
    return (caps.supported_models ?? []).flatMap((m) => (m.model_name ? [m.model_name] : []));
  }

  listTrainingRuns(
    options: {
      limit?: number;
      offset?: number;
      accessScope?: "owned" | "accessible";
      projectId?: string;
      signal?: AbortSignal;
    } = {},
  ): Promise<TrainingRunsResponse> {
    return this.get(
      "/api/v1/training_runs",
      {
        limit: options.limit ?? 20,
        offset: options.offset ?? 0,
        access_scope: options.accessScope ?? "owned",
        project_id: options.projectId,
      },
      options.signal,
    );
  }

  getTrainingRun(
    runId: string,
    options: { accessScope?: "owned" | "accessible"; signal?: AbortSignal } = {},
  ): Promise<TrainingRun> {
    return this.get(`/api/v1/training_runs/${runId}`, { access_scope: options.accessScope ?? "owned" }, options.signal);
  }

  listCheckpoints(runId: string, options: { signal?: AbortSignal } = {}): Promise<CheckpointsListResponse> {
    return this.get(`/api/v1/training_runs/${runId}/checkpoints`, undefined, options.signal);
  }

  /** Every checkpoint of the user, across runs. */
  listUserCheckpoints(
    options: { limit?: number; offset?: number; signal?: AbortSignal } = {},
  ): Promise<CheckpointsListResponse> {
    return this.get(
      "/api/v1/checkpoints",
      { limit: options.limit ?? 100, offset: options.offset ?? 0 },
      options.signal,
    );
  }

  getSampler(samplerId: string, options: { signal?: AbortSignal } = {}): Promise<SamplerInfoResponse> {
    return this.get(`/api/v1/samplers/${samplerId}`, undefined, options.signal);
  }

  async weightsInfo(tinkerPath: string, options: { signal?: AbortSignal } = {}): Promise<WeightsInfoResponse> {
    parseTinkerPath(tinkerPath);
    await this.bootstrap();
    const res = await this.http.request({
      method: "POST",
      path: "/api/v1/weights_info",
      json: { tinker_path: tinkerPath },
      signal: options.signal,
    });
    return res.json<WeightsInfoResponse>();
  }

  async deleteCheckpoint(tinkerPath: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const p = parseTinkerPath(tinkerPath);
    await this.bootstrap();
    await this.http.request({
      method: "DELETE",
      path: `/api/v1/training_runs/${p.trainingRunId}/checkpoints/${p.checkpointId}`,
      signal: options.signal,
    });
  }

  /** Makes a checkpoint public (publish: true) or private again; only the run's owner may. */
  async setCheckpointPublished(
    tinkerPath: string,
    publish: boolean,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const p = parseTinkerPath(tinkerPath);
    await this.bootstrap();
    await this.http.request({
      method: publish ? "POST" : "DELETE",
      path: `/api/v1/training_runs/${p.trainingRunId}/checkpoints/${p.checkpointId}/publish`,
      signal: options.signal,
    });
  }

  /** Sets a checkpoint to expire `ttlSeconds` from now, or removes its expiry (null). */
  async setCheckpointTtl(
    tinkerPath: string,
    ttlSeconds: number | null,
    options: { signal?: AbortSignal } = {},
  ): Promise<void> {
    const p = parseTinkerPath(tinkerPath);
    await this.bootstrap();
    await this.http.request({
      method: "PUT",
      path: `/api/v1/training_runs/${p.trainingRunId}/checkpoints/${p.checkpointId}/ttl`,
      json: { ttl_seconds: ttlSeconds },
      signal: options.signal,
    });
  }

  /** Hourly billing usage in [startingOn, endingBefore): UTC hour boundaries at most 14 days apart (spec §6). */
  billingUsage(
    startingOn: Date,
    endingBefore: Date,
    options: { signal?: AbortSignal } = {},
  ): Promise<BillingUsageResponse> {
    return this.get(
      "/api/v1/billing/usage/events",
      { starting_on: startingOn.toISOString(), ending_before: endingBefore.toISOString() },
      options.signal,
    );
  }

  /** A download URL for a checkpoint archive; waits while the server is still building it (503). */
  async checkpointArchiveUrl(
    tinkerPath: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<CheckpointArchiveUrlResponse> {
    const p = parseTinkerPath(tinkerPath);
    await this.bootstrap();
    for (let attempt = 1; ; attempt++) {
      const res = await this.http.request({
        method: "GET",
        path: `/api/v1/training_runs/${p.trainingRunId}/checkpoints/${p.checkpointId}/archive`,
        redirect: "manual",
        passStatus: (s) => s === 503,
        signal: options.signal,
      });
      if (res.status === 503) {
        if (attempt >= 6)
          throw new TinkerApiError(503, "checkpoint archive", "the archive is still being built; try again later");
        await sleep(this.retry.archiveRetryMs, options.signal);
        continue;
      }
      if (res.status >= 300 && res.status < 400) {
        const url = res.headers.get("location");
        if (!url) throw new TinkerApiError(res.status, "checkpoint archive", "redirect without a Location");
        const expires = res.headers.get("expires");
        const when =
          expires && !Number.isNaN(Date.parse(expires)) ? new Date(expires) : new Date(Date.now() + 15 * 60_000);
        return { url, expires: when.toISOString() };
      }
      return res.json<CheckpointArchiveUrlResponse>();
    }
  }

  /** Who the JWT says we are (no request); only in JWT mode. */
  whoami(): { userUrn: string | undefined; email: string | undefined } {
    if (!this.jwt) throw new UserError("whoami needs the server's JWT mode");
    const p = jwtPayload(this.jwt);
    return { userUrn: p.sub, email: p.email };
  }
}
