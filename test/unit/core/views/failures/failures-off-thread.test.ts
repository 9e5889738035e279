/**
 * The Compare panel's failure labels of large runs come from a worker thread: the same comparison
 * as labelling them on the caller's thread (the demo's eval runs, real tokenizer), a missing run
 * as the same one-line error.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDemo } from "../../../../../src/core/steps/demo/run-demo";
import { compareFailuresOfDirs, failuresWorker } from "../../../../../src/core/views/failures/failures-off-thread";

describe("views: Compare's failure labels in a worker thread", function () {
  this.timeout(300_000);
  let ws: string;

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-failures-worker-"));
    await runDemo({ dir: ws, log: () => {}, concurrency: 4 });
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  it("gives the comparison made on this thread, and a missing run's error", async () => {
    const req = {
      runDirs: ["heuristic", "closed-book"].map((n) => join(ws, "runs", n)),
      names: ["a", "b"],
      dataDir: undefined,
    };
    const worker = failuresWorker();
    try {
      const off = await worker.request(req);
      assert.ok(off, "the demo's environment declares failure labels");
      assert.deepEqual(off, await compareFailuresOfDirs(req));
      const bad = { ...req, runDirs: [req.runDirs[0], join(ws, "runs", "missing")] };
      const here = await compareFailuresOfDirs(bad).then(
        () => "answered",
        (e: Error) => e.message,
      );
      const there = await worker.request(bad).then(
        () => "answered",
        (e: Error) => e.message,
      );
      assert.equal(there, here);
    } finally {
      worker.dispose();
    }
  });
});
