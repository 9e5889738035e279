/**
 * One HTTP exchange with Tinker and the retry rules around it (spec §1.3, §1.7, §1.9, §1.11):
 * connection errors, timeouts, 408/409/429/5xx and empty-body 400s are retried with exponential
 * back-off (or the server's retry-after); 402 pauses and re-tries for the billing window; 401/403
 * become a message on how to set the key. One idempotency key per logical request, reused on every
 * retry, so the server can recognise a repeat of a request it already applied.
 */
import { randomUUID } from "node:crypto";
import {
  TinkerApiError,
  TinkerAuthError,
  TinkerBillingError,
  TinkerConnectionError,
  abortError,
  redact,
} from "./errors";

export interface RetryPolicy {
  /** HTTP-layer retries per request (the SDK's max_retries). */
  maxRetries: number;
  /** First back-off delay; doubles per retry up to maxDelayMs, minus up to 25 % jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Give up retrying once this much time has passed since the first attempt. */
  budgetMs: number;
  /**
   * A server that answers nothing at all (refused, reset, timed out) for this long is given up on,
   * wherever the client would otherwise keep trying (a future's polls, sampling's re-submits): a
   * killed local backend or a dropped network ends the command with a message, not a hang.
   */
  unreachableMs: number;
  /** While the server answers 402, re-try this often… */
  billingPollMs: number;
  /** …for at most this long per incident, then fail with a billing message. */
  billingMaxPauseMs: number;
  /** retrieve_future after a 429 or a dropped connection: min(base·2^n, max) (spec §2.3). */
  pollBaseDelayMs: number;
  pollMaxDelayMs: number;
  /** Sampling back-pressure (429 on asample): wait this long for small prompts (≤ 128 KiB)… */
  sampleBackoffSmallMs: number;
  /** …and this long for larger ones (spec §1.9). */
  sampleBackoffLargeMs: number;
  /** A sample() call fails when no attempt has succeeded for this long (the SDK's stuck detection). */
  sampleStuckMs: number;
  /** Checkpoint archive still being built (503): wait this long, up to 6 attempts. */
  archiveRetryMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 10,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  budgetMs: 5 * 60_000,
  unreachableMs: 60_000,
  billingPollMs: 5_000,
  billingMaxPauseMs: 3_600_000,
  pollBaseDelayMs: 1_000,
  pollMaxDelayMs: 30_000,
  sampleBackoffSmallMs: 1_000,
  sampleBackoffLargeMs: 5_000,
  sampleStuckMs: 7_200_000,
  archiveRetryMs: 30_000,
};

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface HttpRequest {
  method: HttpMethod;
  /** Endpoint path such as "/api/v1/create_session"; appended to the base URL's path. */
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  body?: Uint8Array;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** false: a single attempt (the SDK's max_retries=0 calls). */
  retry?: boolean;
  /** Retries when the server cannot be reached at all (default: the policy's maxRetries). */
  connectRetries?: number;
  /** Statuses returned to the caller as they are, without retry or error. */
  passStatus?: (status: number) => boolean;
  redirect?: "follow" | "manual";
  /** false: send no X-API-Key (none of the current calls; kept for the config fetch without a key). */
  auth?: boolean;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  text(): string;
  json<T>(): T;
}

export interface HttpOptions {
  baseUrl: string;
  /** The value for X-API-Key right now (API key, or a JWT in JWT mode). */
  credential: () => Promise<string>;
  /** Everything that must never appear in error text. */
  secrets: () => ReadonlyArray<string | undefined>;
  userAgent: string;
  retry: RetryPolicy;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

const RETRYABLE_STATUS = (s: number): boolean => s === 408 || s === 409 || s === 429 || s >= 500;

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Server-suggested delay (retry-after-ms, or retry-after in seconds or as an HTTP date), if in (0, 60] s. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && ms > 0 && ms <= 60_000) return ms;
  const ra = headers.get("retry-after");
  if (ra) {
    const seconds = Number(ra);
    const value = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(ra) - Date.now();
    if (value > 0 && value <= 60_000) return value;
  }
  return undefined;
}

export function backoffMs(retry: RetryPolicy, attempt: number): number {
  const delay = Math.min(retry.baseDelayMs * 2 ** attempt, retry.maxDelayMs);
  return delay * (1 - 0.25 * Math.random());
}

export class TinkerHttp {
  private readonly fetchImpl: typeof fetch;
  readonly baseUrl: string;
  /** Whether the server has answered this client at all: a connection failure after that is a lost server. */
  answered = false;

