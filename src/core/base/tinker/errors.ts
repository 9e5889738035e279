/**
 * Errors the Tinker client raises. Every message that may quote server text goes through
 * `redact` first, so the API key (or the JWT exchanged for it) can never surface in an error.
 */
import { UserError } from "../errors";

const KEY_HELP = 'set TINKER_API_KEY in the environment or run "Agent Lab: Set Tinker API Key" in VS Code';

/** Replaces every secret occurrence (and any tml-… / eyJ… token) with a placeholder. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("[redacted]");
  return out
    .replace(/\btml-[A-Za-z0-9_\-.]+/g, "tml-[redacted]")
    .replace(/\beyJ[A-Za-z0-9_\-.]{8,}/g, "[redacted-jwt]");
}

/** No usable key, or a malformed one: a user mistake, reported before any request is made. */
export class TinkerKeyError extends UserError {
  constructor(problem: string) {
    super(`Tinker API key ${problem}; ${KEY_HELP}.`);
    this.name = "TinkerKeyError";
  }
}

/** HTTP 401/403: the key was refused. */
export class TinkerAuthError extends UserError {
  constructor(readonly status: number) {
    super(
      status === 401
        ? `Tinker rejected the API key (HTTP 401); check it and ${KEY_HELP}.`
        : `the Tinker API key has no permission for this (HTTP 403); check the key's project or ${KEY_HELP}.`,
    );
    this.name = "TinkerAuthError";
  }
}

/** HTTP 402 that outlasted the billing pause. */
export class TinkerBillingError extends UserError {
  constructor(pausedSeconds: number) {
    super(
      `Tinker refused the request for billing reasons (HTTP 402: out of credit or billing not set up) ` +
        `and kept refusing for ${Math.round(pausedSeconds)} s; add credit or check billing in the Tinker console, then retry.`,
    );
    this.name = "TinkerBillingError";
  }
}

/** Any other HTTP error status (after retries where they apply). */
export class TinkerApiError extends Error {
  constructor(
    readonly status: number,
    readonly endpoint: string,
    body: string,
  ) {
    super(`Tinker ${endpoint}: HTTP ${status}${body ? ` - ${body.slice(0, 500)}` : ""}`);
    this.name = "TinkerApiError";
  }
}

/**
 * The server could not be reached (after retries): the environment's problem (a wrong
 * TINKER_BASE_URL, no network, a backend that was stopped), so a one-line user error naming the
 * base URL. `lost`: it had answered this client before, so the command stopped mid-run.
 */
export class TinkerConnectionError extends UserError {
  constructor(
    readonly endpoint: string,
    cause: string,
    readonly baseUrl?: string,
    readonly lost = false,
  ) {
    const where = baseUrl ? ` at ${baseUrl}` : "";
    super(
      lost
        ? `the Tinker service${where} stopped answering (${endpoint}: ${cause}); ` +
            "check that it is still running (a local backend: the job or terminal that started it) and the network, then rerun"
        : `cannot reach the Tinker service${where} (${endpoint}: ${cause}); ` +
            "check TINKER_BASE_URL (unset it for the hosted service) and the network, then rerun",
    );
    this.name = "TinkerConnectionError";
  }
}

/** A future resolved to the error envelope {"error", "category"}. */
export class TinkerRequestFailedError extends Error {
  constructor(
    readonly category: string,
    readonly requestType: string,
    message: string,
  ) {
    super(`Tinker ${requestType} failed (${category} error): ${message}`);
    this.name = "TinkerRequestFailedError";
  }
}

/** HTTP 410 while polling: the server dropped the promise; sampling re-submits, other calls fail. */
export class TinkerFutureExpiredError extends Error {
  constructor(readonly requestType: string) {
    super(`Tinker ${requestType}: the server expired the request's result before it was fetched (HTTP 410)`);
    this.name = "TinkerFutureExpiredError";
  }
}

/** What `fetch` and our sleeps throw when the caller's AbortSignal fires. */
export function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  const e = new Error("the Tinker request was cancelled");
  e.name = "AbortError";
  return e;
}
