/**
 * The checkpoint commands' connection to a workspace's local backend: one already on the port is
 * reused under a lease, so the job that started it does not stop it under the command.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectCheckpointService } from "../../../src/cli/checkpoint-service";
import { localBackendDir } from "../../../src/core/steps/eval/backends";
import { connectOrStartLocalBackend, isLocalBackend } from "../../../src/server";
import { freePort } from "../../helpers/local-backend";

describe("cli: the checkpoint commands' local backend", () => {
  it("reuses the workspace's backend on the port under a lease: its starter's stop waits for the command", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "ckpt-service-"));
    try {
      const port = await freePort();
      const job = await connectOrStartLocalBackend({ dir: localBackendDir(workspace), port });
      assert.equal(job.started, true);
      const conn = await connectCheckpointService("local", workspace, port);
      // The job ends while the command still talks to its backend. Before, the command held no
      // lease and the job stopped the backend at once, under the command's next request.
      let stopped = false;
      const stopping = job.close().then(() => (stopped = true));
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(stopped, false, "the starter waits for the command's lease");
      assert.equal(await isLocalBackend(job.url), true);
      await conn.close();
      await stopping;
      assert.equal(await isLocalBackend(job.url, 500), false, "and stops once the command is done");
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
