import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, startCli, waitFor } from "../cli/cli-process";

describe("server/serve-local CLI", function () {
  this.timeout(60_000);

  it("prints its URL and that it is a stand-in, serves, and shuts down cleanly on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "serve-local-"));
    try {
      const { child, done } = await startCli(["serve-local", "--port", "0", "--dir", dir, "--seed", "3"]);
      let out = "";
      child.stdout!.on("data", (d) => (out += d));
      await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 30_000, "the listening line");
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
      const res = await fetch(`${url}/api/v1/healthz`);
      assert.deepEqual(await res.json(), { status: "ok" });
      child.kill("SIGTERM");
      const result = await done;
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /stand-in/);
      assert.match(result.stdout, /SIGTERM: shutting down/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rejects a bad --faults spec with a one-line error", async () => {
    const result = await runCli(["serve-local", "--faults", "bogus=1"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /unknown fault "bogus"/);
  });
});
