/**
 * The Tinker client's HTTP layer on its own (http.ts), against a scripted fetch: what one attempt
 * sends, which answers are retried and how long it waits before each retry, when it gives up and
 * with which error. The client tests (client.test.ts) hold the same rules end to end against a
 * scripted server; these pin the edges (mutation-testing gaps, issue 31). Time is virtual: every
 * wait the layer asks for is recorded and moves a clock (Date.now) forward by that much at once, so
 * a 30 s back-off costs nothing and the billing pause, the budget and the unreachable limit are exact.
 */
import assert from "node:assert/strict";
import {
  DEFAULT_RETRY,
  type HttpRequest,
  type RetryPolicy,
  TinkerHttp,
  backoffMs,
  describeFetchError,
  sleep,
} from "../../../../../src/core/base/tinker/http";
import {
  TinkerApiError,
  TinkerAuthError,
  TinkerBillingError,
  TinkerConnectionError,
} from "../../../../../src/core/base/tinker/errors";

const KEY = "tml-secret-key-0123456789";
const BASE = "http://tinker.test/api";

const POLICY: RetryPolicy = {
  ...DEFAULT_RETRY,
  maxRetries: 4,
  baseDelayMs: 10,
  maxDelayMs: 40,
  budgetMs: 60_000,
  unreachableMs: 60_000,
  billingPollMs: 25,
  billingMaxPauseMs: 60_000,
};

type Step = { status: number; body?: string; headers?: Record<string, string> } | Error;
interface Sent {
  url: string;
  init: RequestInit;
  headers: Record<string, string>;
}

/** Answers each call with the next step (the last one repeats); records what was sent. */
function scripted(steps: Step[] | ((n: number) => Step)) {
  const sent: Sent[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const n = sent.length;
    sent.push({ url: String(input), init: init ?? {}, headers: { ...(init?.headers as Record<string, string>) } });
    const step = typeof steps === "function" ? steps(n) : steps[Math.min(n, steps.length - 1)];
    if (step instanceof Error) throw step;
    const nullBody = step.status === 204 || step.status === 304;
    return new Response(nullBody ? null : (step.body ?? ""), { status: step.status, headers: step.headers });
  }) as typeof fetch;
  return { sent, fetchImpl };
}

function client(fetchImpl: typeof fetch, retry: Partial<RetryPolicy> = {}, env: NodeJS.ProcessEnv = {}): TinkerHttp {
  return new TinkerHttp({
    baseUrl: BASE,
    credential: () => Promise.resolve(KEY),
    secrets: () => [KEY, undefined],
    userAgent: "agent-lab/test",
    retry: { ...POLICY, ...retry },
    env,
    fetch: fetchImpl,
  });
}

const post = (over: Partial<HttpRequest> = {}): HttpRequest => ({
  method: "POST",
  path: "/api/v1/x",
  json: {},
  ...over,
});

/** A connection failure as undici reports one. */
function refused(): Error {
  const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
  return new TypeError("fetch failed", { cause });
}

// The waits `sleep` asks for, in order, on a virtual clock that each wait moves forward.
let waits: number[] = [];
let clock = 0;
const realSetTimeout = globalThis.setTimeout;
const realNow = Date.now;
const virtualTimeout = ((fn: () => void, ms?: number) => {
  // Only the layer's own waits: a timer some other test left running keeps real time.
  if (!new Error().stack?.includes("/tinker/http.ts")) return realSetTimeout(fn, ms);
  waits.push(ms ?? 0);
  return realSetTimeout(() => {
    clock += ms ?? 0;
    fn();
  }, 0);
}) as typeof setTimeout;
/** Real waits (an abort must land while one is pending); the virtual clock stands still. */
const realTimeouts = () => {
  globalThis.setTimeout = realSetTimeout;
};

