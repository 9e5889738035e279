/**
 * The Python sandbox against real escapes: host files the test creates and checks, a loopback
 * listener the test starts and watches, the JS bridge, processes, the parent's environment (a fake
 * TINKER_API_KEY), an endless loop and a 16 GB allocation. One worker serves the suite (loading
 * Pyodide takes seconds); the timeout test, which costs a restart, runs last.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxOutcome } from "../../../../../src/core/steps/tasks/sandbox/protocol";
import { PythonSandbox } from "../../../../../src/core/steps/tasks/sandbox/sandbox";
import { countingListener } from "./fixtures/listener";

/** Per-task wall time in these tests: the subclass walk needs a few seconds of CPU on a loaded machine. */
const LIMIT_MS = 5000;

const FAKE_KEY = "sk-agent-lab-test-0123456789abcdef";

const solution = (body: string) =>
  `def solution():\n${body
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n")}\n`;

function rejected(outcome: SandboxOutcome): string {
  assert.equal(outcome.ok, false, `expected a rejection, got ${JSON.stringify(outcome)}`);
  return outcome.ok ? "" : outcome.reason;
}

describe("tasks: Python sandbox", function () {
  this.timeout(60_000);
  let sandbox: PythonSandbox;
  let dir: string;
  const savedKey = process.env.TINKER_API_KEY;

  before(async () => {
    process.env.TINKER_API_KEY = FAKE_KEY;
    dir = mkdtempSync(join(tmpdir(), "agent-lab-sandbox-"));
    sandbox = new PythonSandbox({ timeoutMs: LIMIT_MS, memoryBytes: 256 * 2 ** 20 });
    await sandbox.start();
  });
  after(() => {
    sandbox.close();
    rmSync(dir, { recursive: true, force: true });
    if (savedKey === undefined) delete process.env.TINKER_API_KEY;
    else process.env.TINKER_API_KEY = savedKey;
  });

  it("returns a normal solution's number, with the standard library at hand", async () => {
    assert.deepEqual(await sandbox.run(solution("eggs = 16 - 3 - 4\nreturn eggs * 2")), {
      ok: true,
      value: { type: "int", repr: "18" },
    });
    const r = await sandbox.run(
      solution(
        "import math, fractions, statistics, itertools, decimal, datetime, collections, re, dataclasses, enum\nreturn fractions.Fraction(3, 4) + math.floor(statistics.mean([1, 2, 3]))",
      ),
    );
    assert.deepEqual(r, { ok: true, value: { type: "Fraction", repr: "11/4" } });
  });

  it("blocks reading a host file, even when the code catches the error", async () => {
    const secret = join(dir, "secret.txt");
    writeFileSync(secret, "host secret 42");
    const direct = await sandbox.run(solution(`return int(open(${JSON.stringify(secret)}).read().split()[-1])`));
    assert.equal(rejected(direct), "blocked:filesystem");
    const caught = await sandbox.run(
      solution(
        `try:\n    return int(open(${JSON.stringify(secret)}).read().split()[-1])\nexcept Exception:\n    return 1`,
      ),
    );
    assert.equal(rejected(caught), "blocked:filesystem");
    assert.equal(rejected(await sandbox.run(solution("import os\nreturn len(os.listdir('/'))"))), "blocked:filesystem");
    // The read-only standard library is /lib/…, but not a path that climbs out of it.
    const climbing = await sandbox.run(
      solution(`return int(open(${JSON.stringify("/lib/.." + secret)}).read().split()[-1])`),
    );
    assert.equal(rejected(climbing), "blocked:filesystem");
  });

  it("blocks writing a host file (the file does not appear)", async () => {
    const target = join(dir, "written.txt");
    const r = await sandbox.run(
      solution(`with open(${JSON.stringify(target)}, "w") as f:\n    f.write("escaped")\nreturn 1`),
    );
    assert.equal(rejected(r), "blocked:filesystem");
    assert.equal(existsSync(target), false);
    // The interpreter's own in-memory files are not a way around it either.
    assert.equal(
      rejected(await sandbox.run(solution("open('/tmp/x', 'w').write('x')\nreturn 1"))),
      "blocked:filesystem",
    );
    assert.equal(
      rejected(await sandbox.run(solution("open('/lib/../tmp/x', 'w').write('x')\nreturn 1"))),
      "blocked:filesystem",
    );
  });

  it("blocks a socket to a loopback listener (the listener sees no connection)", async () => {
    const listener = await countingListener();
    try {
      const r = await sandbox.run(
        solution(`import socket\ns = socket.create_connection(("127.0.0.1", ${listener.port}), timeout=1)\nreturn 1`),
      );
      assert.equal(rejected(r), "blocked:network");
      const raw = await sandbox.run(
        solution(`import _socket\ns = _socket.socket()\ns.connect(("127.0.0.1", ${listener.port}))\nreturn 1`),
      );
      assert.equal(rejected(raw), "blocked:network");
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(listener.connections(), 0);
    } finally {
      await listener.close();
    }
  });

  it("blocks every way to the JS bridge", async () => {
    for (const body of [
      "import js\nreturn len(js.process.env.TINKER_API_KEY)",
      "import pyodide_js\nreturn 1",
      "from pyodide.ffi import create_proxy\nreturn 1",
      "from pyodide.code import run_js\nreturn run_js('1 + 1')",
      "js = __import__('js')\nreturn 1",
      "import importlib\nreturn len(importlib.import_module('js').process.env)",
      "import gc\nreturn len([o for o in gc.get_objects() if type(o).__name__ == 'JsProxy'])",
    ]) {
      assert.equal(rejected(await sandbox.run(solution(body))), "blocked:host-bridge", body);
    }
  });

  it("leaves nothing of JavaScript where a walk of object.__subclasses__() leads", async () => {
    // The Python guards do not stop this walk; what it reaches must be empty.
    const walk = [
      "seen, stack, found = set(), [object], []",
      "while stack:",
      "    for s in type.__subclasses__(stack.pop()):",
      "        if s not in seen:",
      "            seen.add(s)",
      "            stack.append(s)",
      "for c in seen:",
      "    for v in list(vars(c).values()):",
      "        g = getattr(v, '__globals__', None)",
      "        if isinstance(g, dict):",
      "            for x in list(g.values()):",
      "                if any(k.__name__ == 'JsProxy' for k in type(x).__mro__) and not isinstance(x, type):",
      "                    found.append(x)",
      "                tables = getattr(x, 'jsproxies', None)",
      "                if isinstance(tables, dict):",
      "                    found.extend(tables.values())",
      "return len(found)",
    ].join("\n");
    assert.deepEqual(await sandbox.run(solution(walk)), { ok: true, value: { type: "int", repr: "0" } });
  });

  it("blocks spawning a process", async () => {
    assert.equal(
      rejected(await sandbox.run(solution("import os\nreturn os.system('echo escaped')"))),
      "blocked:process",
    );
    assert.equal(
      rejected(await sandbox.run(solution("import subprocess\nreturn subprocess.run(['echo', 'escaped']).returncode"))),
      "blocked:process",
    );
    assert.equal(
      rejected(await sandbox.run(solution("import os\nreturn os.popen('echo escaped').read()"))),
      "blocked:process",
    );
  });

  it("hides the parent's environment (a TINKER_API_KEY set in the parent)", async () => {
    for (const body of [
      "import os\nreturn len(os.environ['TINKER_API_KEY'])",
      "import os\nreturn len(os.getenv('TINKER_API_KEY') or '')",
      "import os\nreturn len(dict(os.environ))",
    ]) {
      const r = await sandbox.run(solution(body));
      assert.equal(rejected(r), "blocked:environment", body);
      assert.ok(!JSON.stringify(r).includes(FAKE_KEY));
    }
  });

  it("stops a 16 GB allocation at the memory limit, and the next task runs as usual", async () => {
    const starts = sandbox.starts;
    assert.equal(rejected(await sandbox.run(solution("x = bytearray(16 * 2**30)\nreturn len(x)"))), "memory");
    assert.equal(sandbox.starts, starts, "refused up front: no restart needed");
    // In 64 MiB pieces it reaches the cap instead of the machine's memory; a heap grown that far
    // costs one fresh worker rather than zeroing it before every later task.
    const chunked = await sandbox.run(solution("x = [bytearray(2**26) for _ in range(256)]\nreturn len(x)"));
    assert.equal(rejected(chunked), "memory");
    assert.deepEqual(await sandbox.run(solution("return 7")), { ok: true, value: { type: "int", repr: "7" } });
    assert.ok(sandbox.starts <= starts + 1);
  });

  it("gives each task a fresh interpreter state", async () => {
    const first = await sandbox.run(
      "import builtins, math, sys\nLEAK = 1\nbuiltins.LEAK = 2\nmath.pi = 3\nsys.modules['leak'] = math\nsys.setrecursionlimit(50)\ndef solution():\n    return 0\n",
    );
    assert.deepEqual(first, { ok: true, value: { type: "int", repr: "0" } });
    const second = await sandbox.run(
      solution(
        "import builtins, math, sys\nseen = ('LEAK' in globals()) + hasattr(builtins, 'LEAK') * 2 + (math.pi == 3) * 4 + ('leak' in sys.modules) * 8 + (sys.getrecursionlimit() == 50) * 16\nreturn seen",
      ),
    );
    assert.deepEqual(second, { ok: true, value: { type: "int", repr: "0" } });
  });

  it("reports errors and non-numbers as they are", async () => {
    assert.deepEqual(await sandbox.run(solution("return 1 / 0")), {
      ok: false,
      reason: "error",
      detail: "ZeroDivisionError: division by zero",
    });
    assert.equal(rejected(await sandbox.run("x = 1\n")), "error");
    // A str comes back as its repr (HotpotQA-style tasks answer with text), NUL and newlines escaped.
    assert.deepEqual(await sandbox.run(solution("return 'twelve'")), {
      ok: true,
      value: { type: "str", repr: "'twelve'" },
    });
    assert.deepEqual(await sandbox.run(solution("return 'a\\x00b\\nc'")), {
      ok: true,
      value: { type: "str", repr: "'a\\x00b\\nc'" },
    });
    assert.deepEqual(await sandbox.run(solution("return 2.5")), { ok: true, value: { type: "float", repr: "2.5" } });
  });

  it("interrupts an endless loop at the wall-time limit and keeps the worker", async () => {
    const starts = sandbox.starts;
    const t0 = Date.now();
    assert.equal(rejected(await sandbox.run(solution("while True:\n    pass"))), "timeout");
    assert.ok(Date.now() - t0 < LIMIT_MS + 1000);
    assert.deepEqual(await sandbox.run(solution("return 5")), { ok: true, value: { type: "int", repr: "5" } });
    assert.equal(sandbox.starts, starts);
  });

  // Last: it kills the worker, and the suite ends before paying for a new one.
  it("kills a loop that swallows the interrupt", async () => {
    const pid = sandbox.workerPid;
    assert.ok(pid);
    const r = await sandbox.run(
      solution("while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"),
    );
    assert.equal(rejected(r), "timeout");
    // Gone once reaped (a killed child is a zombie until its parent collects it, which load can delay).
    const gone = () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === "ESRCH";
      }
    };
    for (let i = 0; i < 100 && !gone(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(gone(), "the worker process is gone");
  });
});
