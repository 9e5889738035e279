/**
 * The official `tinker` CLI (from the Python SDK) against the local backend: checkpoint
 * list/info/set-ttl/publish/unpublish/download/delete, run list/info and billing usage work as
 * against Tinker. Needs the throwaway venv made by test/sdk/setup-venv.sh; without it the test skips
 * and says how to make it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";
import { TinkerService } from "../../../src/core/base/tinker";
import { sftDatum } from "../../../src/core/base/tinker/wire/builders";

const REPO = resolve(__dirname, "../../..");
const PYTHON = join(REPO, ".cache/sdk-venv/bin/python");
const HOUR = 3_600_000;

describe("server/tinker-cli", function () {
  // Each CLI call starts Python and imports the SDK (several seconds on a busy machine).
  this.timeout(300_000);
  let backend: RunningLocalBackend;
  let dir: string;
  let runId: string;
  let statePath: string;

  const tinker = (...args: string[]) =>
    new Promise<{ code: number | null; out: string }>((done) => {
      const child = spawn(PYTHON, ["-m", "tinker.cli", ...args], {
        env: { ...process.env, TINKER_BASE_URL: backend.url, TINKER_API_KEY: "tml-local-backend-test" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr.on("data", (c: Buffer) => (out += c.toString()));
      child.on("close", (code) => done({ code, out }));
    });
  const json = async <T>(...args: string[]): Promise<T> => {
    const r = await tinker("-f", "json", ...args);
    assert.equal(r.code, 0, r.out);
    return JSON.parse(r.out) as T;
  };

  before(async function () {
    if (!existsSync(PYTHON)) {
      console.log("    (skipped: no .cache/sdk-venv; make it with `bash test/sdk/setup-venv.sh`)");
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), "local-backend-tinker-cli-"));
    backend = await startLocalBackend({ dir, seed: 0, longPollMs: 5_000 });
    const service = new TinkerService({ apiKey: "tml-local", baseUrl: backend.url, log: () => {} });
    const trainer = await service.createLoraTrainingClient({ baseModel: "Qwen/Qwen3.5-4B", rank: 4 });
    runId = trainer.modelId;
    await trainer.forwardBackward([sftDatum([1, 2, 3, 4, 5], [0, 0, 1, 1, 1])], "cross_entropy").result();
    statePath = (await trainer.saveState("s1").result()).path;
    service.close();
  });

  after(async () => {
    await backend?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("checkpoint list/info/set-ttl/publish/unpublish/download/delete, run list/info, billing usage", async () => {
    type Ckpt = { tinker_path: string; public: boolean; expires_at: string | null };
    const listed = await json<{ checkpoints: Ckpt[] }>("checkpoint", "list");
    assert.deepEqual(
      listed.checkpoints.map((c) => c.tinker_path),
      [statePath],
    );

    assert.equal((await tinker("checkpoint", "set-ttl", statePath, "--ttl", "86400")).code, 0);
    assert.equal((await tinker("checkpoint", "publish", statePath)).code, 0);
    let info = await json<Ckpt>("checkpoint", "info", statePath);
    assert.equal(info.public, true);
    assert.ok(Math.abs(Date.parse(info.expires_at!) - Date.now() - 86_400_000) < 60_000, String(info.expires_at));
    assert.equal((await tinker("checkpoint", "unpublish", statePath)).code, 0);
    assert.equal((await tinker("checkpoint", "set-ttl", statePath, "--remove")).code, 0);
    info = await json<Ckpt>("checkpoint", "info", statePath);
    assert.equal(info.public, false);
    assert.equal(info.expires_at, null);
    const zero = await tinker("checkpoint", "set-ttl", statePath, "--ttl", "0");
    assert.notEqual(zero.code, 0);
    assert.match(zero.out, /ttl_seconds must be a whole number of seconds above 0/);

    const out = join(dir, "dl");
    const dl = await tinker("checkpoint", "download", statePath, "--output", out);
    assert.equal(dl.code, 0, dl.out);
    const extracted = join(out, `${runId}_weights_s1`);
    const source = backend.backend.store.checkpointDir({ runId, kind: "weights", name: "s1" });
    for (const f of ["weights.bin", "optimizer.bin", "model.json"])
      assert.ok(readFileSync(join(extracted, f)).equals(readFileSync(join(source, f))), f);

    const runs = await json<{ runs: { training_run_id: string }[] }>("run", "list");
    assert.deepEqual(
      runs.runs.map((r) => r.training_run_id),
      [runId],
    );
    assert.equal((await json<{ training_run_id: string }>("run", "info", runId)).training_run_id, runId);

    const start = new Date(Math.floor(Date.now() / HOUR) * HOUR);
    const usage = await json<{ data: { event_info: { type: string; token_count?: number } }[] }>(
      "billing",
      "usage",
      start.toISOString().replace(".000Z", "Z"),
      new Date(start.getTime() + HOUR).toISOString().replace(".000Z", "Z"),
    );
    assert.equal(usage.data.find((e) => e.event_info.type === "training")?.event_info.token_count, 4);
    const long = await tinker("billing", "usage", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z");
    assert.notEqual(long.code, 0);
    assert.match(long.out, /longer than 14 days/);

    assert.equal((await tinker("checkpoint", "delete", statePath, "--yes")).code, 0);
    assert.deepEqual((await json<{ checkpoints: Ckpt[] }>("checkpoint", "list")).checkpoints, []);
  });
});
