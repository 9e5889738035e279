/**
 * The local backend's test seam is off unless asked for: without it there is no /auth/token and
 * the client config is the server's own; with it, hooks that return nothing change nothing.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientConfig, startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import type { ObservedRequest } from "../../../src/server/test-seam";

async function post(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/api/v1/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("server/test-seam", function () {
  this.timeout(20_000);
  let dir: string;
  let running: RunningLocalBackend | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-seam-"))));
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("without a seam: no auth route, the server's own client config", async () => {
    running = await startLocalBackend({ dir, log: () => undefined });
    assert.equal((await post(running.url, "auth/token", {})).status, 404);
    assert.deepEqual((await post(running.url, "client/config", { sdk_version: "0.25.0" })).json, clientConfig());
  });

  it("with a seam: sees requests, scripts answers, and hooks that return nothing leave the server as it is", async () => {
    const seen: ObservedRequest[] = [];
    let jwt: string | undefined;
    running = await startLocalBackend({
      dir,
      log: () => undefined,
      testSeam: {
        observe: (r) => seen.push(r),
        script: (r) =>
          r.path === "/api/v1/create_session" && seen.length === 1
            ? { status: 418, json: { detail: "scripted" } }
            : undefined,
        clientConfig: () => ({ sample_no_retries: true }),
        authToken: () => jwt,
      },
    });
    assert.deepEqual(await post(running.url, "create_session", { tags: [] }), {
      status: 418,
      json: { detail: "scripted" },
    });
    assert.match(String((await post(running.url, "create_session", { tags: [] })).json.session_id), /^sess-/);
    assert.deepEqual(
      seen.map((r) => [r.method, r.path, r.json]),
      [
        ["POST", "/api/v1/create_session", { tags: [] }],
        ["POST", "/api/v1/create_session", { tags: [] }],
      ],
    );
    assert.equal((await post(running.url, "auth/token", {})).status, 404);
    jwt = "header.payload.sig";
    assert.deepEqual((await post(running.url, "auth/token", {})).json, { jwt });
    assert.deepEqual((await post(running.url, "client/config", {})).json, {
      ...clientConfig(),
      sample_no_retries: true,
    });
  });
});
