/**
 * The local Tinker-compatible HTTP server (node:http, HTTP/1.1 on 127.0.0.1). It speaks the
 * endpoints and encodings of spec §2 — JSON everywhere except protobuf forward_backward requests and
 * protobuf sample / forward_backward results — so the real Python SDK and our TypeScript client
 * both work against it. It is a stand-in and says so (create_session's info_message, capabilities,
 * the start-up line).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LocalBackend, STAND_IN_NOTICE, SUPPORTED_MODELS } from "./backend";
import { FaultInjector, type FaultOptions } from "./faults";
import type { FutureResult } from "./futures";
import { HttpError } from "./http-error";
import { observedRequest, type ScriptedReply, type TestSeam } from "./test-seam";
import * as validate from "./validate";
import { decodeForwardBackwardRequest } from "../core/base/tinker/wire/codec";
import { checkpointArchive } from "./checkpoint-archive";
import { billingWindow } from "./usage-meter";

/** Where a checkpoint archive URL points: /api/v1/checkpoint_archives/<run>/<kind>/<name>.tar. */
const ARCHIVE_ROUTE = "checkpoint_archives";

export interface LocalBackendOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Where checkpoints and run records live (survives restarts). */
  dir: string;
  seed?: number;
  faults?: FaultOptions;
  /** How long retrieve_future holds a pending request before answering try_again (default 20 s, below the SDK's 45 s timeout). */
  longPollMs?: number;
  log?: (line: string) => void;
  /** Hooks for the client tests (see test-seam.ts); never set by the CLI or the extension. */
  testSeam?: TestSeam;
}

export interface RunningLocalBackend {
  url: string;
  port: number;
  backend: LocalBackend;
  /** The live fault settings: change them to turn faults on or off while the server runs. */
  faults: FaultOptions;
  /** Stops at once (unfinished futures are dropped). */
  close(): Promise<void>;
  /** Stops once no request has been in flight for a moment: other jobs using this server finish first. */
  closeWhenIdle(idleMs?: number): Promise<void>;
}

interface Reply {
  status: number;
  body?: unknown;
  proto?: Uint8Array;
  /** Raw bytes of another type (a checkpoint archive). */
  file?: { bytes: Uint8Array; contentType: string };
  headers?: Record<string, string>;
}

const PROTO = "application/x-protobuf";
/** Far above any real request (a forward_backward of LIMITS.batchTokens tokens is a few MB). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Idempotency keys remembered (oldest forgotten first), and their longest accepted length. */
const MAX_IDEMPOTENCY_KEYS = 10_000;
const MAX_IDEMPOTENCY_KEY_CHARS = 256;

const tooLarge = (size: number) =>
  new HttpError(
    413,
    `request body of ${size} bytes is larger than the local backend's limit of ${MAX_BODY_BYTES} bytes`,
  );

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      reject(tooLarge(declared));
      return;
    }
    const parts: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on("data", (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        failed = true;
        parts.length = 0;
        reject(tooLarge(size));
      } else parts.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

function jsonBody(raw: Buffer, endpoint: string): Record<string, unknown> {
  if (raw.length === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw.toString("utf8"));
  } catch (e) {
    throw new HttpError(400, `${endpoint}: body is not JSON (${(e as Error).message})`);
  }
  return validate.object(v, `${endpoint} body`);
}

/** Path segments, URI-decoded; a malformed escape is the caller's mistake. */
function pathSegments(endpoint: string): string[] {
  return endpoint.split("/").map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      // decodeURIComponent throws URIError only, and only for a malformed escape.
      throw new HttpError(400, `malformed URI escape in /api/v1/${endpoint.slice(0, 200)}`);
    }
  });
}

/** 4xx answers carry category "user" (as future errors do), so clients can tell them from server faults. */
function errorReply(e: unknown): Reply {
  if (e instanceof HttpError)
    return { status: e.status, body: { detail: e.message, category: e.status < 500 ? "user" : "server" } };
  return { status: 500, body: { detail: `local backend error: ${(e as Error).message}`, category: "server" } };
}

function futureReply(result: FutureResult): Reply {
  if (result.kind === "proto") return { status: 200, proto: result.bytes };
  if (result.kind === "error") return { status: 200, body: { error: result.message, category: result.category } };
  return { status: 200, body: result.body };
}