describe("tinker http: one request and its retries", function () {
  this.timeout(10_000);
  beforeEach(() => {
    waits = [];
    clock = 1_700_000_000_000; // a whole second: an HTTP date (whole seconds) lands exactly
    Date.now = () => clock;
    globalThis.setTimeout = virtualTimeout;
  });
  afterEach(() => {
    globalThis.setTimeout = realSetTimeout;
    Date.now = realNow;
  });

  it("sends the method, the URL under the base path with its query, and the SDK's headers", async () => {
    const { sent, fetchImpl } = scripted([{ status: 200, body: '{"ok":true}' }]);
    const http = client(
      fetchImpl,
      {},
      { CLOUDFLARE_ACCESS_CLIENT_ID: "cf-id", CLOUDFLARE_ACCESS_CLIENT_SECRET: "cf-s" },
    );
    const res = await http.request({
      method: "PUT",
      path: "/api/v1/put",
      query: { a: 1, b: "two", gone: undefined },
      json: { n: 1 },
      timeoutMs: 2_500,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json(), { ok: true });
    assert.equal(res.text(), '{"ok":true}');
    assert.equal(sent[0].url, "http://tinker.test/api/api/v1/put?a=1&b=two");
    assert.equal(sent[0].init.method, "PUT");
    assert.equal(sent[0].init.body, '{"n":1}');
    assert.equal(sent[0].init.redirect, "follow");
    const { "X-Idempotency-Key": key, ...rest } = sent[0].headers;
    assert.match(key, /^agent-lab-retry-[0-9a-f-]{36}$/);
    assert.deepEqual(rest, {
      Accept: "application/json",
      "User-Agent": "agent-lab/test",
      "x-stainless-retry-count": "0",
      "x-stainless-read-timeout": "3",
      "X-API-Key": KEY,
      "CF-Access-Client-Id": "cf-id",
      "CF-Access-Client-Secret": "cf-s",
      "Content-Type": "application/json",
    });
  });

  it("a GET has no idempotency key; bytes go as octet-stream unless typed; the caller's headers win", async () => {
    const { sent, fetchImpl } = scripted([{ status: 200 }]);
    const http = client(fetchImpl);
    await http.request({ method: "GET", path: "v1/get", accept: "application/x-protobuf", auth: false });
    assert.deepEqual(sent[0].headers, {
      Accept: "application/x-protobuf",
      "User-Agent": "agent-lab/test",
      "x-stainless-retry-count": "0",
      "x-stainless-read-timeout": "60",
    });
    assert.equal(sent[0].url, "http://tinker.test/api/v1/get");
    assert.equal(sent[0].init.body, undefined);
    const bytes = new Uint8Array([1, 2, 3]);
    await http.request({ method: "POST", path: "/b", body: bytes, redirect: "manual" });
    assert.equal(sent[1].headers["Content-Type"], "application/octet-stream");
    assert.equal(sent[1].init.body, bytes);
    assert.equal(sent[1].init.redirect, "manual");
    await http.request({ method: "POST", path: "/b", body: bytes, contentType: "application/gzip" });
    assert.equal(sent[2].headers["Content-Type"], "application/gzip");
    await http.request({ method: "POST", path: "/b", json: 1, headers: { Accept: "text/plain", "X-Extra": "1" } });
    assert.deepEqual([sent[3].headers.Accept, sent[3].headers["X-Extra"]], ["text/plain", "1"]);
  });

  it("a base URL that already ends in / is kept; the policy it was given is the one it reports", () => {
    const http = new TinkerHttp({
      baseUrl: "http://h/p/",
      credential: () => Promise.resolve(KEY),
      secrets: () => [],
      userAgent: "u",
      retry: POLICY,
      env: {},
    });
    assert.equal(http.baseUrl, "http://h/p/");
    assert.equal(http.url("/q"), "http://h/p/q");
    assert.equal(client(scripted([]).fetchImpl).baseUrl, `${BASE}/`);
    assert.equal(http.retryPolicy, POLICY);
  });

  it("retries 408, 409, 429 and every 5xx from 500 with one idempotency key and counted retries", async () => {
    for (const status of [408, 409, 429, 500, 501, 503, 599]) {
      const { sent, fetchImpl } = scripted([{ status }, { status: 200 }]);
      await client(fetchImpl).request(post());
      assert.equal(sent.length, 2, `${status} is retried`);
      assert.equal(sent[0].headers["X-Idempotency-Key"], sent[1].headers["X-Idempotency-Key"]);
      assert.deepEqual(
        sent.map((s) => s.headers["x-stainless-retry-count"]),
        ["0", "1"],
      );
    }
  });

  it("does not retry other 4xx statuses: the error names the status, the endpoint and the body, redacted", async () => {
    for (const status of [400, 404, 407, 410, 422, 428, 430, 499]) {
      const { sent, fetchImpl } = scripted([{ status, body: `no: ${KEY}` }, { status: 200 }]);
      await assert.rejects(client(fetchImpl).request(post()), (e: Error) => {
        assert.ok(e instanceof TinkerApiError);
        assert.equal(e.status, status);
        assert.equal(e.message, `Tinker /api/v1/x: HTTP ${status} - no: [redacted]`);
        return true;
      });
      assert.equal(sent.length, 1, `${status} is not retried`);
    }
  });

  it("an empty-body 400 is retried (a proxy glitch); x-should-retry overrides the status either way", async () => {
    let s = scripted([{ status: 400 }, { status: 200 }]);
    await client(s.fetchImpl).request(post());
    assert.equal(s.sent.length, 2);
    s = scripted([{ status: 404 }, { status: 200 }]);
    await assert.rejects(client(s.fetchImpl).request(post()), TinkerApiError);
    assert.equal(s.sent.length, 1, "an empty body is a glitch only on a 400");
    s = scripted([{ status: 418, headers: { "x-should-retry": "true" } }, { status: 200 }]);
    await client(s.fetchImpl).request(post());
    assert.equal(s.sent.length, 2);
    s = scripted([{ status: 503, headers: { "x-should-retry": "false" } }, { status: 200 }]);
    await assert.rejects(client(s.fetchImpl).request(post()), (e: Error) => e instanceof TinkerApiError);
    assert.equal(s.sent.length, 1);
    s = scripted([{ status: 503, headers: { "x-should-retry": "maybe" } }, { status: 200 }]);
    await client(s.fetchImpl).request(post());
    assert.equal(s.sent.length, 2, "any other value leaves the status rule");
  });

  it("gives up after maxRetries retries, or at once when the request says retry: false", async () => {
    let s = scripted([{ status: 503, body: "busy" }]);
    await assert.rejects(client(s.fetchImpl, { maxRetries: 2 }).request(post()), (e: Error) => {
      return e instanceof TinkerApiError && e.status === 503 && e.message.endsWith("busy");
    });
    assert.equal(s.sent.length, 3);
    s = scripted([{ status: 503 }]);
    await assert.rejects(client(s.fetchImpl).request(post({ retry: false })), TinkerApiError);
    assert.equal(s.sent.length, 1);
    s = scripted([refused()]);
    await assert.rejects(client(s.fetchImpl).request(post({ retry: false })), TinkerConnectionError);
    assert.equal(s.sent.length, 1);
  });

  it("gives up once the time budget is spent", async () => {
    const s = scripted([{ status: 503 }, { status: 200 }]);
    await assert.rejects(client(s.fetchImpl, { budgetMs: 0 }).request(post()), TinkerApiError);
    assert.equal(s.sent.length, 1);
  });

  it("backs off base·2^n up to the cap before each retry (jitter: up to 25 % less)", async () => {
    const s = scripted([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 200 }]);
    await client(s.fetchImpl).request(post());
    assert.equal(waits.length, 4);
    [10, 20, 40, 40].forEach((full, n) => assert.ok(waits[n] > full * 0.75 - 1e-9 && waits[n] <= full, `${waits[n]}`));
  });

  it("backoffMs: doubling from the base, capped, less up to a quarter at random", () => {
    const random = Math.random;
    try {
      Math.random = () => 0;
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((n) => backoffMs({ ...POLICY, baseDelayMs: 100, maxDelayMs: 1000 }, n)),
        [100, 200, 400, 800, 1000],
      );
      Math.random = () => 1;
      assert.equal(backoffMs({ ...POLICY, baseDelayMs: 100, maxDelayMs: 1000 }, 1), 150);
    } finally {
      Math.random = random;
    }
  });

  it("the default policy is the SDK's: 10 retries, 0.5 s doubling to 10 s, within 5 minutes", () => {
    assert.deepEqual(
      [DEFAULT_RETRY.maxRetries, DEFAULT_RETRY.baseDelayMs, DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.budgetMs],
      [10, 500, 10_000, 300_000],
    );
  });

  it("waits what the server asks (retry-after-ms, retry-after in seconds or as a date) when within 60 s", async () => {
    const start = clock;
    const backoff = (ms: number) => ms > 7.5 && ms <= 10; // the first retry's back-off, not the header
    const date = new Date(start + 30_000).toUTCString();
    const cases: [Record<string, string>, (ms: number) => boolean, string][] = [
      [{ "retry-after-ms": "1234" }, (ms) => ms === 1234, "retry-after-ms"],
      [{ "retry-after-ms": "60000" }, (ms) => ms === 60_000, "60 s is still taken"],
      [{ "retry-after-ms": "60001" }, backoff, "over 60 s: back-off"],
      [{ "retry-after-ms": "0" }, backoff, "0: back-off"],
      [{ "retry-after-ms": "0", "retry-after": "2" }, (ms) => ms === 2000, "falls through to retry-after"],
      [{ "retry-after": "1.5" }, (ms) => ms === 1500, "retry-after in seconds"],
      [{ "retry-after": "60" }, (ms) => ms === 60_000, "60 s"],
      [{ "retry-after": "61" }, backoff, "61 s: back-off"],
      [{ "retry-after": "0" }, backoff, "0 s: back-off"],
      [{ "retry-after": "-3" }, backoff, "negative: back-off"],
      [{ "retry-after": date }, (ms) => ms > 28_000 && ms <= 30_000, "an HTTP date 30 s ahead"],
      [{ "retry-after": new Date(start - 5000).toUTCString() }, backoff, "a date gone: back-off"],
    ];
    for (const [headers, ok, why] of cases) {
      waits = [];
      clock = start; // the dates above are relative to it
      const s = scripted([{ status: 429, headers }, { status: 200 }]);
      await client(s.fetchImpl).request(post());
      assert.equal(waits.length, 1, why);
      assert.ok(ok(waits[0]), `${why}: waited ${waits[0]}`);
    }
  });

  it("returns 2xx and 3xx answers, and any status the request passes through, without retrying", async () => {
    let s = scripted([{ status: 304 }]);
    assert.equal((await client(s.fetchImpl).request(post({ redirect: "manual" }))).status, 304);
    s = scripted([{ status: 399 }]);
    assert.equal((await client(s.fetchImpl).request(post())).status, 399);
    s = scripted([{ status: 404 }, { status: 200 }]);
    const res = await client(s.fetchImpl).request(post({ passStatus: (st) => st === 404 }));
    assert.equal(res.status, 404);
    assert.equal(s.sent.length, 1);
    s = scripted([{ status: 503 }, { status: 200 }]);
    const passed = await client(s.fetchImpl).request(post({ passStatus: (st) => st === 404 }));
    assert.equal(passed.status, 200, "a status not passed keeps the rules");
  });

  it("401 and 403 say how to set the key, at once", async () => {
    for (const status of [401, 403]) {
      const s = scripted([{ status }, { status: 200 }]);
      await assert.rejects(client(s.fetchImpl).request(post()), (e: Error) => {
        return e instanceof TinkerAuthError && e.status === status;
      });
      assert.equal(s.sent.length, 1);
    }
  });

  it("402 polls every billingPollMs and fails with a billing message once the pause is spent", async () => {
    const s = scripted([{ status: 402 }, { status: 402 }, { status: 200 }]);
    const res = await client(s.fetchImpl, { billingPollMs: 25, maxRetries: 0 }).request(post());
    assert.equal(res.status, 200, "402s are not retries: maxRetries 0 still waits them out");
    assert.deepEqual(waits, [25, 25]);
    const none = scripted([{ status: 402 }, { status: 200 }]);
    await assert.rejects(client(none.fetchImpl, { billingMaxPauseMs: 0 }).request(post()), (e: Error) => {
      assert.ok(e instanceof TinkerBillingError);
      assert.match(e.message, /kept refusing for 0 s;/);
      return true;
    });
    assert.equal(none.sent.length, 1, "a pause of 0 is spent at the first 402");
  });

  it("never waits past the billing pause: the last poll is what is left of it", async () => {
    const s = scripted([{ status: 402 }]);
    await assert.rejects(
      client(s.fetchImpl, { billingPollMs: 80, billingMaxPauseMs: 100 }).request(post()),
      (e: Error) => e instanceof TinkerBillingError && /kept refusing for 0 s;/.test(e.message),
    );
    assert.deepEqual(waits, [80, 20]);
    assert.equal(s.sent.length, 3);
  });

  it("a 402 pause starts again after an answer that is not 402", async () => {
    // 402 ×3 (60 ms of a 100 ms pause), a 503, then 402 ×3 again: each incident on its own fits.
    const steps: Step[] = [402, 402, 402, 503, 402, 402, 402, 200].map((status) => ({ status }));
    const s = scripted(steps);
    const res = await client(s.fetchImpl, { billingPollMs: 30, billingMaxPauseMs: 100 }).request(post());
    assert.equal(res.status, 200);
    assert.equal(s.sent.length, 8);
  });

  it("connection failures are retried with back-off, then end in one line naming the base URL and the cause", async () => {
    const s = scripted([refused()]);
    await assert.rejects(client(s.fetchImpl, { maxRetries: 2 }).request(post()), (e: Error) => {
      assert.ok(e instanceof TinkerConnectionError);
      assert.equal(
        e.message,
        `cannot reach the Tinker service at ${BASE}/ (/api/v1/x: fetch failed: connect ECONNREFUSED 127.0.0.1:1); ` +
          "check TINKER_BASE_URL (unset it for the hosted service) and the network, then rerun",
      );
      return true;
    });
    assert.equal(s.sent.length, 3);
    assert.equal(waits.length, 2);
    assert.ok(waits[0] <= 10 && waits[1] > 10 && waits[1] <= 20, `${waits}`);
  });

  it("connectRetries bounds the retries when nothing answers; a server that answered before is 'lost'", async () => {
    let s = scripted([refused()]);
    await assert.rejects(client(s.fetchImpl).request(post({ connectRetries: 1 })), TinkerConnectionError);
    assert.equal(s.sent.length, 2);
    s = scripted([refused()]);
    await assert.rejects(client(s.fetchImpl).request(post({ connectRetries: 0 })), TinkerConnectionError);
    assert.equal(s.sent.length, 1);
    s = scripted((n) => (n === 0 ? { status: 200 } : refused()));
    const http = client(s.fetchImpl, { maxRetries: 0 });
    assert.equal(http.answered, false);
    await http.request(post());
    assert.equal(http.answered, true);
    await assert.rejects(http.request(post()), (e: Error) => {
      return e instanceof TinkerConnectionError && e.lost && /stopped answering/.test(e.message);
    });
  });

  it("a server unreachable for unreachableMs is given up on, whatever retries are left", async () => {
    let s = scripted([refused()]);
    await assert.rejects(client(s.fetchImpl, { unreachableMs: 0 }).request(post()), TinkerConnectionError);
    assert.equal(s.sent.length, 1);
    s = scripted([refused(), refused(), refused(), refused(), { status: 200 }]);
    await assert.rejects(client(s.fetchImpl, { unreachableMs: 22 }).request(post()), TinkerConnectionError);
    assert.equal(s.sent.length, 3, "the back-offs (7.5–10, then 15–20 ms) pass 22 ms by the third failure");
    // Unreachable time counts from the first failure of a run of them: an answer in between resets it.
    s = scripted((n) => (n % 2 === 0 ? refused() : { status: 503 }));
    await assert.rejects(
      client(s.fetchImpl, { unreachableMs: 20, baseDelayMs: 15, maxDelayMs: 15, maxRetries: 5 }).request(post()),
      TinkerApiError,
    );
    assert.equal(s.sent.length, 6, "all retries used");
  });

  it("a request past its timeout is a connection failure that says it timed out", async () => {
    const hang = (async (_input: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason as Error));
      })) as typeof fetch;
    await assert.rejects(client(hang).request(post({ timeoutMs: 5, retry: false })), (e: Error) => {
      return e instanceof TinkerConnectionError && e.message.includes("(/api/v1/x: timed out)");
    });
  });

  it("the caller's abort ends the request with its reason, not a connection error", async () => {
    const controller = new AbortController();
    const reason = new Error("stopped by the user");
    const hang = (async (_input: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        if (init?.signal?.aborted) reject(new Error("aborted"));
        init?.signal?.addEventListener("abort", () => reject(new Error("aborted")));
      })) as typeof fetch;
    const pending = client(hang).request(post({ signal: controller.signal }));
    controller.abort(reason);
    await assert.rejects(pending, (e: Error) => e === reason);
    // …also where no retry would follow.
    const once = new AbortController();
    const single = client(hang).request(post({ signal: once.signal, retry: false }));
    once.abort(reason);
    await assert.rejects(single, (e: Error) => e === reason);
    // …also while waiting to retry.
    const c2 = new AbortController();
    realTimeouts();
    const s = scripted([{ status: 503 }]);
    const waiting = client(s.fetchImpl, { baseDelayMs: 5_000, maxDelayMs: 5_000 }).request(post({ signal: c2.signal }));
    await new Promise((r) => realSetTimeout(r, 20));
    c2.abort(reason);
    await assert.rejects(waiting, (e: Error) => e === reason);
    assert.equal(s.sent.length, 1);
  });

  it("json() of a body that is not JSON is an API error quoting at most 200 characters, redacted", async () => {
    const body = `<html>${KEY}${"x".repeat(300)}`;
    const s = scripted([{ status: 200, body }]);
    const res = await client(s.fetchImpl).request(post());
    assert.throws(
      () => res.json(),
      (e: Error) => {
        assert.ok(e instanceof TinkerApiError);
        assert.equal(e.status, 200);
        assert.equal(
          e.message,
          // The first 200 characters, then redacted: the key inside them is still hidden.
          `Tinker /api/v1/x: HTTP 200 - response is not JSON: <html>[redacted]${"x".repeat(200 - 6 - KEY.length)}`,
        );
        return true;
      },
    );
  });
});

