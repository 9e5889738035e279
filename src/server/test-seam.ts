/**
 * The local backend's test seam: hooks that let the client tests see every request and script the
 * service's answers (faults, slow or failing results, fixed samples, auth modes) while everything
 * else — routing, futures, seq_id order, idempotent replays — stays the real server's. Off unless a
 * caller passes `testSeam` to startLocalBackend; the CLI never does, and every hook is optional.
 */
import type { IncomingHttpHeaders } from "node:http";
import { decodeForwardBackwardRequest } from "../core/base/tinker/wire/codec";
import type { ForwardBackwardRequest, SampleResponse } from "../core/base/tinker/wire/types";
import type { SampleBody } from "./validate";

/** A request as it arrived, with its body decoded where it can be (JSON, or forward_backward protobuf). */
export interface ObservedRequest {
  method: string;
  /** The URL path, e.g. "/api/v1/optim_step". */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json?: Record<string, unknown>;
  proto?: ForwardBackwardRequest;
  /** Date.now() when the body had been read. */
  at: number;
}

export type ScriptedReply =
  /** Answer this instead of handling the request; `body` is sent as is (no content type unless given). */
  | { status: number; json?: unknown; body?: string; headers?: Record<string, string> }
  /** Drop the connection without handling the request. */
  | { drop: true }
  /** Handle the request (apply it), then drop the connection so the answer is lost. */
  | { dropAfterHandling: true };

export interface TestSeam {
  /** Sees every request once its body is read, before anything else happens to it. */
  observe?(request: ObservedRequest): void;
  /** A scripted answer for this request, or undefined to handle it normally. */
  script?(request: ObservedRequest): ScriptedReply | undefined;
  /**
   * Awaited before an operation computes its result; kind is forward, forward_backward, optim_step,
   * save_weights, save_weights_for_sampler, load_weights or sample. A rejection becomes the future's
   * error (category "user" for a UserInputError).
   */
  beforeResult?(kind: string): Promise<void>;
  /** A fixed answer to asample instead of the tiny model's, or undefined for the model (the request is validated either way). */
  sample?(body: SampleBody): SampleResponse | undefined;
  /** Merged over the server's own POST /client/config answer. */
  clientConfig?(): Record<string, unknown>;
  /** Answers POST /auth/token with { jwt } when it returns one (the server has no such route otherwise). */
  authToken?(): string | undefined;
}

function decodeJson(body: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(body.toString("utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    // Not JSON: the router answers it with its own 400; the observer just sees no json.
    return undefined;
  }
}

function decodeProto(body: Buffer): ForwardBackwardRequest | undefined {
  try {
    return decodeForwardBackwardRequest(body);
  } catch {
    // Not a ForwardBackwardRequest: the router answers it with its own 400.
    return undefined;
  }
}

export function observedRequest(method: string, url: URL, headers: IncomingHttpHeaders, body: Buffer): ObservedRequest {
  const type = headers["content-type"] ?? "";
  const out: ObservedRequest = { method, path: url.pathname, query: url.searchParams, headers, body, at: Date.now() };
  if (body.length > 0 && type.includes("json")) out.json = decodeJson(body);
  if (body.length > 0 && type.includes("protobuf")) out.proto = decodeProto(body);
  return out;
}