/** A scripted status answer, written as given (test seam only). */
function writeScripted(res: ServerResponse, reply: Extract<ScriptedReply, { status: number }>): void {
  const headers: Record<string, string> = { ...reply.headers };
  let text = reply.body ?? "";
  if (reply.json !== undefined) {
    headers["content-type"] ??= "application/json";
    text = JSON.stringify(reply.json);
  }
  res.writeHead(reply.status, { ...headers, "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

function intParam(url: URL, name: string, dflt: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 1_000_000)
    throw new HttpError(400, `query parameter ${name} must be an integer from 0 to 1000000, got ${raw.slice(0, 40)}`);
  return n;
}

export function clientConfig(): Record<string, unknown> {
  return {
    pjwt_auth_enabled: false,
    credential_default_source: "api_key",
    // pyqwest is not installable everywhere; plain httpx works against a local server (spec §7.2).
    use_pyqwest_transport: false,
    proto_compress_fwdbwd: false,
    parallel_fwdbwd_chunks: true,
    create_model_via_load_weights: false,
    local_stand_in: true,
  };
}

class Router {
  private readonly idempotent = new Map<string, Reply>();
  /** Requests being answered (long-polls included) and when the last one arrived. */
  inFlight = 0;
  lastRequestAt = 0;

  constructor(
    private readonly backend: LocalBackend,
    private readonly faults: FaultInjector,
    private readonly longPollMs: number,
    private readonly seam: TestSeam | undefined,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight++;
    this.lastRequestAt = Date.now();
    try {
      await this.answer(req, res);
    } finally {
      this.inFlight--;
    }
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    let endpoint = "";
    let reply: Reply;
    let drop = false;
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      const prefix = "/api/v1/";
      endpoint = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : "";
      const raw = await readBody(req);
      let scripted: ScriptedReply | undefined;
      if (this.seam) {
        const observed = observedRequest(method, url, req.headers, raw);
        this.seam.observe?.(observed);
        scripted = this.seam.script?.(observed);
        if (scripted && "drop" in scripted) {
          req.socket.destroy();
          return;
        }
        if (scripted && "status" in scripted) {
          writeScripted(res, scripted);
          return;
        }
      }
      const latency = this.faults.latencyMs();
      if (latency > 0) await new Promise((r) => setTimeout(r, latency));
      const rejected = this.faults.rejectWith(endpoint, method);
      if (rejected === 429) reply = { status: 429, body: { detail: "local backend: injected sampling back-pressure" } };
      else if (rejected === 503) reply = { status: 503, body: { detail: "local backend: injected server error" } };
      else {
        const key = method !== "GET" && endpoint !== "retrieve_future" ? req.headers["x-idempotency-key"] : undefined;
        if (typeof key === "string" && key.length > MAX_IDEMPOTENCY_KEY_CHARS) {
          throw new HttpError(
            400,
            `X-Idempotency-Key is ${key.length} characters long; the local backend accepts at most ${MAX_IDEMPOTENCY_KEY_CHARS}`,
          );
        }
        const cacheKey = typeof key === "string" ? `${method} ${endpoint} ${key}` : undefined;
        const cached = cacheKey ? this.idempotent.get(cacheKey) : undefined;
        if (cached) reply = cached;
        else {
          reply = await this.route(method, endpoint, url, req, raw);
          if (cacheKey && reply.status < 500) this.remember(cacheKey, reply);
        }
        drop = this.faults.dropResponse(endpoint) || (scripted !== undefined && "dropAfterHandling" in scripted);
      }
    } catch (e) {
      reply = errorReply(e);
    }
    if (drop) {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return;
    // A body left unread (refused as too large) would otherwise stall the connection.
    if (!req.complete) res.setHeader("Connection", "close");
    if (reply.file) {
      res.writeHead(reply.status, {
        "Content-Type": reply.file.contentType,
        "Content-Length": reply.file.bytes.byteLength,
        ...reply.headers,
      });
      res.end(reply.file.bytes);
    } else if (reply.proto) {
      res.writeHead(reply.status, {
        "Content-Type": PROTO,
        "Content-Length": reply.proto.byteLength,
        ...reply.headers,
      });
      res.end(reply.proto);
    } else {
      const text = reply.body === undefined ? "" : JSON.stringify(reply.body);
      res.writeHead(reply.status, {
        "Content-Type": "application/json",
        "Content-Length": Buffer.byteLength(text),
        ...reply.headers,
      });
      res.end(text);
    }
  }

  private remember(key: string, reply: Reply): void {
    this.idempotent.set(key, reply);
    if (this.idempotent.size > MAX_IDEMPOTENCY_KEYS)
      this.idempotent.delete(this.idempotent.keys().next().value as string);
  }

  private async route(method: string, endpoint: string, url: URL, req: IncomingMessage, raw: Buffer): Promise<Reply> {
    const b = this.backend;
    const ok = (body: unknown): Reply => ({ status: 200, body });
    if (method === "POST") {
      switch (endpoint) {
        case "client/config":
          return ok({ ...clientConfig(), ...this.seam?.clientConfig?.() });
        case "client/dynamic_config":
          return ok({ refresh_interval_sec: 300 });
        case "telemetry":
          return ok({ status: "accepted" });
        case "create_session":
          return ok(b.createSession());
        case "session_heartbeat":
          b.heartbeat(validate.sessionId(jsonBody(raw, endpoint), endpoint));
          return ok({ type: "session_heartbeat" });
        case "create_model":
          return ok(b.createModel(validate.createModelBody(jsonBody(raw, endpoint))));
        case "get_info":
          return ok(b.getInfo(validate.modelId(jsonBody(raw, endpoint), endpoint)));
        case "unload_model":
          return ok(b.unloadModel(validate.modelId(jsonBody(raw, endpoint), endpoint)));
        case "forward_backward":
          return ok(b.forwardBackward(validate.forwardBackwardBody(this.forwardBackwardBody(req, raw))));
        case "optim_step":
          return ok(b.optimStep(validate.optimStepBody(jsonBody(raw, endpoint))));
        case "save_weights":
          return ok(b.saveWeights(validate.saveWeightsBody(jsonBody(raw, endpoint), "save_weights")));
        case "save_weights_for_sampler":
          return ok(
            b.saveWeightsForSampler(validate.saveWeightsBody(jsonBody(raw, endpoint), "save_weights_for_sampler")),
          );
        case "load_weights":
          return ok(b.loadWeights(validate.loadWeightsBody(jsonBody(raw, endpoint))));
        case "weights_info":
          return ok(b.weightsInfo(validate.tinkerPathField(jsonBody(raw, endpoint), "tinker_path", endpoint)));
        case "create_sampling_session":
          return ok(b.createSamplingSession(validate.createSamplingSessionBody(jsonBody(raw, endpoint))));
        case "asample":
          return ok(b.asample(validate.sampleBody(jsonBody(raw, endpoint))));
        case "retrieve_future":
          return this.retrieveFuture(validate.requestId(jsonBody(raw, endpoint)));
        case "auth/token": {
          const jwt = this.seam?.authToken?.();
          if (jwt !== undefined) return ok({ jwt });
          break;
        }
      }
    }
    if (method === "GET") {
      switch (endpoint) {
        case "healthz":
          return ok({ status: "ok" });
        case "get_server_capabilities":
          return ok({
            supported_models: SUPPORTED_MODELS.map((m) => ({
              model_name: m,
              max_context_length: validate.CONTEXT_LENGTH,
            })),
            local_stand_in: true,
            notice: STAND_IN_NOTICE,
            // Which backend folder this server serves, so a command for one workspace never uses another's server.
            local_store_id: b.store.id,
          });
        case "training_runs":
          return ok(b.listTrainingRuns(intParam(url, "limit", 20), intParam(url, "offset", 0)));
        case "checkpoints":
          return ok(b.listAllCheckpoints(intParam(url, "limit", 100), intParam(url, "offset", 0)));
        case "sessions":
          return ok({
            sessions: b.listSessions(intParam(url, "offset", 0), Math.min(intParam(url, "limit", 20), 1_000)),
          });
        case "billing/usage/events":
          return ok(
            b.usage.events(
              billingWindow(url.searchParams.get("starting_on"), url.searchParams.get("ending_before")),
              b.store.allCheckpoints(),
            ),
          );
      }
    }
    return this.routeWithIds(method, pathSegments(endpoint), raw, `http://${req.headers.host ?? "127.0.0.1"}`);
  }

  /** Endpoints whose path carries ids: samplers/{id}, sessions/{id}, training_runs/{run}/checkpoints/... */
  private routeWithIds(method: string, parts: string[], raw: Buffer, origin: string): Reply {
    const b = this.backend;
    const ok = (body: unknown): Reply => ({ status: 200, body });
    const [head, id, sub, ...rest] = parts;
    if (head === ARCHIVE_ROUTE && id && method === "GET" && rest.length === 1 && rest[0].endsWith(".tar")) {
      const path = b.checkpointPath(id, `${sub}/${rest[0].slice(0, -".tar".length)}`);
      return { status: 200, file: { bytes: checkpointArchive(b.store, path), contentType: "application/x-tar" } };
    }
    if (head === "samplers" && id && !sub && method === "GET") return ok(b.samplerInfo(id));
    if (head === "sessions" && id && !sub && method === "GET") return ok(b.getSession(id));
    if (head === "sessions" && id && sub === "project" && method === "PUT") return ok({});
    if (head === "training_runs" && id) {
      if (!sub && method === "GET") return ok(b.getTrainingRun(id));
      if (sub === "checkpoints" && rest.length === 0 && method === "GET") return ok(b.listRunCheckpoints(id));
      if (sub === "checkpoints" && rest.length >= 2) {
        const checkpointId = `${rest[0]}/${rest[1]}`;
        const action = rest.slice(2).join("/");
        const path = b.checkpointPath(id, checkpointId);
        if (!action && method === "DELETE") {
          b.deleteCheckpoint(id, checkpointId);
          return ok({});
        }
        if (!b.store.exists(path)) throw new HttpError(404, `no checkpoint ${checkpointId} in ${id}`);
        if (action === "archive" && method === "GET") {
          // The archive is built when its URL is fetched; the URL names this server, as Tinker's names its storage.
          const file = `${encodeURIComponent(id)}/${path.kind}/${encodeURIComponent(path.name)}.tar`;
          return ok({
            url: `${origin}/api/v1/${ARCHIVE_ROUTE}/${file}`,
            expires: new Date(Date.now() + 15 * 60_000).toISOString(),
          });
        }
        if (action === "publish" && (method === "POST" || method === "DELETE")) {
          b.store.setPublic(path, method === "POST");
          return ok({});
        }
        if (action === "ttl" && method === "PUT") {
          b.store.setTtl(path, validate.ttlSeconds(jsonBody(raw, "ttl")));
          return ok({});
        }
      }
    }
    throw new HttpError(404, `the local backend has no ${method} /api/v1/${parts.join("/").slice(0, 200)}`);
  }

  private forwardBackwardBody(req: IncomingMessage, raw: Buffer): Record<string, unknown> {
    const encoding = req.headers["content-encoding"];
    if (encoding && encoding !== "identity")
      throw new HttpError(
        415,
        `the local backend does not accept Content-Encoding ${encoding} (its client config sets proto_compress_fwdbwd false)`,
      );
    const type = req.headers["content-type"] ?? "";
    if (type.includes("json")) return jsonBody(raw, "forward_backward");
    try {
      return decodeForwardBackwardRequest(raw) as unknown as Record<string, unknown>;
    } catch (e) {
      throw new HttpError(
        400,
        `forward_backward body is not a ForwardBackwardRequest protobuf: ${(e as Error).message}`,
      );
    }
  }

  private async retrieveFuture(id: string): Promise<Reply> {
    const result = await this.backend.futures.wait(id, this.longPollMs);
    // 410 "promise expired": the SDK re-submits samples; other ops fail (e.g. after a restart).
    if (result === null) return { status: 410, body: { detail: `unknown or expired request ${id}` } };
    if (result === undefined)
      return { status: 200, body: { type: "try_again", request_id: id, queue_state: "active" } };
    return futureReply(result);
  }
}

/** Starts the local backend on 127.0.0.1; resolves once it listens. */
export async function startLocalBackend(options: LocalBackendOptions): Promise<RunningLocalBackend> {
  const log = options.log ?? (() => {});
  const faults = new FaultInjector({ ...options.faults });
  const backend = new LocalBackend({
    dir: options.dir,
    seed: options.seed ?? 0,
    opDelayMs: () => faults.options.slowFutureMs ?? 0,
    log,
    seam: options.testSeam,
  });
  const router = new Router(backend, faults, options.longPollMs ?? 20_000, options.testSeam);
  const server: Server = createServer((req, res) => {
    router.handle(req, res).catch((e: unknown) => {
      log(`request failed: ${(e as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 30_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
    });
  } catch (e) {
    await backend.close();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const running: RunningLocalBackend = {
    url: `http://127.0.0.1:${port}`,
    port,
    backend,
    faults: faults.options,
    async closeWhenIdle(idleMs = 1_000) {
      const asked = Date.now();
      // Requests after the owner is done come from other jobs; wait until they stop.
      while (
        !closing &&
        (router.inFlight > 0 || (router.lastRequestAt > asked && Date.now() - router.lastRequestAt < idleMs))
      ) {
        await new Promise((r) => setTimeout(r, 100));
      }
      await running.close();
    },
    close() {
      closing ??= Promise.all([
        backend.close(),
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
      ]).then(() => undefined);
      return closing;
    },
  };
  return running;
}