  constructor(private readonly options: HttpOptions) {
    this.fetchImpl = options.fetch ?? fetch;
    // A trailing slash is forced so endpoint paths append to the base path (spec §1.1).
    this.baseUrl = options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`;
  }

  get retryPolicy(): RetryPolicy {
    return this.options.retry;
  }

  url(path: string, query?: HttpRequest["query"]): string {
    const url = new URL(path.replace(/^\//, ""), this.baseUrl);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  redact(text: string): string {
    return redact(text, this.options.secrets());
  }

  /** Sends the request, retrying per the policy; returns a 2xx/3xx response (or a passStatus one). */
  async request(req: HttpRequest): Promise<HttpResponse> {
    const idempotencyKey = req.method === "GET" ? undefined : `agent-lab-retry-${randomUUID()}`;
    const started = Date.now();
    let retries = 0;
    let billingSince: number | undefined;
    let unreachableSince: number | undefined;
    const retryAllowed = req.retry !== false;
    const policy = this.options.retry;
    const canRetry = (): boolean =>
      retryAllowed && retries < policy.maxRetries && Date.now() - started < policy.budgetMs;

    for (;;) {
      let res: HttpResponse;
      try {
        res = await this.once(req, idempotencyKey, retries);
      } catch (e) {
        if (req.signal?.aborted) throw abortError(req.signal);
        const cause = this.redact(describeFetchError(e));
        unreachableSince ??= Date.now();
        if (
          !canRetry() ||
          (req.connectRetries !== undefined && retries >= req.connectRetries) ||
          Date.now() - unreachableSince >= policy.unreachableMs
        )
          throw new TinkerConnectionError(req.path, cause, this.redact(this.baseUrl), this.answered);
        await sleep(backoffMs(policy, retries), req.signal);
        retries++;
        continue;
      }
      unreachableSince = undefined;
      const status = res.status;
      if (req.passStatus?.(status)) return res;
      if (status < 400) return res;
      if (status === 402) {
        billingSince ??= Date.now();
        const paused = Date.now() - billingSince;
        if (paused >= policy.billingMaxPauseMs) throw new TinkerBillingError(paused / 1000);
        await sleep(Math.min(policy.billingPollMs, policy.billingMaxPauseMs - paused), req.signal);
        continue;
      }
      billingSince = undefined;
      if (status === 401 || status === 403) throw new TinkerAuthError(status);
      const shouldRetryHeader = res.headers.get("x-should-retry");
      const emptyBadRequest = status === 400 && res.body.length === 0; // proxy glitch (spec §1.7)
      const retryable =
        shouldRetryHeader === "true"
          ? true
          : shouldRetryHeader === "false"
            ? false
            : RETRYABLE_STATUS(status) || emptyBadRequest;
      if (retryable && canRetry()) {
        await sleep(retryAfterMs(res.headers) ?? backoffMs(policy, retries), req.signal);
        retries++;
        continue;
      }
      throw new TinkerApiError(status, req.path, this.redact(res.text()));
    }
  }

  /** One attempt; throws on network failure or timeout, returns any HTTP status. */
  async once(req: HttpRequest, idempotencyKey: string | undefined, retryCount: number): Promise<HttpResponse> {
    const headers: Record<string, string> = {
      Accept: req.accept ?? "application/json",
      "User-Agent": this.options.userAgent,
      "x-stainless-retry-count": String(retryCount),
      "x-stainless-read-timeout": String(Math.round((req.timeoutMs ?? 60_000) / 1000)),
    };
    if (req.auth !== false) headers["X-API-Key"] = await this.options.credential();
    if (idempotencyKey) headers["X-Idempotency-Key"] = idempotencyKey;
    const env = this.options.env;
    if (env.CLOUDFLARE_ACCESS_CLIENT_ID) headers["CF-Access-Client-Id"] = env.CLOUDFLARE_ACCESS_CLIENT_ID;
    if (env.CLOUDFLARE_ACCESS_CLIENT_SECRET) headers["CF-Access-Client-Secret"] = env.CLOUDFLARE_ACCESS_CLIENT_SECRET;
    let body: Uint8Array<ArrayBuffer> | string | undefined;
    if (req.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(req.json);
    } else if (req.body !== undefined) {
      headers["Content-Type"] = req.contentType ?? "application/octet-stream";
      // Typed for both Node's and the DOM's fetch types (the webview tests pull in lib.dom).
      body = req.body as Uint8Array<ArrayBuffer>;
    }
    Object.assign(headers, req.headers);

    const timeout = AbortSignal.timeout(req.timeoutMs ?? 60_000);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const res = await this.fetchImpl(this.url(req.path, req.query), {
      method: req.method,
      headers,
      body,
      signal,
      redirect: req.redirect ?? "follow",
    });
    const buf = Buffer.from(await res.arrayBuffer());
    this.answered = true;
    return {
      status: res.status,
      headers: res.headers,
      body: buf,
      text: () => buf.toString("utf8"),
      json: <T>() => {
        try {
          return JSON.parse(buf.toString("utf8")) as T;
        } catch {
          // JSON.parse quotes the text in its message; quote it ourselves, redacted.
          throw new TinkerApiError(
            res.status,
            req.path,
            `response is not JSON: ${this.redact(buf.toString("utf8").slice(0, 200))}`,
          );
        }
      },
    };
  }
}

/** What a failed fetch says, in one line ("fetch failed: ECONNREFUSED connect …", "timed out"). */
export function describeFetchError(e: unknown): string {
  if (e instanceof Error) {
    if (e.name === "TimeoutError") return "timed out";
    const cause = (e as { cause?: unknown }).cause;
    const code = cause instanceof Error ? ((cause as { code?: string }).code ?? "") : "";
    // undici's cause usually repeats its code in the message ("connect ECONNREFUSED …"): say it once.
    const detail =
      cause instanceof Error
        ? code && !cause.message.includes(code)
          ? `${code} ${cause.message}`
          : cause.message
        : "";
    return detail ? `${e.message}: ${detail}` : e.message;
  }
  return String(e);
}
