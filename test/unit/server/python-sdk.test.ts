/**
 * The official Tinker Python SDK against the local backend (brief §4). Needs the throwaway venv
 * made by test/sdk/setup-venv.sh; without it the test skips and says how to make it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startLocalBackend, type RunningLocalBackend } from "../../../src/server";

const REPO = resolve(__dirname, "../../..");
const PYTHON = join(REPO, ".cache/sdk-venv/bin/python");

describe("server/python-sdk", function () {
  this.timeout(120_000);
  let backend: RunningLocalBackend;
  let dir: string;

  before(async function () {
    if (!existsSync(PYTHON)) {
      console.log("    (skipped: no .cache/sdk-venv; make it with `bash test/sdk/setup-venv.sh`)");
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), "local-backend-sdk-"));
    backend = await startLocalBackend({ dir, seed: 0, longPollMs: 5_000 });
  });

  after(async () => {
    await backend?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs training client → forward_backward → optim_step → save_state → sampling client → sample → client from state → REST listing", async () => {
    const output = await new Promise<{ code: number | null; text: string }>((done) => {
      const child = spawn(PYTHON, [join(REPO, "test/sdk/run-python-sdk.py")], {
        env: { ...process.env, TINKER_BASE_URL: backend.url, TINKER_API_KEY: "tml-local-backend-test" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (c: Buffer) => (text += c.toString()));
      child.stderr.on("data", (c: Buffer) => (text += c.toString()));
      child.on("close", (code) => done({ code, text }));
    });
    assert.equal(output.code, 0, output.text);
    assert.match(output.text, /SDK FLOW OK/);
  });
});
