/**
 * The sandbox's host side, on what it trusts: every line from a worker is checked before it is
 * believed (protocol.ts), and a worker that answers wrongly, too late, twice or not at all is
 * finished and never handed another task (worker-process.ts). A stand-in worker
 * (fixtures/fake-worker.ts) misbehaves on request, so no Pyodide is loaded here.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import {
  DETAIL_LIMIT,
  MAX_MESSAGE_BYTES,
  parseWorkerMessage,
  REPR_LIMIT,
  SANDBOX_REASONS,
} from "../../../../../src/core/steps/tasks/sandbox/protocol";
import { bundleFromSource } from "../../../../../src/core/steps/tasks/sandbox/worker-files";
import { KILL_GRACE_MS, WorkerProcess } from "../../../../../src/core/steps/tasks/sandbox/worker-process";
import { REPO } from "../../../../helpers/repo";

describe("tasks: sandbox protocol (a worker's line is untrusted)", () => {
  const done = (outcome: unknown, extra: object = {}) =>
    JSON.stringify({ type: "done", id: 3, outcome, restored: true, retire: false, ...extra });

  it("reads ready, an answer and a rejection with their flags, and nothing else of the line", () => {
    assert.deepEqual(parseWorkerMessage('{"type":"ready","extra":1}'), { type: "ready" });
    assert.deepEqual(parseWorkerMessage(done({ ok: true, value: { type: "int", repr: "42", more: 1 } }, { x: 1 })), {
      type: "done",
      id: 3,
      outcome: { ok: true, value: { type: "int", repr: "42" } },
      restored: true,
      retire: false,
    });
    assert.deepEqual(
      parseWorkerMessage(done({ ok: false, reason: "blocked:network", detail: "socket" }, { retire: true })),
      {
        type: "done",
        id: 3,
        outcome: { ok: false, reason: "blocked:network", detail: "socket" },
        restored: true,
        retire: true,
      },
    );
  });

  it("takes restored and retire only when they are exactly true", () => {
    const m = parseWorkerMessage(done({ ok: true, value: { type: "int", repr: "1" } }, { restored: "yes", retire: 1 }));
    assert.ok(m?.type === "done");
    assert.equal(m.restored, false);
    assert.equal(m.retire, false);
    const none = parseWorkerMessage(JSON.stringify({ type: "done", id: 1, outcome: { ok: false, reason: "error" } }));
    assert.deepEqual(none, {
      type: "done",
      id: 1,
      outcome: { ok: false, reason: "error", detail: "" },
      restored: false,
      retire: false,
    });
  });

  it("cuts a type to 64 characters, a repr to REPR_LIMIT and a detail to DETAIL_LIMIT", () => {
    const long = "9".repeat(5000);
    const okLine = parseWorkerMessage(done({ ok: true, value: { type: long, repr: long } }));
    assert.ok(okLine?.type === "done" && okLine.outcome.ok);
    assert.equal(okLine.outcome.value.type, "9".repeat(64));
    assert.equal(okLine.outcome.value.repr, "9".repeat(REPR_LIMIT));
    const errLine = parseWorkerMessage(done({ ok: false, reason: "error", detail: long }));
    assert.ok(errLine?.type === "done" && !errLine.outcome.ok);
    assert.equal(errLine.outcome.detail, "9".repeat(DETAIL_LIMIT));
  });

  it("accepts every declared reason and no other", () => {
    for (const reason of SANDBOX_REASONS) {
      const m = parseWorkerMessage(done({ ok: false, reason, detail: "d" }));
      assert.ok(m?.type === "done" && !m.outcome.ok, reason);
      assert.equal(m.outcome.reason, reason);
    }
    for (const reason of ["blocked:", "ok", "Error", "", 3, null]) {
      assert.equal(parseWorkerMessage(done({ ok: false, reason, detail: "d" })), undefined, String(reason));
    }
  });

  it("refuses a line that is not a whole, well-typed message", () => {
    const bad = [
      "",
      "not json",
      "{",
      "null",
      "3",
      '"done"',
      "[]",
      '{"type":"started"}',
      JSON.stringify({ type: "done", outcome: { ok: true, value: { type: "int", repr: "1" } } }),
      JSON.stringify({ type: "done", id: "3", outcome: { ok: true, value: { type: "int", repr: "1" } } }),
      JSON.stringify({ type: "done", id: 3 }),
      JSON.stringify({ type: "answer", id: 3, outcome: { ok: true, value: { type: "int", repr: "1" } } }),
      JSON.stringify({ type: "done", id: 3, outcome: null }),
      JSON.stringify({ type: "done", id: 3, outcome: "ok" }),
      done({ ok: true }),
      done({ ok: true, value: null }),
      done({ ok: true, value: "42" }),
      done({ ok: true, value: { type: 1, repr: "1" } }),
      done({ ok: true, value: { type: "int", repr: 1 } }),
      done({ ok: true, value: { type: "int" } }),
      done({ ok: "true", value: { type: "int", repr: "1" } }),
      done({ ok: 1, value: { type: "int", repr: "1" } }),
      done({ reason: "error", detail: "no ok field" }),
    ];
    for (const line of bad) assert.equal(parseWorkerMessage(line), undefined, line);
  });
});

describe("tasks: sandbox worker process (the host's handle on one worker)", function () {
  this.timeout(30_000);
  let script: string;
  const workers: WorkerProcess[] = [];

  before(() => {
    const source = join(__dirname, "fixtures", "fake-worker.ts");
    script = bundleFromSource(source, [source]);
  });
  afterEach(() => {
    for (const w of workers.splice(0)) w.kill();
  });

  function worker(
    options: {
      start?: "ready" | "fail" | "quiet-fail" | "flood" | "silent" | "done-first";
      timeoutMs?: number;
      startupMs?: number;
      cwd?: string;
    } = {},
  ) {
    const w = new WorkerProcess({
      files: { script, pyodideDir: options.cwd ?? REPO },
      config: { indexDir: REPO, wasmMemoryBytes: 2 ** 20, timeoutMs: options.timeoutMs ?? 5000 },
      nodeArgs: [],
      env: { FAKE_START: options.start ?? "ready" },
      startupMs: options.startupMs ?? 20_000,
    });
    workers.push(w);
    return w;
  }

  const exited = (pid: number) => {
    try {
      process.kill(pid, 0);
      return false;
    } catch (e) {
      void e; // ESRCH: no such process
      return true;
    }
  };
  async function waitExited(pid: number): Promise<void> {
    for (let i = 0; i < 100 && !exited(pid); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(exited(pid), `worker ${pid} still runs`);
  }

  it("passes on the worker's answers one task at a time, joins a line written in pieces, and counts them", async () => {
    const w = worker();
    await w.ready;
    assert.equal(typeof w.pid, "number");
    assert.deepEqual(await w.run("ok 42"), {
      outcome: { ok: true, value: { type: "int", repr: "42" } },
      restored: true,
      finished: false,
      answered: true,
    });
    assert.deepEqual((await w.run("split 7")).outcome, { ok: true, value: { type: "int", repr: "7" } });
    assert.deepEqual((await w.run("stderr 5")).outcome, { ok: true, value: { type: "int", repr: "5" } });
    const error = await w.run("error ZeroDivisionError");
    assert.deepEqual(error, {
      outcome: { ok: false, reason: "error", detail: "ZeroDivisionError" },
      restored: true,
      finished: false,
      answered: true,
    });
    assert.equal(w.tasksRun, 4);
    assert.equal(w.dead, false);
  });

  it("refuses a second task while one is running", async () => {
    const w = worker({ timeoutMs: 100 });
    await w.ready;
    const first = w.run("hang");
    assert.throws(() => void w.run("ok 1"), /a sandbox worker was given a second task/);
    assert.equal((await first).outcome.ok, false);
  });

  it("passes on a task that did not start from the snapshot as not restored, and keeps the worker", async () => {
    const w = worker();
    await w.ready;
    const answer = await w.run("unrestored 1");
    assert.equal(answer.restored, false);
    assert.equal(answer.finished, false);
    assert.equal(w.dead, false);
  });

  it("finishes a worker that asks to retire or reports a crash: dead at once, and its process is killed", async () => {
    for (const [code, outcome] of [
      ["retire 3", { ok: true, value: { type: "int", repr: "3" } }],
      ["crash", { ok: false, reason: "crash", detail: "interpreter failed" }],
    ] as const) {
      const w = worker();
      await w.ready;
      const answer = await w.run(code);
      assert.deepEqual(answer, { outcome, restored: true, finished: true, answered: true }, code);
      assert.equal(w.dead, true, code);
      assert.equal(w.tasksRun, 1);
      await waitExited(w.pid!);
    }
  });

  it("answers a task whose worker exited as a crash nobody explained, and a dead worker's next task the same", async () => {
    const w = worker();
    await w.ready;
    assert.deepEqual(await w.run("exit 7"), {
      outcome: { ok: false, reason: "crash", detail: "the sandbox worker exited (7)" },
      restored: true,
      finished: true,
      answered: false,
    });
    assert.equal(w.dead, true);
    assert.deepEqual(await w.run("ok 1"), {
      outcome: { ok: false, reason: "crash", detail: "the sandbox worker had exited" },
      restored: true,
      finished: true,
      answered: false,
    });
    assert.equal(w.tasksRun, 1, "the made-up answer of a dead worker is no task run");
  });

  it("a worker killed while idle is dead and gets no task", async () => {
    const w = worker();
    await w.ready;
    w.kill();
    assert.equal(w.dead, true);
    assert.equal((await w.run("ok 1")).answered, false);
    await waitExited(w.pid!);
    w.kill(); // killing an exited worker again is harmless
  });

  it("kills a worker that does not answer, a grace period after the limit, and says after how long", async () => {
    const timeoutMs = 200;
    const w = worker({ timeoutMs });
    await w.ready;
    const t0 = Date.now();
    const answer = await w.run("hang");
    const waited = Date.now() - t0;
    assert.deepEqual(answer, {
      outcome: { ok: false, reason: "timeout", detail: `no answer within ${timeoutMs} ms; worker killed` },
      restored: true,
      finished: true,
      answered: false,
    });
    assert.ok(waited >= timeoutMs + KILL_GRACE_MS - 50, `answered after ${waited} ms`);
    assert.ok(waited < timeoutMs + KILL_GRACE_MS + 5000, `answered after ${waited} ms`);
    assert.equal(w.dead, true);
    await waitExited(w.pid!);
  });

  it("no longer trusts a worker that sends a line other than the answer to its task", async () => {
    for (const code of ["wrong-id 1", "garbage", "ready", "long", "blank"]) {
      const w = worker();
      await w.ready;
      assert.deepEqual(
        await w.run(code),
        {
          outcome: { ok: false, reason: "crash", detail: "the sandbox worker sent a malformed message" },
          restored: true,
          finished: true,
          answered: false,
        },
        code,
      );
      assert.equal(w.dead, true, code);
      await waitExited(w.pid!);
    }
    assert.ok(MAX_MESSAGE_BYTES < 70 * 1024, "the fixture's long line must be over the limit");
  });

  it("takes a line of exactly the longest length, and refuses one a character longer", async () => {
    const w = worker();
    await w.ready;
    const answer = await w.run(`exact ${MAX_MESSAGE_BYTES}`);
    assert.deepEqual(answer.outcome, { ok: true, value: { type: "int", repr: "7".repeat(REPR_LIMIT) } });
    assert.equal(w.dead, false);
    const over = await w.run(`exact ${MAX_MESSAGE_BYTES + 1}`);
    assert.equal(over.outcome.ok ? "" : over.outcome.detail, "the sandbox worker sent a malformed message");
    assert.equal(w.dead, true);
  });

  it("no longer trusts a worker that writes between tasks: a second answer, or any line", async () => {
    for (const code of ["twice 4", "ok-then-garbage 4"]) {
      const w = worker();
      await w.ready;
      assert.deepEqual((await w.run(code)).outcome, { ok: true, value: { type: "int", repr: "4" } }, code);
      for (let i = 0; i < 100 && !w.dead; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(w.dead, true, code);
      await waitExited(w.pid!);
    }
  });

  it("reports a worker that failed to start with its exit code and the last line it wrote (at most 2,000 characters)", async () => {
    for (const [start, message] of [
      ["fail", "the Python sandbox failed to start (exit 1): fake worker: cannot load the interpreter"],
      ["quiet-fail", "the Python sandbox failed to start (exit 1): "],
      ["flood", `the Python sandbox failed to start (exit 1): ${"y".repeat(1999)}`],
    ] as const) {
      const w = worker({ start });
      await assert.rejects(w.ready, (e: unknown) => {
        assert.ok(e instanceof UserError);
        assert.equal(e.message, message);
        return true;
      });
      assert.equal(w.dead, true);
    }
  });

  it("does not take an answer before ready as ready", async () => {
    const w = worker({ start: "done-first" });
    await assert.rejects(w.ready, (e: unknown) => e instanceof UserError && /failed to start/.test(e.message));
    assert.equal(w.dead, true);
  });

  it("gives up on a worker that does not say ready within the start-up limit", async () => {
    const w = worker({ start: "silent", startupMs: 300 });
    await assert.rejects(w.ready, (e: unknown) => {
      assert.ok(e instanceof UserError);
      assert.equal(e.message, "the Python sandbox did not start within 300 ms");
      return true;
    });
    assert.equal(w.dead, true);
    await waitExited(w.pid!);
  });

  it("reports a worker that could not be started at all", async () => {
    const w = worker({ cwd: join(REPO, "no-such-folder") });
    await assert.rejects(w.ready, (e: unknown) => {
      assert.ok(e instanceof UserError);
      assert.match(e.message, /^could not start the Python sandbox: /);
      return true;
    });
    assert.equal(w.dead, true);
  });
});
