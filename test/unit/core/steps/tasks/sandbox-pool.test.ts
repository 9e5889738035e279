/**
 * The sandbox's pool (PythonSandbox) on a stand-in worker (fixtures/fake-worker.ts, no Pyodide, so
 * these run in seconds): slots taken in turn, workers reused, a crash on a worker that served others
 * run once more on a fresh one, retired and dead workers never handed another task, the host's
 * folders scrubbed from what a task says, and a closed pool. Each task's code names what the
 * stand-in answers ("ok 5", "exit 3", "retire 1", …). What the real worker does is sandbox.test.ts's.
 */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, sep } from "node:path";
import {
  DEFAULT_SANDBOX_LIMITS,
  defaultWorkerCount,
  PythonSandbox,
  workerEnv,
  workerNodeArgs,
  type SandboxLimits,
} from "../../../../../src/core/steps/tasks/sandbox/sandbox";
import { bundleFromSource } from "../../../../../src/core/steps/tasks/sandbox/worker-files";
import { REPO } from "../../../../helpers/repo";

describe("tasks: the sandbox's pool of workers (a stand-in worker)", function () {
  this.timeout(60_000);
  let script: string;
  const pools: PythonSandbox[] = [];
  before(() => {
    const source = join(REPO, "test", "unit", "core", "steps", "tasks", "fixtures", "fake-worker.ts");
    script = bundleFromSource(source, [source]);
  });
  afterEach(() => {
    for (const p of pools.splice(0)) p.close();
  });

  function pool(workers: number, limits: Partial<SandboxLimits> = {}): PythonSandbox {
    const p = new PythonSandbox(
      { startupMs: 20_000, ...limits },
      { workers, files: { script, pyodideDir: dirname(script) } },
    );
    pools.push(p);
    return p;
  }

  const ok = (repr: string) => ({ ok: true, value: { type: "int", repr } });

  it("runs more tasks than workers, in turn, each on a worker it reuses", async () => {
    const p = pool(2);
    const finished: number[] = [];
    const runs = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6].map(async (i) => {
        const run = await p.execute(`ok ${i}`);
        finished.push(i);
        return run;
      }),
    );
    runs.forEach((run, i) => assert.deepEqual(run, { outcome: ok(String(i)), clean: true }));
    assert.equal(p.starts, 2, "two workers for seven tasks");
    // One worker: the waiting tasks run first come, first served.
    const one = pool(1);
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((i) => one.run(`ok ${i}`).then(() => order.push(i))));
    assert.deepEqual(order, [1, 2, 3, 4]);
    assert.equal(one.starts, 1);
  });

  it("runs a crash on a worker that served others once more on a fresh one; a fresh worker's crash is the task's", async () => {
    const p = pool(1);
    assert.deepEqual((await p.execute("ok 1")).outcome, ok("1"));
    const crashed = await p.execute("exit 3");
    assert.deepEqual(crashed, {
      outcome: { ok: false, reason: "crash", detail: "the sandbox worker exited (3)" },
      clean: true,
    });
    assert.equal(p.starts, 2, "the retry ran on a fresh worker, and was not retried again");
    assert.deepEqual((await p.execute("ok 2")).outcome, ok("2"));
    assert.equal(p.starts, 3, "no task goes to a dead worker");

    const fresh = pool(1);
    assert.equal((await fresh.execute("exit 3")).clean, true);
    assert.equal(fresh.starts, 1, "a crash on a worker that served nobody else is not run again");

    // Two workers that both served: the retry goes to a fresh one, not to the other idle one.
    const two = pool(2);
    await Promise.all([two.execute("ok 1"), two.execute("ok 2")]);
    assert.equal(two.starts, 2);
    await two.execute("exit 3");
    assert.equal(two.starts, 3);
  });

  it("a task that timed out is the task's verdict, not run again", async () => {
    const p = pool(1, { timeoutMs: 100 });
    await p.execute("ok 1");
    assert.deepEqual(await p.execute("hang"), {
      outcome: { ok: false, reason: "timeout", detail: "no answer within 100 ms; worker killed" },
      clean: true,
    });
    assert.equal(p.starts, 1);
  });

  it("a crash the worker reports itself is not run again, and the worker is replaced", async () => {
    const p = pool(1);
    await p.execute("ok 1");
    assert.deepEqual(await p.execute("crash"), {
      outcome: { ok: false, reason: "crash", detail: "interpreter failed" },
      clean: true,
    });
    assert.equal(p.starts, 1);
    await p.execute("ok 2");
    assert.equal(p.starts, 2);
  });

  it("never hands a retired worker another task; a run not from the snapshot is not clean", async () => {
    const p = pool(1);
    assert.deepEqual(await p.execute("retire 5"), { outcome: ok("5"), clean: true });
    assert.deepEqual(await p.execute("unrestored 4"), { outcome: ok("4"), clean: false });
    assert.equal(p.starts, 2);
    assert.deepEqual(await p.execute("ok 3"), { outcome: ok("3"), clean: true });
    assert.equal(p.starts, 2, "an unrestored run does not retire its worker");
  });

  it("replaces a worker that died while idle", async () => {
    const p = pool(1);
    await p.start();
    const pid = p.workerPid!;
    process.kill(pid, "SIGKILL");
    for (const t = Date.now(); isAlive(pid) && Date.now() - t < 5000;) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50)); // the host sees the exit
    assert.equal(p.workerPid, undefined, "a dead worker's pid is not given");
    assert.deepEqual((await p.execute("ok 7")).outcome, ok("7"));
    assert.equal(p.starts, 2);
    assert.notEqual(p.workerPid, pid);
  });

  it("starts at most as many workers as it runs at once", async () => {
    const p = pool(2);
    await p.start(5);
    assert.equal(p.starts, 2);
    await p.start(2);
    assert.equal(p.starts, 2, "none more while two are running");
    assert.equal(pool(3).starts, 0, "none before a task or start()");
  });

  it("replaces the host's folders in what a task says with <host>, longest first", async () => {
    // Pyodide's folder named as the parent of the working folder: replaced first, it would leave a piece of the longer one.
    const p = new PythonSandbox({}, { workers: 1, files: { script, pyodideDir: dirname(process.cwd()) } });
    pools.push(p);
    const here = process.cwd();
    const error = await p.run(`error ${here}/secret.txt:${dirname(script)}/w.js`);
    assert.deepEqual(error, { ok: false, reason: "error", detail: "<host>/secret.txt:<host>/w.js" });
    assert.deepEqual(await p.run(`ok ${here}/x`), ok("<host>/x"));
  });

  it("a closed pool kills its workers and refuses tasks", async () => {
    const p = pool(2);
    await p.start(2);
    const pid = p.workerPid!;
    p.close();
    await assert.rejects(p.execute("ok 1"), /sandbox is closed/);
    for (const t = Date.now(); isAlive(pid) && Date.now() - t < 5000;) await new Promise((r) => setTimeout(r, 20));
    assert.equal(isAlive(pid), false);
    assert.equal(p.workerPid, undefined);
  });

  it("a worker that does not start in time fails the task with the startup error and is not kept", async () => {
    const p = pool(1, { startupMs: 1 });
    await assert.rejects(p.execute("ok 1"), { message: "the Python sandbox did not start within 1 ms" });
    assert.equal(p.workerPid, undefined);
    assert.equal(p.starts, 1);
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("tasks: the sandbox worker's launch settings", () => {
  const files = { script: join(sep, "w", "worker.js"), pyodideDir: join(sep, "p") };
  const caps = [
    `--allow-fs-read=${join(sep, "p")}${sep}*`,
    `--allow-fs-read=${join(sep, "w", "worker.js")}`,
    "--disallow-code-generation-from-strings",
    "--max-old-space-size=256",
    "--no-warnings",
  ];

  it("names the permission model's flag as each Node version spells it, then the reads it allows and the caps", () => {
    for (const v of ["20.20.2", "22.12.9", "23.4.0", "21.9.0"])
      assert.deepEqual(workerNodeArgs(files, v), ["--experimental-permission", ...caps], v);
    for (const v of ["22.13.0", "22.20.1", "23.5.0", "23.11.0", "24.0.0", "25.1.0"])
      assert.deepEqual(workerNodeArgs(files, v), ["--permission", ...caps], v);
    assert.deepEqual(workerNodeArgs(files), workerNodeArgs(files, process.versions.node));
  });

  it("gives the worker an empty environment, with only Electron's run-as-Node switch under Electron", () => {
    assert.deepEqual(workerEnv(undefined), {});
    assert.deepEqual(workerEnv("37.2.0"), { ELECTRON_RUN_AS_NODE: "1" });
    assert.deepEqual(workerEnv(), process.versions.electron ? { ELECTRON_RUN_AS_NODE: "1" } : {});
  });

  it("fills limits from the defaults, runs at least one worker (a whole number), one per core by default", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-sandbox-settings-"));
    try {
      const own = { script: join(dir, "worker.js"), pyodideDir: dir };
      assert.deepEqual(new PythonSandbox({ timeoutMs: 7 }, { files: own }).limits, {
        ...DEFAULT_SANDBOX_LIMITS,
        timeoutMs: 7,
      });
      assert.deepEqual(DEFAULT_SANDBOX_LIMITS, { timeoutMs: 5000, memoryBytes: 512 * 2 ** 20, startupMs: 60_000 });
      for (const [workers, want] of [
        [0, 1],
        [-3, 1],
        [2.7, 2],
        [3, 3],
      ])
        assert.equal(new PythonSandbox({}, { workers, files: own }).concurrency, want, String(workers));
      assert.equal(defaultWorkerCount(), Math.max(1, availableParallelism()));
      assert.equal(new PythonSandbox({}, { files: own }).concurrency, defaultWorkerCount());

      // The code hash covers the worker script and Pyodide's package.json, in that order.
      writeFileSync(own.script, "worker v1");
      writeFileSync(join(dir, "package.json"), '{"version":"0.0.1"}');
      const hash = (script: string) =>
        createHash("sha256")
          .update(Buffer.concat([Buffer.from(script), readFileSync(join(dir, "package.json"))]))
          .digest("hex");
      assert.equal(new PythonSandbox({}, { files: own }).codeSha256, hash("worker v1"));
      writeFileSync(own.script, "worker v2");
      assert.equal(new PythonSandbox({}, { files: own }).codeSha256, hash("worker v2"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
