/** What training and sampling clients share with the service that made them. */
import { type FutureResult, pollFuture } from "./futures";
import type { TinkerHttp } from "./http";
import type { ClientConfigResponse, RequestType, UntypedAPIFuture } from "./wire";

export interface SamplingClientSource {
  /** A sampler for a base model or a tinker:// sampler checkpoint (create_sampling_session). */
  createSamplingClient(options: {
    baseModel?: string;
    modelPath?: string;
    signal?: AbortSignal;
  }): Promise<import("./sampling").SamplingClient>;
}

export interface TinkerContext {
  http: TinkerHttp;
  config: Required<ClientConfigResponse>;
  sessionId: string;
  /** Per session, shared by create_sampling_session and ephemeral save_weights_for_sampler (spec §1.6). */
  nextSamplingSessionSeqId(): number;
  service: SamplingClientSource;
  /** Sampling back-off after a 429, shared by every sampler of the service (ms timestamp). */
  sampleBackoff: { until: number };
}

/** A POST whose answer is a future id, then the poll for its result. */
export async function submitAndPoll(
  http: TinkerHttp,
  request: {
    path: string;
    json?: unknown;
    proto?: Uint8Array;
    requestType: RequestType;
    expectProto: boolean;
    retry?: boolean;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  },
): Promise<FutureResult> {
  const issuedAt = Date.now();
  const res = await http.request({
    method: "POST",
    path: request.path,
    json: request.json,
    body: request.proto,
    contentType: request.proto ? "application/x-protobuf" : undefined,
    retry: request.retry,
    headers: request.headers,
    signal: request.signal,
  });
  const future = res.json<UntypedAPIFuture>();
  if (!future || typeof future.request_id !== "string") {
    throw new Error(
      `Tinker ${request.path}: expected a future ({"request_id"}), got ${http.redact(res.text()).slice(0, 200)}`,
    );
  }
  return pollFuture(http, future.request_id, {
    requestType: request.requestType,
    issuedAt,
    receivedAt: Date.now(),
    expectProto: request.expectProto,
    signal: request.signal,
  });
}