describe("tinker http: sleep and fetch errors", () => {
  it("sleep waits, and an abort ends it early with the signal's reason", async () => {
    const t0 = Date.now();
    await sleep(15);
    assert.ok(Date.now() - t0 >= 10);
    const c = new AbortController();
    const reason = new Error("cancel");
    const p = sleep(10_000, c.signal);
    c.abort(reason);
    await assert.rejects(p, (e: Error) => e === reason);
    await assert.rejects(sleep(10_000, c.signal), (e: Error) => e === reason, "already aborted: at once");
    const plain = new AbortController();
    plain.abort();
    await assert.rejects(sleep(10_000, plain.signal), (e: Error) => e.name === "AbortError");
  });

  it("describeFetchError says a failed fetch in one line, naming the cause's code once", () => {
    const timeout = Object.assign(new Error("The operation was aborted due to timeout"), { name: "TimeoutError" });
    assert.equal(describeFetchError(timeout), "timed out");
    const withCode = new TypeError("fetch failed", {
      cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
    });
    assert.equal(describeFetchError(withCode), "fetch failed: ECONNRESET socket hang up");
    const codeInMessage = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED ::1"), { code: "ECONNREFUSED" }),
    });
    assert.equal(describeFetchError(codeInMessage), "fetch failed: connect ECONNREFUSED ::1");
    assert.equal(describeFetchError(new TypeError("fetch failed", { cause: new Error("bad") })), "fetch failed: bad");
    assert.equal(describeFetchError(new TypeError("fetch failed", { cause: "text" })), "fetch failed");
    assert.equal(describeFetchError(new Error("plain")), "plain");
    assert.equal(describeFetchError("a string"), "a string");
  });
});
