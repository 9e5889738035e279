/**
 * Reliability: the local backend (src/server, in this process) killed while a client waits on it.
 * A training step's future and a sample each give up once the server has answered nothing for the
 * policy's bound, with one line naming the backend's URL (they polled, or re-submitted, for ever:
 * train-sft hung 6+ minutes, eval 150 s), and the CLI adds how to resume for a command that can.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import { TinkerService, type RetryPolicy } from "../../../src/core/base/tinker";
import { TinkerConnectionError } from "../../../src/core/base/tinker/errors";
import { sftDatum } from "../../../src/core/base/tinker/wire";
import { describeFailure } from "../../../src/cli/run-command";

const BOUND_MS = 1_000;
const RETRY: Partial<RetryPolicy> = {
  baseDelayMs: 5,
  maxDelayMs: 20,
  pollBaseDelayMs: 5,
  pollMaxDelayMs: 50,
  unreachableMs: BOUND_MS,
};

/** The one line a client gets once `url` stopped answering while it polled `endpoint`. */
const expectedLine = (url: string, endpoint: string, cause: RegExp) =>
  new RegExp(
    `^the Tinker service at ${url.replace(/[.]/g, "\\.")}/ stopped answering \\(${endpoint}: ${cause.source}\\); ` +
      "check that it is still running \\(a local backend: the job or terminal that started it\\) and the network, then rerun$",
  );

describe("reliability: the local backend killed mid-run", function () {
  this.timeout(30_000);
  let dir: string;
  let backend: RunningLocalBackend;
  let service: TinkerService;
  let release: () => void = () => undefined;
  const held = new Set<string>();
  let asked: (kind: string) => void = () => undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-backend-killed-"));
    held.clear();
    const gate = new Promise<void>((r) => (release = r));
    backend = await startLocalBackend({
      dir,
      seed: 7,
      longPollMs: 200,
      log: () => undefined,
      // The operation under test never finishes: the client is polling when the server dies.
      testSeam: {
        beforeResult: (kind) => {
          if (!held.has(kind)) return Promise.resolve();
          asked(kind);
          return gate;
        },
      },
    });
    service = new TinkerService({ apiKey: "tml-local-test", baseUrl: backend.url, env: {}, retry: RETRY });
  });
  afterEach(async () => {
    release();
    service.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Kills the backend once an operation of `kind` is pending; resolves when it is down. */
  const killWhenPending = (kind: string) => {
    held.add(kind);
    return new Promise<void>((resolve) => {
      asked = (k) => {
        if (k === kind) void backend.close().then(resolve);
      };
    });
  };

  it("a forward_backward being polled fails after the bound with one line naming the backend", async () => {
    const tc = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
    const killed = killWhenPending("forward_backward");
    const fb = tc.forwardBackward([sftDatum([101, 102, 103, 104], [0, 0, 1, 1])], "cross_entropy");
    await killed;
    const since = Date.now();
    await assert.rejects(fb.result(), (e: unknown) => {
      assert.ok(e instanceof TinkerConnectionError, String(e));
      assert.match(
        e.message,
        expectedLine(backend.url, "retrieve_future", /fetch failed: connect ECONNREFUSED [0-9.:]+, unanswered for 1 s/),
      );
      return true;
    });
    const waited = Date.now() - since;
    assert.ok(waited >= BOUND_MS / 2 && waited < BOUND_MS + 3_000, `gave up after ${waited} ms`);
  });

  it("a sample being polled fails after the bound too (not sampling's two-hour stuck timer)", async () => {
    const tc = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 8 });
    const sc = await tc.saveWeightsAndGetSamplingClient().result();
    const killed = killWhenPending("sample");
    const sample = sc.sample({ prompt: [101, 102], maxTokens: 4, numSamples: 1, seed: 1 });
    await killed;
    const since = Date.now();
    await assert.rejects(sample.result(), (e: unknown) => {
      assert.ok(e instanceof TinkerConnectionError, String(e));
      assert.match(e.message, /^the Tinker service at http:\/\/127\.0\.0\.1:\d+\/ stopped answering \(/);
      assert.equal(e.lost, true);
      return true;
    });
    const waited = Date.now() - since;
    assert.ok(waited < 2 * BOUND_MS + 3_000, `gave up after ${waited} ms`);
  });

  it("the CLI's line says how to resume for a command that can (and only once the service was lost mid-run)", () => {
    const e = new TinkerConnectionError("retrieve_future", "fetch failed", "http://127.0.0.1:8765/", true);
    const line =
      "the Tinker service at http://127.0.0.1:8765/ stopped answering (retrieve_future: fetch failed); " +
      "check that it is still running (a local backend: the job or terminal that started it) and the network, then rerun";
    for (const command of ["train-sft", "train-grpo", "eval"])
      assert.equal(
        describeFailure(command, e).text,
        `agent-lab ${command}: ${line}; what it wrote is kept: the same command plus --resume continues it`,
      );
    assert.equal(describeFailure("ckpt", e).text, `agent-lab ckpt: ${line}`);
    const neverReached = new TinkerConnectionError("/api/v1/client/config", "fetch failed", "http://127.0.0.1:8765/");
    assert.equal(
      describeFailure("eval", neverReached).text,
      "agent-lab eval: cannot reach the Tinker service at http://127.0.0.1:8765/ (/api/v1/client/config: fetch failed); " +
        "check TINKER_BASE_URL (unset it for the hosted service) and the network, then rerun",
    );
  });
});
