/**
 * The layers under the Python guards, tested from JavaScript: a probe (fixtures/sandbox-probe.ts)
 * runs with the worker's own Node flags and environment and tries what code that slipped past the
 * Python layer would. Without lockdown the permission model alone must already deny files and
 * processes and see no environment; the network it does not cover, which is why lockdown exists,
 * and the network test checks both sides of that.
 */
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workerEnv, workerNodeArgs } from "../../../../../src/core/steps/tasks/sandbox/sandbox";
import { bundleFromSource, workerFiles } from "../../../../../src/core/steps/tasks/sandbox/worker-files";
import { countingListener } from "./fixtures/listener";
import { REPO } from "../../../../helpers/repo";

interface ProbeResult {
  outcome: string;
  detail: string;
  violations: string[];
}

describe("tasks: sandbox worker layers (JavaScript probe)", function () {
  this.timeout(30_000);
  let probe: string;
  let dir: string;

  before(() => {
    const source = join(__dirname, "fixtures", "sandbox-probe.ts");
    probe = bundleFromSource(source, [source, join(REPO, "src/core/steps/tasks/sandbox/lockdown.ts")]);
    dir = mkdtempSync(join(tmpdir(), "agent-lab-probe-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function run(attack: string, arg: string, lockdown: boolean): Promise<ProbeResult> {
    const args = [
      ...workerNodeArgs({ script: probe, pyodideDir: workerFiles().pyodideDir }),
      probe,
      attack,
      arg,
      ...(lockdown ? ["--lockdown"] : []),
    ];
    return new Promise((resolve, reject) => {
      execFile(process.execPath, args, { env: workerEnv(), timeout: 10_000 }, (error, stdout) => {
        const line = stdout.trim().split("\n").pop() ?? "";
        try {
          resolve(JSON.parse(line) as ProbeResult);
        } catch (e) {
          reject(
            new Error(`probe ${attack} printed ${JSON.stringify(stdout)} (${error?.message ?? (e as Error).message})`),
          );
        }
      });
    });
  }

  it("the permission model denies reading and writing host files and spawning, with no lockdown", async () => {
    const secret = join(dir, "secret.txt");
    writeFileSync(secret, "host secret");
    const read = await run("fs-read", secret, false);
    assert.equal(read.outcome, "denied");
    assert.match(read.detail, /ERR_ACCESS_DENIED/);
    const target = join(dir, "written.txt");
    assert.equal((await run("fs-write", target, false)).outcome, "denied");
    assert.equal(existsSync(target), false);
    const spawned = await run("spawn", "", false);
    assert.equal(spawned.outcome, "denied");
    assert.match(spawned.detail, /ERR_ACCESS_DENIED/);
  });

  it("the worker's environment is empty (a TINKER_API_KEY in the parent does not reach it)", async () => {
    const saved = process.env.TINKER_API_KEY;
    process.env.TINKER_API_KEY = "sk-agent-lab-test-layer";
    try {
      const env = await run("env", "", false);
      assert.equal(env.outcome, "done");
      assert.ok(!env.detail.includes("sk-agent-lab-test-layer"));
      assert.deepEqual(
        Object.keys(JSON.parse(env.detail) as object).filter((k) => k !== "ELECTRON_RUN_AS_NODE"),
        [],
      );
    } finally {
      if (saved === undefined) delete process.env.TINKER_API_KEY;
      else process.env.TINKER_API_KEY = saved;
    }
  });

  it("the network: open under the permission model alone, closed by lockdown", async () => {
    const listener = await countingListener();
    try {
      assert.equal((await run("net", String(listener.port), false)).outcome, "done");
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(
        listener.connections(),
        1,
        "without lockdown the probe connects: the permission model does not cover sockets",
      );
      const blocked = await run("net", String(listener.port), true);
      assert.equal(blocked.outcome, "denied");
      assert.deepEqual(blocked.violations, ["network:net.connect"]);
      const fetched = await run("fetch", String(listener.port), true);
      assert.equal(fetched.outcome, "denied");
      assert.deepEqual(fetched.violations, ["network:fetch"]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(listener.connections(), 1);
    } finally {
      await listener.close();
    }
  });

  it("lockdown stops signals to other processes and WebAssembly memory over the cap", async () => {
    assert.equal(
      (await run("signal", String(process.pid), false)).outcome,
      "done",
      "the permission model lets a probe signal its parent",
    );
    const signal = await run("signal", String(process.pid), true);
    assert.equal(signal.outcome, "denied");
    assert.deepEqual(signal.violations, ["process:process.kill"]);
    const wasm = await run("wasm-memory", String(2048), true); // 128 MiB more than the probe's 64 MiB cap
    assert.equal(wasm.outcome, "denied");
    assert.match(wasm.violations[0], /^memory:/);
    assert.equal((await run("wasm-memory", String(2048), false)).outcome, "done");
  });
});
