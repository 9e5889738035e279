/**
 * Futures: every Tinker call returns at once with an object whose `result()` the caller awaits
 * later, so several calls (forward_backward then optim_step) are on the wire before any result is
 * needed. The server's side of a future is polled with retrieve_future (spec §2.3).
 */
import {
  TinkerApiError,
  TinkerAuthError,
  TinkerBillingError,
  TinkerConnectionError,
  TinkerFutureExpiredError,
  TinkerRequestFailedError,
  abortError,
} from "./errors";
import { type TinkerHttp, describeFetchError, sleep } from "./http";
import {
  decodeForwardBackwardOutput,
  decodeSampleResponse,
  type ForwardBackwardOutput,
  type RequestType,
  type SampleResponse,
  type TensorData,
} from "./wire";

/** A result that is being computed; `result()` may be awaited any number of times. */
export class TinkerFuture<T> {
  private readonly promise: Promise<T>;

  /** Starts `work` now; a failure surfaces only through result(), never as an unhandled rejection. */
  constructor(work: Promise<T>) {
    this.promise = work;
    this.promise.catch(() => undefined);
  }

  static of<T>(value: T): TinkerFuture<T> {
    return new TinkerFuture(Promise.resolve(value));
  }

  result(): Promise<T> {
    return this.promise;
  }

  map<U>(fn: (value: T) => U | Promise<U>): TinkerFuture<U> {
    return new TinkerFuture(this.promise.then(fn));
  }
}

/** What a poll returned: raw protobuf bytes or a JSON value. */
export type FutureResult = { kind: "proto"; bytes: Uint8Array } | { kind: "json"; value: unknown };

export interface PollOptions {
  requestType: RequestType;
  /** The request that made this future was issued at this time (ms), for the first poll's header. */
  issuedAt: number;
  /** When the future's id arrived (ms). */
  receivedAt: number;
  /** true for sample and forward/backward results, which come as protobuf. */
  expectProto: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
}

interface JsonEnvelope {
  type?: string;
  status?: string;
  error?: unknown;
  category?: string;
}

