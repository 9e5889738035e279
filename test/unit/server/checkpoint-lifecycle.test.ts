/**
 * The local backend's checkpoint lifecycle and billing REST surface (spec §2.1 rows 21–35, §6),
 * driven with the project's TypeScript client and, for the refusals, with plain requests so the
 * exact status and detail are checked: list/info, TTL (stored, reported, expired ones gone),
 * publish/unpublish, archive URL that serves a real tar, delete, billing usage in hour buckets.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import { TinkerService } from "../../../src/core/base/tinker";
import { downloadCheckpoint } from "../../../src/core/base/tinker/checkpoint-download";
import { sftDatum } from "../../../src/core/base/tinker/wire/builders";
import { readTar, writeTar } from "../../../src/core/base/util/tar";
import { UsageMeter } from "../../../src/server/usage-meter";

const HOUR = 3_600_000;
const hour = (ms: number) => new Date(Math.floor(ms / HOUR) * HOUR);

describe("server/checkpoint-lifecycle", function () {
  this.timeout(60_000);
  let dir: string;
  let server: RunningLocalBackend;
  let service: TinkerService;
  let statePath: string;
  let samplerPath: string;
  let runId: string;

  const raw = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}/api/v1/${path}`, {
      method,
      headers: { "content-type": "application/json", "X-API-Key": "tml-local" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const meta = (path: string) =>
    service.listCheckpoints(runId).then((r) => r.checkpoints.find((c) => c.tinker_path === path));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "local-backend-lifecycle-"));
    server = await startLocalBackend({ dir, seed: 0, longPollMs: 2_000 });
    service = new TinkerService({ apiKey: "tml-local", baseUrl: server.url, log: () => {} });
    const trainer = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 4 });
    runId = trainer.modelId;
    await trainer.forwardBackward([sftDatum([1, 2, 3, 4, 5], [0, 0, 1, 1, 1])], "cross_entropy").result();
    statePath = (await trainer.saveState("s1").result()).path;
    samplerPath = (await trainer.saveWeightsForSampler("s1").result()).path;
    const sampler = await service.createSamplingClient({ modelPath: samplerPath });
    await sampler.sample({ prompt: [1, 2, 3], numSamples: 2, maxTokens: 4, seed: 1 }).result();
  });
  after(async () => {
    service?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists runs and checkpoints (all, per run) with size, public false and no expiry", async () => {
    const runs = await service.listTrainingRuns();
    assert.deepEqual(
      runs.training_runs.map((r) => r.training_run_id),
      [runId],
    );
    assert.equal((await service.getTrainingRun(runId)).last_checkpoint?.tinker_path, statePath);
    const all = await service.listUserCheckpoints();
    assert.deepEqual(all.checkpoints.map((c) => c.tinker_path).sort(), [samplerPath, statePath].sort());
    const state = await meta(statePath);
    assert.equal(state?.public, false);
    assert.equal(state?.expires_at, undefined);
    assert.ok((state?.size_bytes ?? 0) > 0);
  });

  it("stores a TTL and reports it as expires_at; null removes it; an expired checkpoint is gone", async () => {
    const before = Date.now();
    await service.setCheckpointTtl(statePath, 7 * 86_400);
    const expires = Date.parse((await meta(statePath))!.expires_at!);
    assert.ok(Math.abs(expires - (before + 7 * 86_400_000)) < 5_000, String(expires - before));
    await service.setCheckpointTtl(statePath, null);
    assert.equal((await meta(statePath))!.expires_at, undefined);

    const doomed = await raw("PUT", `training_runs/${runId}/checkpoints/sampler_weights/s1/ttl`, { ttl_seconds: 1 });
    assert.equal(doomed.status, 200);
    await new Promise((r) => setTimeout(r, 1_100));
    assert.equal(await meta(samplerPath), undefined);
    assert.equal(existsSync(server.backend.store.checkpointDir({ runId, kind: "sampler_weights", name: "s1" })), false);
    const gone = await raw("GET", `training_runs/${runId}/checkpoints/sampler_weights/s1/archive`);
    assert.deepEqual(gone, {
      status: 404,
      json: { detail: `no checkpoint sampler_weights/s1 in ${runId}`, category: "user" },
    });
  });

  it("refuses a TTL ≤ 0 or not whole, changing nothing", async () => {
    await service.setCheckpointTtl(statePath, 3_600);
    const expires = (await meta(statePath))!.expires_at;
    for (const ttl of [0, -5, 1.5, "7d"]) {
      const res = await raw("PUT", `training_runs/${runId}/checkpoints/weights/s1/ttl`, { ttl_seconds: ttl });
      assert.equal(res.status, 400);
      assert.equal(
        res.json.detail,
        `ttl_seconds must be a whole number of seconds above 0, or null to remove the expiry; got ${JSON.stringify(ttl)}`,
      );
    }
    assert.equal((await meta(statePath))!.expires_at, expires);
    await service.setCheckpointTtl(statePath, null);
  });

  it("publishes and unpublishes (public flag stored and reported)", async () => {
    await service.setCheckpointPublished(statePath, true);
    assert.equal((await meta(statePath))!.public, true);
    await service.setCheckpointPublished(statePath, false);
    assert.equal((await meta(statePath))!.public, false);
  });

  it("answers the archive URL with one that serves a tar of the checkpoint's files; download extracts the same bytes", async () => {
    const { url } = await service.checkpointArchiveUrl(statePath);
    assert.match(url, new RegExp(`^${server.url}/api/v1/checkpoint_archives/`));
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/x-tar");
    const tar = Buffer.from(await res.arrayBuffer());
    assert.equal(Number(res.headers.get("content-length")), tar.length);
    const files = readTar(tar);
    const folder = server.backend.store.checkpointDir({ runId, kind: "weights", name: "s1" });
    assert.deepEqual(
      files.map((f) => f.name),
      ["checkpoint.json", "model.json", "optimizer.bin", "weights.bin"],
    );
    for (const f of files) assert.ok(Buffer.from(f.data).equals(readFileSync(join(folder, f.name))), f.name);

    const out = join(dir, "downloads");
    const seen: number[] = [];
    const result = await downloadCheckpoint(service, statePath, out, { onProgress: (p) => seen.push(p.bytes) });
    assert.equal(result.dir, join(out, `${runId}_weights_s1`));
    assert.equal(seen.at(-1), tar.length);
    for (const f of files) assert.ok(readFileSync(join(result.dir, f.name)).equals(Buffer.from(f.data)), f.name);
    await assert.rejects(downloadCheckpoint(service, statePath, out), {
      message: `${result.dir} exists; pass --force to replace it, or choose another --out folder`,
    });
  });

  it("meters usage and answers billing/usage/events in hour buckets", async () => {
    const start = hour(Date.now());
    const usage = await service.billingUsage(start, new Date(start.getTime() + HOUR));
    const total = (type: string) =>
      usage.data
        .filter((e) => e.event_info.type === type)
        .reduce((s, e) => {
          const i = e.event_info;
          return s + ("token_count" in i ? i.token_count : i.type === "checkpoint" ? i.count : 0);
        }, 0);
    assert.equal(total("training"), 4);
    assert.equal(total("sampling_prefill"), 3);
    assert.ok(total("sampling_sample") > 0 && total("sampling_sample") <= 8);
    assert.equal(total("checkpoint"), 2);
    assert.ok(usage.data.some((e) => e.event_info.type === "storage" && e.event_info.gigabyte_hours > 0));
    for (const e of usage.data) {
      assert.equal(e.bucket_start, start.toISOString());
      assert.equal(e.bucket_end, new Date(start.getTime() + HOUR).toISOString());
    }
    assert.ok(Object.keys(usage.sessions).length >= 1);
  });

  it("refuses billing windows as Tinker does: not hour-aligned, longer than 14 days, reversed, in the future, missing", async () => {
    const h = hour(Date.now()).getTime();
    const iso = (ms: number) => new Date(ms).toISOString();
    const q = (s: string, e: string) => `billing/usage/events?starting_on=${s}&ending_before=${e}`;
    const cases: [string, string][] = [
      [q(iso(h + 60_000), iso(h + HOUR)), `starting_on must be aligned to a UTC hour boundary, got ${iso(h + 60_000)}`],
      [
        q(iso(h - 15 * 24 * HOUR), iso(h)),
        `the window from ${iso(h - 15 * 24 * HOUR)} to ${iso(h)} is longer than 14 days`,
      ],
      [q(iso(h), iso(h - HOUR)), `ending_before (${iso(h - HOUR)}) must be after starting_on (${iso(h)})`],
      [q(iso(h + 2 * HOUR), iso(h + 3 * HOUR)), `starting_on (${iso(h + 2 * HOUR)}) is in the future`],
      ["billing/usage/events", "billing usage needs starting_on (an RFC 3339 time on a UTC hour boundary)"],
    ];
    for (const [path, detail] of cases)
      assert.deepEqual(await raw("GET", path), { status: 400, json: { detail, category: "user" } });
  });

  it("answers an unknown path or checkpoint with a 404 naming it", async () => {
    assert.deepEqual(await raw("GET", "training_runs/nope:train:9/checkpoints"), {
      status: 404,
      json: { detail: "unknown training run nope:train:9", category: "user" },
    });
    assert.deepEqual(await raw("POST", `training_runs/${runId}/checkpoints/weights/missing/publish`), {
      status: 404,
      json: { detail: `no checkpoint weights/missing in ${runId}`, category: "user" },
    });
    assert.deepEqual(await raw("GET", "no/such/endpoint"), {
      status: 404,
      json: { detail: "the local backend has no GET /api/v1/no/such/endpoint", category: "user" },
    });
  });

  it("deletes a checkpoint (gone from listings and disk); deleting it again is a 404", async () => {
    await service.deleteCheckpoint(statePath);
    assert.equal(await meta(statePath), undefined);
    assert.deepEqual(await raw("DELETE", `training_runs/${runId}/checkpoints/weights/s1`), {
      status: 404,
      json: { detail: `no checkpoint weights/s1 in ${runId}`, category: "user" },
    });
  });

  it("keeps usage across restarts (usage.jsonl) and round-trips a tar", () => {
    const meter = new UsageMeter(dir);
    const h = hour(Date.now());
    const again = meter.events({ start: h, end: new Date(h.getTime() + HOUR) }, []);
    assert.ok(again.data.some((e) => e.event_info.type === "training"));
    const files = [
      { name: "a.txt", data: Buffer.from("hello") },
      { name: "sub/b.bin", data: Buffer.alloc(1025, 7) },
    ];
    assert.deepEqual(
      readTar(writeTar(files)).map((f) => [f.name, Buffer.from(f.data).toString("hex")]),
      files.map((f) => [f.name, f.data.toString("hex")]),
    );
  });
});
