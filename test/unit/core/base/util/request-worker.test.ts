/**
 * A RequestWorker made with unrefWhenIdle holds its process while a request waits for an answer and
 * lets it exit after (the trace worker lives as long as the extension host; a test process that
 * used it must still end). Run in a child process: whether a process exits is the thing checked.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

describe("RequestWorker: unrefWhenIdle", function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-request-worker-"));
    // Answers late: a process that nothing holds would end before the answer.
    writeFileSync(
      join(dir, "double.js"),
      `const { parentPort } = require("node:worker_threads");
parentPort.on("message", (m) => setTimeout(() => parentPort.postMessage({ id: m.id, ok: m.n * 2 }), 300));
`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("waits for the answers it was asked for, then lets the process exit", () => {
    const module = resolve("src/core/base/util/request-worker.ts");
    writeFileSync(
      join(dir, "main.ts"),
      `import { RequestWorker } from ${JSON.stringify(module)};
const w = new RequestWorker<{ n: number }, number>(() => ${JSON.stringify(join(dir, "double.js"))}, "the doubler", { unrefWhenIdle: true });
w.request({ n: 21 })
  .then((a) => (console.log("answer", a), w.request({ n: 2 })))
  .then((a) => console.log("answer", a));
`,
    );
    const r = spawnSync(process.execPath, ["--import", "tsx", join(dir, "main.ts")], {
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(r.signal, null, "the process did not exit by itself");
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, "answer 42\nanswer 4\n");
  });
});
