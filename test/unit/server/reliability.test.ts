/**
 * Reliability of the local backend over loopback, bounded to run in CI: hostile and malformed
 * requests refused with one exact message (category "user") and leaving no state; healthz and
 * other sessions answering while a long sample runs; SIGTERM stopping serve-local at once; a soak
 * of a few thousand small requests with RSS and every collection bounded; greedy sampling that is
 * byte-identical whatever ran in between and across a restart; several processes starting the
 * workspace's backend at once.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isLocalBackend, startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import { decodeSampleResponse, encodeForwardBackwardRequest } from "../../../src/core/base/tinker/wire/codec";
import { sftDatum } from "../../../src/core/base/tinker/wire/builders";
import { startCli, waitFor } from "../cli/cli-process";
import { freePort } from "../../helpers/local-backend";

interface Reply {
  status: number;
  json?: Record<string, unknown>;
  bytes?: Uint8Array;
}

async function send(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const isBytes = body instanceof Uint8Array;
  const res = await fetch(`${url}/api/v1/${path}`, {
    method,
    headers: { "Content-Type": isBytes ? "application/x-protobuf" : "application/json", ...headers },
    body:
      body === undefined
        ? undefined
        : isBytes
          ? (body as Uint8Array<ArrayBuffer>)
          : typeof body === "string"
            ? body
            : JSON.stringify(body),
  });
  const buf = new Uint8Array(await res.arrayBuffer());
  if ((res.headers.get("content-type") ?? "").includes("protobuf")) return { status: res.status, bytes: buf };
  const text = Buffer.from(buf).toString("utf8");
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

async function ok(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await send(url, "POST", path, body);
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.json)}`);
  return r.json!;
}

async function result(url: string, requestId: string): Promise<Reply> {
  for (;;) {
    const r = await send(url, "POST", "retrieve_future", { request_id: requestId, allow_metadata_only: true });
    if (r.json?.type !== "try_again") return r;
  }
}

const sampleBody = (sampler: string, prompt: number[], params: Record<string, unknown>, seq?: number) => ({
  num_samples: 1,
  prompt: { chunks: [{ tokens: prompt, type: "encoded_text" }] },
  sampling_params: { temperature: 0, top_k: -1, top_p: 1, ...params },
  sampling_session_id: sampler,
  seq_id: seq,
  prompt_logprobs: false,
  topk_prompt_logprobs: 0,
  type: "sample",
});

async function sampleBytes(
  url: string,
  sampler: string,
  prompt: number[],
  params: Record<string, unknown>,
): Promise<Uint8Array> {
  const f = await ok(url, "asample", sampleBody(sampler, prompt, params));
  const r = await result(url, f.request_id as string);
  assert.ok(r.bytes, `sample failed: ${JSON.stringify(r.json)}`);
  return r.bytes;
}

async function newSession(url: string): Promise<string> {
  return (
    await ok(url, "create_session", { tags: [], user_metadata: {}, sdk_version: "0.25.0", type: "create_session" })
  ).session_id as string;
}

async function newModel(url: string, session: string, seq = 0): Promise<string> {
  const f = await ok(url, "create_model", {
    session_id: session,
    model_seq_id: seq,
    base_model: "Qwen/Qwen3.5-4B",
    lora_config: { rank: 4 },
    type: "create_model",
  });
  return f.model_id as string;
}

async function baseSampler(url: string, session: string, seq = 0): Promise<string> {
  return (
    await ok(url, "create_sampling_session", {
      session_id: session,
      sampling_session_seq_id: seq,
      base_model: "Qwen/Qwen3.5-4B",
      type: "create_sampling_session",
    })
  ).sampling_session_id as string;
}

const MB = 1024 * 1024;

describe("server/reliability", function () {
  this.timeout(60_000);
  let dir: string;
  let server: RunningLocalBackend;
  let url: string;
  let session: string;
  let model: string;
  let sampler: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "local-backend-reliability-"));
    server = await startLocalBackend({ dir, seed: 0, longPollMs: 2_000 });
    url = server.url;
    session = await newSession(url);
    model = await newModel(url, session);
    sampler = await baseSampler(url, session);
    await sampleBytes(url, sampler, [1, 2, 3], { max_tokens: 1 });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses malformed and hostile requests with one exact message, category user, and keeps no state from them", async () => {
    const fbJson = (data: unknown) => ({ model_id: model, seq_id: 1, loss_fn: "cross_entropy", data });
    const sparseTargets = (rows: number, cols: number, column = 0) =>
      encodeForwardBackwardRequest({
        model_id: model,
        seq_id: 1,
        loss_fn: "cross_entropy",
        data: [
          {
            model_input: { chunks: [{ type: "encoded_text", tokens: [1, 2, 3] }] },
            loss_fn_inputs: {
              target_tokens: {
                data: [5],
                dtype: "int64",
                shape: [rows, cols],
                sparse_crow_indices: [0, 1, ...Array(rows - 1).fill(1)],
                sparse_col_indices: [column],
              },
              weights: { data: [1, 1, 1], dtype: "float32" },
            },
          },
        ],
      });
    const cases: Array<{
      what: string;
      method?: string;
      path: string;
      body?: unknown;
      headers?: Record<string, string>;
      status?: number;
      detail: string | RegExp;
    }> = [
      {
        what: "malformed URI escape",
        method: "GET",
        path: "samplers/%E0%A4%A",
        detail: "malformed URI escape in /api/v1/samplers/%E0%A4%A",
      },
      {
        what: "JSON forward_backward without data",
        path: "forward_backward",
        body: { model_id: model, seq_id: 1, loss_fn: "cross_entropy" },
        detail: "forward_backward.data is required (a non-empty array of datums), got undefined",
      },
      {
        what: "sampling seed that is not a number",
        path: "asample",
        body: sampleBody(sampler, [1, 2, 3], { max_tokens: 2, seed: "abc" }),
        detail: 'asample.sampling_params.seed must be an integer, got "abc"',
      },
      {
        what: "max_tokens past the context",
        path: "asample",
        body: sampleBody(sampler, [1, 2, 3], { max_tokens: 1_000_000_000 }),
        detail:
          "asample.sampling_params.max_tokens 1000000000 with a prompt of 3 tokens exceeds the local model's context of 8192 tokens; ask for at most 8189",
      },
      {
        what: "sparse target_tokens claiming [8000, 8000]",
        path: "forward_backward",
        body: sparseTargets(8000, 8000),
        detail:
          "forward_backward.data[0].loss_fn_inputs.target_tokens has shape [8000,8000], but model_input has 3 tokens (expected [3] or [3, K] with 1 ≤ K ≤ 64)",
      },
      {
        what: "sparse target_tokens claiming [100000, 100000]",
        path: "forward_backward",
        body: sparseTargets(100_000, 100_000),
        detail:
          "forward_backward.data[0].loss_fn_inputs.target_tokens has shape [100000,100000], but model_input has 3 tokens (expected [3] or [3, K] with 1 ≤ K ≤ 64)",
      },
      {
        // Columns are 0 … cols − 1: the first one past the end would write into the next row.
        what: "sparse target_tokens with a column index equal to the number of columns",
        path: "forward_backward",
        body: sparseTargets(3, 2, 2),
        detail: "forward_backward.data[0].loss_fn_inputs.target_tokens.sparse_col_indices: 2 is not a column of 2",
      },
      {
        what: "dense tensor whose data does not fill its shape",
        path: "forward_backward",
        body: fbJson([
          {
            model_input: { chunks: [{ type: "encoded_text", tokens: [1, 2] }] },
            loss_fn_inputs: {
              target_tokens: { data: [2], dtype: "int64", shape: [2] },
              weights: { data: [1, 1], dtype: "float32" },
            },
          },
        ]),
        detail: "forward_backward.data[0].loss_fn_inputs.target_tokens has 1 values for shape [2] (2 expected)",
      },
      {
        what: "token id outside the vocabulary",
        path: "asample",
        body: sampleBody(sampler, [1, 262_144], { max_tokens: 1 }),
        detail:
          "asample.prompt.chunks[0].tokens: token id 262144 is outside the local model's vocabulary (0 ≤ id < 262144)",
      },
      {
        what: "stop strings without a tokenizer",
        path: "asample",
        body: sampleBody(sampler, [1], { max_tokens: 1, stop: ["\n"] }),
        detail:
          "asample.sampling_params.stop: stop strings need a tokenizer, and the local backend has none; pass stop token ids instead",
      },
      {
        what: "too many samples",
        path: "asample",
        body: { ...sampleBody(sampler, [1], { max_tokens: 1 }), num_samples: 1000 },
        detail: "asample.num_samples must be between 1 and 64, got 1000",
      },
      {
        what: "a 1 MB session id",
        path: "create_model",
        body: { session_id: "s".repeat(MB), model_seq_id: 0, base_model: "Qwen/Qwen3.5-4B", lora_config: { rank: 4 } },
        detail: `create_model.session_id is ${MB} characters long; the local backend accepts at most 256`,
      },
      {
        what: "create_model refused after naming a new session",
        path: "create_model",
        body: {
          session_id: "sess-never-registered",
          model_seq_id: 0,
          base_model: "Qwen/Qwen3.5-4B",
          lora_config: { rank: "big" },
        },
        detail: 'create_model.lora_config.rank must be an integer, got "big"',
      },
      {
        what: "a seq_id far ahead (would park forever)",
        path: "optim_step",
        body: { model_id: model, seq_id: 1_000_000_000, adam_params: { learning_rate: 0.01 } },
        detail: `seq_id 1000000000 is 999999999 ahead of the next operation of ${model} (seq_id 1); the local backend queues at most 4096 ahead, so send the missing ones first`,
      },
      {
        what: "a body that is not JSON",
        path: "create_model",
        body: "{not json",
        detail: /^create_model: body is not JSON \(/,
      },
      {
        what: "a JSON array body",
        path: "optim_step",
        body: [1, 2],
        detail: "optim_step body must be a JSON object, got [1,2]",
      },
      {
        what: "an image chunk",
        path: "asample",
        body: {
          ...sampleBody(sampler, [1], { max_tokens: 1 }),
          prompt: { chunks: [{ type: "image", data: "", format: "png" }] },
        },
        detail: 'asample.prompt.chunks[0]: the local backend reads text only, got a "image" chunk',
      },
      {
        what: "an over-long idempotency key",
        path: "create_session",
        body: {},
        headers: { "X-Idempotency-Key": "k".repeat(300) },
        detail: "X-Idempotency-Key is 300 characters long; the local backend accepts at most 256",
      },
      {
        what: "an unknown endpoint",
        path: "no_such_thing",
        body: {},
        status: 404,
        detail: "the local backend has no POST /api/v1/no_such_thing",
      },
    ];
    const before = server.backend.stats();
    const rss = process.memoryUsage().rss;
    for (const c of cases) {
      const t0 = performance.now();
      const r = await send(url, c.method ?? "POST", c.path, c.body, c.headers);
      assert.ok(performance.now() - t0 < 2_000, `${c.what}: took ${performance.now() - t0} ms`);
      assert.equal(r.status, c.status ?? 400, `${c.what}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json?.category, "user", c.what);
      if (typeof c.detail === "string") assert.equal(r.json?.detail, c.detail, c.what);
      else assert.match(String(r.json?.detail), c.detail, c.what);
    }
    assert.deepEqual(server.backend.stats(), before, "a refused request changed the server's state");
    assert.equal((await send(url, "GET", "sessions/sess-never-registered")).status, 404);
    const listed = (await send(url, "GET", "sessions?limit=1000")).json!.sessions as string[];
    assert.ok(listed.every((id) => id.length <= 256));
    assert.ok(process.memoryUsage().rss - rss < 200 * MB, `RSS grew ${(process.memoryUsage().rss - rss) / MB} MB`);
  });

  it("refuses a body over the size limit from its Content-Length, before reading it", async () => {
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${url}/api/v1/forward_backward`,
        { method: "POST", headers: { "Content-Type": "application/json", "Content-Length": String(40 * MB) } },
        (res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.flushHeaders();
    });
    assert.equal(r.status, 413);
    assert.deepEqual(JSON.parse(r.body), {
      detail: `request body of ${40 * MB} bytes is larger than the local backend's limit of ${32 * MB} bytes`,
      category: "user",
    });
  });

  it("answers healthz within 100 ms and serves another session while a long sample runs", async () => {
    // Its own server, so the long sample's work ends with this test.
    const busyDir = mkdtempSync(join(tmpdir(), "local-backend-busy-"));
    const busy = await startLocalBackend({ dir: busyDir, seed: 0, longPollMs: 2_000 });
    try {
      await longSampleUnderLoad(busy.url);
    } finally {
      await busy.close();
      rmSync(busyDir, { recursive: true, force: true });
    }
  });

  async function longSampleUnderLoad(url: string): Promise<void> {
    const sampler = await baseSampler(url, await newSession(url));
    // The longest sample the context allows, on the slow path (tempered, truncated): seconds of work.
    const long = await ok(
      url,
      "asample",
      sampleBody(sampler, [1, 2, 3], { max_tokens: 8000, temperature: 0.7, top_p: 0.9, seed: 1 }),
    );
    await new Promise((r) => setTimeout(r, 200));
    const latencies: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t0 = performance.now();
      const r = await send(url, "GET", "healthz");
      latencies.push(performance.now() - t0);
      assert.equal(r.status, 200);
    }
    latencies.sort((a, b) => a - b);
    // The probe a second job uses to decide whether to reuse this backend answers too.
    assert.equal(await isLocalBackend(url), true);
    const p95 = latencies[Math.floor(latencies.length * 0.95)];
    assert.ok(
      p95 < 100,
      `healthz p95 ${p95.toFixed(1)} ms under load (all: ${latencies.map((x) => x.toFixed(0)).join(",")})`,
    );
    // Another session's short sample is served between slices of the long one.
    const other = await baseSampler(url, await newSession(url));
    const t0 = performance.now();
    await sampleBytes(url, other, [4, 5, 6], { max_tokens: 4 });
    assert.ok(
      performance.now() - t0 < 3_000,
      `a short sample waited ${(performance.now() - t0).toFixed(0)} ms behind a long one`,
    );
    const pending = await send(url, "POST", "retrieve_future", {
      request_id: long.request_id,
      allow_metadata_only: true,
    });
    assert.equal(pending.json?.type, "try_again", "the long sample should still be running");
  }

  it("stays bounded under a soak of thousands of small requests", async function () {
    this.timeout(60_000);
    const soakSampler = await baseSampler(url, await newSession(url));
    const warm = process.memoryUsage().rss;
    let seq = 0;
    const worker = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const s = seq++;
        if (s % 2 === 0) {
          await sampleBytes(url, soakSampler, [s % 5000, 7, 8], { max_tokens: 2, temperature: 1, seed: s });
        } else {
          // A refused request costs nothing to keep.
          const r = await send(url, "POST", "asample", sampleBody(soakSampler, [1], { max_tokens: 10 ** 9 }));
          assert.equal(r.status, 400);
        }
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 8 }, () => worker(200)));
    const grown = (process.memoryUsage().rss - warm) / MB;
    const stats = server.backend.stats();
    console.log(
      `      soak: ${seq} requests (+${seq / 2} polls) in ${((performance.now() - t0) / 1000).toFixed(1)} s, RSS +${grown.toFixed(0)} MB, ${JSON.stringify(stats)}`,
    );
    assert.ok(grown < 150, `RSS grew ${grown.toFixed(0)} MB over the soak`);
    assert.ok(stats.futures <= 4_000, `${stats.futures} futures kept`);
    assert.ok(stats.sessions < 10, `${stats.sessions} sessions`);
  });
});

describe("server/reliability: reproducible greedy sampling", function () {
  this.timeout(60_000);

  it("gives byte-identical greedy samples on a fresh or reused server, after requests with many new token ids, and after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "local-backend-greedy-"));
    const freshDir = mkdtempSync(join(tmpdir(), "local-backend-greedy-fresh-"));
    const prompts = [
      [151644, 872, 198, 3838, 374],
      [151644, 77091, 198, 785, 6722, 13, 785],
      [9, 8, 7, 6, 5, 4, 3],
    ];
    const greedy = async (u: string, s: string) =>
      Promise.all(prompts.map((p) => sampleBytes(u, s, p, { max_tokens: 12 })));
    let server = await startLocalBackend({ dir, seed: 0 });
    try {
      const session = await newSession(server.url);
      const model = await newModel(server.url, session);
      const seq = [151644, 872, 198, 3838, 374, 279, 6722, 30, 151645, 198, 151644, 77091, 198, 785, 6722, 13];
      const fb = await ok(
        server.url,
        "forward_backward",
        encodeForwardBackwardRequest({
          model_id: model,
          seq_id: 1,
          data: [
            sftDatum(
              seq,
              seq.map((_, i) => (i >= 12 ? 1 : 0)),
            ),
          ],
          loss_fn: "cross_entropy",
        }),
      );
      await result(server.url, fb.request_id as string);
      const opt = await ok(server.url, "optim_step", {
        model_id: model,
        seq_id: 2,
        adam_params: { learning_rate: 0.05 },
      });
      await result(server.url, opt.request_id as string);
      const saved = await ok(server.url, "save_weights_for_sampler", { model_id: model, path: "trained", seq_id: 3 });
      const path = (await result(server.url, saved.request_id as string)).json!.path as string;
      const trained = (
        await ok(server.url, "create_sampling_session", {
          session_id: session,
          sampling_session_seq_id: 10,
          model_path: path,
        })
      ).sampling_session_id as string;
      const base = await baseSampler(server.url, session, 11);
      const first = await greedy(server.url, trained);
      const firstBase = await greedy(server.url, base);
      // Another "eval" in between, full of ids nobody used before.
      const noisy = Array.from({ length: 6000 }, (_, i) => (i * 7919 + 13) % 262_144);
      await sampleBytes(server.url, trained, noisy.slice(0, 4000), { max_tokens: 8, temperature: 1, seed: 3 });
      await sampleBytes(server.url, base, noisy.slice(2000), { max_tokens: 8, temperature: 1, seed: 4 });
      assert.deepEqual(await greedy(server.url, trained), first, "greedy samples changed after another request");
      assert.deepEqual(await greedy(server.url, base), firstBase);
      await server.close();
      server = await startLocalBackend({ dir, seed: 0 });
      const again = await newSession(server.url);
      const reloaded = (
        await ok(server.url, "create_sampling_session", {
          session_id: again,
          sampling_session_seq_id: 0,
          model_path: path,
        })
      ).sampling_session_id as string;
      assert.deepEqual(await greedy(server.url, reloaded), first, "greedy samples changed across a restart");
      const fresh = await startLocalBackend({ dir: freshDir, seed: 0 });
      try {
        assert.deepEqual(
          await greedy(fresh.url, await baseSampler(fresh.url, await newSession(fresh.url))),
          firstBase,
          "a fresh server's base model differs",
        );
      } finally {
        await fresh.close();
      }
      const decoded = decodeSampleResponse(first[0]);
      assert.equal(decoded.sequences[0].tokens.length, 12);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(freshDir, { recursive: true, force: true });
    }
  });
});

describe("server/reliability: processes", function () {
  this.timeout(60_000);

  it("several processes starting the workspace's backend at once: one starts it, the others reuse it, none fails", async () => {
    const dir = mkdtempSync(join(tmpdir(), "local-backend-race-"));
    try {
      const port = await freePort();
      const child = join(__dirname, "start-or-reuse-child.ts");
      const runs = Array.from(
        { length: 3 },
        () =>
          new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
            const p = spawn(process.execPath, ["--import", "tsx", child, dir, String(port), "2500"], {
              stdio: ["ignore", "pipe", "pipe"],
            });
            let out = "";
            let err = "";
            p.stdout.on("data", (d: Buffer) => (out += d.toString()));
            p.stderr.on("data", (d: Buffer) => (err += d.toString()));
            p.on("close", (code) => resolve({ code, out, err }));
          }),
      );
      const results = await Promise.all(runs);
      for (const r of results) {
        assert.equal(r.code, 0, r.err);
        assert.equal(r.err, "");
      }
      const lines = results.map((r) => JSON.parse(r.out.trim()) as { started: boolean; url: string });
      assert.equal(lines.filter((l) => l.started).length, 1, JSON.stringify(lines));
      assert.deepEqual(new Set(lines.map((l) => l.url)), new Set([`http://127.0.0.1:${port}`]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serve-local stops within 2 s of SIGTERM while a long sample runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "serve-local-sigterm-"));
    try {
      const { child, done } = await startCli(["serve-local", "--port", "0", "--dir", dir]);
      let out = "";
      child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
      await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 30_000, "the listening line");
      const cliUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
      const s = await baseSampler(cliUrl, await newSession(cliUrl));
      await ok(cliUrl, "asample", sampleBody(s, [1, 2, 3], { max_tokens: 8000, temperature: 0.7, top_p: 0.9 }));
      await new Promise((r) => setTimeout(r, 500));
      assert.equal((await send(cliUrl, "GET", "healthz")).status, 200);
      const t0 = performance.now();
      child.kill("SIGTERM");
      const r = await done;
      const took = performance.now() - t0;
      assert.ok(took < 2_000, `SIGTERM took ${took.toFixed(0)} ms`);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /SIGTERM: shutting down/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