/** Polls retrieve_future until the result, an error envelope, or a fatal status (spec §2.3 table). */
export async function pollFuture(http: TinkerHttp, requestId: string, opts: PollOptions): Promise<FutureResult> {
  const policy = http.retryPolicy;
  let iteration = 0;
  let allowMetadataOnly = true;
  let badRequests = 0;
  let waits = 0;
  let billingSince: number | undefined;
  let unreachableSince: number | undefined;
  for (;;) {
    if (opts.signal?.aborted) throw abortError(opts.signal);
    const headers: Record<string, string> = {
      "X-Tinker-Request-Type": opts.requestType,
      "X-Tinker-Request-Iteration": String(iteration),
    };
    if (iteration === 0) {
      headers["X-Tinker-Create-Promise-Roundtrip-Time"] = ((opts.receivedAt - opts.issuedAt) / 1000).toFixed(3);
    }
    iteration++;
    let res;
    try {
      res = await http.once(
        {
          method: "POST",
          path: "/api/v1/retrieve_future",
          json: { request_id: requestId, allow_metadata_only: allowMetadataOnly },
          accept: opts.expectProto ? "application/x-protobuf" : "application/json",
          headers,
          timeoutMs: opts.timeoutMs ?? 45_000,
          signal: opts.signal,
        },
        `agent-lab-poll-${requestId}-${iteration}`,
        0,
      );
    } catch (e) {
      if (opts.signal?.aborted) throw abortError(opts.signal);
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince >= policy.unreachableMs)
        throw new TinkerConnectionError(
          "retrieve_future",
          http.redact(`${describeFetchError(e)}, unanswered for ${Math.round(policy.unreachableMs / 1000)} s`),
          http.redact(http.baseUrl),
          http.answered,
        );
      await sleep(Math.min(policy.pollBaseDelayMs * 2 ** waits++, policy.pollMaxDelayMs), opts.signal);
      continue;
    }
    unreachableSince = undefined;
    const status = res.status;
    if (status !== 402) billingSince = undefined;
    if (status === 200) {
      const contentType = res.headers.get("content-type") ?? "";
      if (contentType.includes("application/x-protobuf")) return { kind: "proto", bytes: res.body };
      const value = res.json<JsonEnvelope>();
      if (value && typeof value === "object") {
        if (value.type === "try_again") {
          waits = 0; // the server answered: back-off for later trouble starts small again
          continue;
        }
        if (value.status === "complete_metadata") {
          // The result is ready but large; ask for the payload itself (only once).
          if (!allowMetadataOnly) throw new TinkerApiError(200, "retrieve_future", "metadata-only answer repeated");
          allowMetadataOnly = false;
          continue;
        }
        if ("error" in value) {
          throw new TinkerRequestFailedError(
            value.category ?? "unknown",
            opts.requestType,
            http.redact(String(value.error)),
          );
        }
      }
      return { kind: "json", value };
    }
    if (status === 408) continue; // the server's long-poll ran out: same as try_again
    if (status >= 500) {
      // The spec's client re-polls at once; a short pause keeps a failing server from a hot loop.
      await sleep(Math.min(policy.baseDelayMs, 100 * 2 ** Math.min(waits++, 10)), opts.signal);
      continue;
    }
    if (status === 429) {
      await sleep(Math.min(policy.pollBaseDelayMs * 2 ** waits++, policy.pollMaxDelayMs), opts.signal);
      continue;
    }
    if (status === 402) {
      billingSince ??= Date.now();
      const paused = Date.now() - billingSince;
      if (paused >= policy.billingMaxPauseMs) throw new TinkerBillingError(paused / 1000);
      await sleep(Math.min(policy.billingPollMs, policy.billingMaxPauseMs - paused), opts.signal);
      continue;
    }
    if (status === 401 || status === 403) throw new TinkerAuthError(status);
    if (status === 410) throw new TinkerFutureExpiredError(opts.requestType);
    if (status === 400 && ++badRequests <= 3) continue;
    throw new TinkerApiError(status, "retrieve_future", http.redact(res.text()));
  }
}

// ---------- result decoding (protobuf, with the legacy JSON shapes as a fallback) ----------

export function toForwardBackwardOutput(r: FutureResult): ForwardBackwardOutput {
  if (r.kind === "proto") return decodeForwardBackwardOutput(r.bytes);
  const v = r.value as Partial<ForwardBackwardOutput> | null;
  if (!v || !Array.isArray(v.loss_fn_outputs))
    throw new Error("forward_backward result is neither protobuf nor the JSON shape");
  return {
    loss_fn_output_type: v.loss_fn_output_type ?? "",
    loss_fn_outputs: v.loss_fn_outputs as Array<Record<string, TensorData>>,
    metrics: v.metrics ?? {},
  };
}

export function toSampleResponse(r: FutureResult): SampleResponse {
  if (r.kind === "proto") return decodeSampleResponse(r.bytes);
  const v = r.value as Partial<SampleResponse> | null;
  if (!v || !Array.isArray(v.sequences)) throw new Error("sample result is neither protobuf nor the JSON shape");
  return {
    sequences: v.sequences.map((s) => ({ tokens: s.tokens, logprobs: s.logprobs ?? null, stop_reason: s.stop_reason })),
    prompt_logprobs: v.prompt_logprobs ?? null,
    topk_prompt_logprobs: v.topk_prompt_logprobs ?? null,
    prompt_cache_hit_tokens: v.prompt_cache_hit_tokens ?? 0,
  };
}

export function toJson<T>(r: FutureResult, what: string): T {
  if (r.kind !== "json") throw new Error(`${what}: expected a JSON result, got protobuf`);
  return r.value as T;
}
