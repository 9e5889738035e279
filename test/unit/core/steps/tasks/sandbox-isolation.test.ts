/**
 * One sandbox task must not change another's verdict: candidates that poison the interpreter (a
 * function's `__code__` rewritten through a frame, a patched stdlib class, the int-digit and
 * recursion limits, the audit hook's helpers, `os._exit`) run next to honest ones, and the same
 * candidates in two orders give identical outcomes. Also: a guard cannot be rewritten quietly,
 * `_imp.create_builtin` does not reach the JavaScript bridge, hung tasks are killed side by side
 * at their own limit, and no host path reaches the files gen-tasks writes.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { filterCandidates } from "../../../../../src/core/steps/tasks/filter";
import type { SandboxOutcome } from "../../../../../src/core/steps/tasks/sandbox/protocol";
import { KILL_GRACE_MS, PythonSandbox } from "../../../../../src/core/steps/tasks/sandbox/sandbox";
import { workerFiles } from "../../../../../src/core/steps/tasks/sandbox/worker-files";
import { REPO } from "../../../../helpers/repo";

const solution = (body: string) =>
  `def solution():\n${body
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n")}\n`;

const int = (n: number): SandboxOutcome => ({ ok: true, value: { type: "int", repr: String(n) } });

/** Each poisons the interpreter for whoever comes next, if anything of it survives the task. */
const POISONERS = [
  // The runner's own helper, reached through the caller's frame (a guard: refused).
  solution(
    "import sys\nf = sys._getframe(1)\nf.f_locals['_describe'].__code__ = (lambda v: 'ok\\x00int\\x004242').__code__\nreturn 1",
  ),
  // The same through a traceback frame.
  solution(
    "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    f = e.__traceback__.tb_frame.f_back\nf.f_locals['_describe'].__code__ = (lambda v: 'ok\\x00int\\x004242').__code__\nreturn 1",
  ),
  // Not a guard: allowed, and gone for the next task.
  solution(
    "import collections\ncollections.Counter.most_common.__code__ = (lambda self, n=None: [(4242, 4242)]).__code__\nreturn 1",
  ),
  solution("import collections\ncollections.Counter.most_common = lambda self, n=None: [(4242, 4242)]\nreturn 1"),
  solution("import builtins\nbuiltins.sum = lambda *a: 4242\nreturn 1"),
  solution("import sys\nsys.set_int_max_str_digits(640)\nreturn 1"),
  solution("import sys\nsys.setrecursionlimit(10**6)\nreturn 1"),
  // Exits the worker with its answer (the stack overflow behind a recursion limit of 1e6 does the
  // same; the host-path test below runs that one): the next task must not meet the dying worker.
  solution("import os\nos._exit(0)"),
];

/** Each would answer differently after one of the poisoners, if its doing survived. */
const HONEST: [string, SandboxOutcome][] = [
  [solution("return 6 * 7"), int(42)],
  [solution("return sum([1, 2, 3])"), int(6)],
  [solution("import collections\nreturn collections.Counter('aab').most_common(1)[0][1]"), int(2)],
  [solution("return len(str(10**1000))"), int(1001)],
  [
    solution("def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nreturn f(5000)"),
    { ok: false, reason: "error", detail: "RecursionError: maximum recursion depth exceeded" },
  ],
];

describe("tasks: sandbox isolation between tasks", function () {
  this.timeout(300_000);

  it("gives the same candidates the same outcomes in two orders, honest ones their true answers", async function () {
    this.timeout(600_000); // two worker restarts (the exits), each seconds to tens of seconds on a loaded machine
    // One worker, so that every task runs where the one before it ran.
    const sandbox = new PythonSandbox({ timeoutMs: 5000 }, { workers: 1 });
    try {
      const interleaved = POISONERS.flatMap((p, i) => [p, HONEST[i % HONEST.length][0]]).concat(HONEST.map(([h]) => h));
      const outcomes = async (order: string[]) => {
        const byCode = new Map<string, SandboxOutcome[]>();
        for (const code of order) byCode.set(code, [...(byCode.get(code) ?? []), await sandbox.run(code)]);
        return byCode;
      };
      const forward = await outcomes(interleaved);
      const backward = await outcomes([...interleaved].reverse());
      for (const [code, expected] of HONEST) {
        for (const got of [...forward.get(code)!, ...backward.get(code)!]) assert.deepEqual(got, expected, code);
      }
      for (const code of POISONERS) assert.deepEqual(backward.get(code), forward.get(code), code);
      assert.equal(forward.get(POISONERS[0])![0].ok, false);
      assert.deepEqual(forward.get(POISONERS[0]), [
        { ok: false, reason: "blocked:host-bridge", detail: "rewrite of a sandbox guard" },
      ]);
      assert.equal((forward.get(POISONERS[7])![0] as { reason: string }).reason, "crash");
    } finally {
      sandbox.close();
    }
  });

  describe("on one worker", () => {
    let sandbox: PythonSandbox;
    before(async () => {
      sandbox = new PythonSandbox({ timeoutMs: 5000 }, { workers: 1 });
      await sandbox.start();
    });
    after(() => sandbox.close());

    it("refuses a rewrite of the audit hook's helpers, and an escape after it is still recorded", async () => {
      const rewrite = [
        "import sys",
        "rule = sys.meta_path[0].find_spec.__defaults__[-1]",
        "blocked = [d for d in rule.__defaults__ if getattr(d, '__name__', '') == 'blocked'][0]",
        "try:",
        "    rule.__defaults__ = (None,) * len(rule.__defaults__)",
        "except Exception:",
        "    pass",
        "try:",
        "    blocked.__code__ = (lambda kind, event: None).__code__",
        "except Exception:",
        "    pass",
        "try:",
        "    open('/etc/passwd').read()",
        "except Exception:",
        "    pass",
        "return 1",
      ].join("\n");
      assert.deepEqual(await sandbox.run(solution(rewrite)), {
        ok: false,
        reason: "blocked:host-bridge",
        detail: "rewrite of a sandbox guard",
      });
      // Only the open, with the rewrite never tried: the hook's helpers are whole.
      const escape = "try:\n    open('/etc/passwd').read()\nexcept Exception:\n    pass\nreturn 1";
      assert.deepEqual(await sandbox.run(solution(escape)), {
        ok: false,
        reason: "blocked:filesystem",
        detail: "open",
      });
    });

    it("makes reaching _pyodide_core through _imp.create_builtin a violation, however it is asked", async () => {
      for (const body of [
        "import _imp, importlib.machinery\ntry:\n    _imp.create_builtin(importlib.machinery.ModuleSpec('_pyodide_core', None, origin='built-in'))\nexcept Exception:\n    pass\nreturn 1",
        "import importlib._bootstrap as b\ntry:\n    b._builtin_from_name('_pyodide_core')\nexcept Exception:\n    pass\nreturn 1",
        "import sys\nbox = []\nsys.audit('agent_lab.create_builtin', '_pyodide_core', box)\nreturn len(box)",
        // A fresh _imp would hold the original function.
        "import _imp, types\ntry:\n    _imp.create_builtin(types.SimpleNamespace(name='_imp'))\nexcept Exception:\n    pass\nreturn 1",
      ]) {
        const r = await sandbox.run(solution(body));
        assert.equal(r.ok ? "ok" : r.reason, "blocked:host-bridge", body);
      }
      // Built-in modules not imported yet still load.
      assert.deepEqual(await sandbox.run(solution("import _bisect, _heapq, _json\nreturn 3")), int(3));
    });
  });

  it("kills hung tasks side by side at their own limit, not one after another", async () => {
    const limit = 1500;
    const hung = [
      solution("return sum(range(10**15))"), // one C call: the interrupt is never polled
      solution("while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"),
    ];
    // Workers start before the clock does (and slowly on a loaded machine: a generous start-up limit).
    const sandbox = new PythonSandbox({ timeoutMs: limit, startupMs: 300_000 }, { workers: hung.length });
    try {
      await sandbox.start(hung.length);
      const t0 = Date.now();
      const outcomes = await Promise.all(hung.map((code) => sandbox.run(code)));
      const wall = Date.now() - t0;
      assert.deepEqual(
        outcomes.map((o) => (o.ok ? "ok" : o.reason)),
        hung.map(() => "timeout"),
      );
      // One after another: a limit and its grace each, and a worker's restart between them.
      assert.ok(wall < 1.6 * (limit + KILL_GRACE_MS), `took ${wall} ms`);
      assert.deepEqual(await sandbox.run(solution("return 5")), int(5));
    } finally {
      sandbox.close();
    }
  });

  it("writes no host path into the files gen-tasks leaves (from sys.argv, sys.executable or a crash)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-host-paths-"));
    try {
      const bodies = [
        "import sys\nraise ValueError(repr(sys.argv) + repr(sys.orig_argv) + sys.executable)",
        "import sys\nreturn ' '.join(sys.orig_argv + [sys.executable])",
        "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nreturn f(0)",
        // Right after the crash above: its worker must not take this task.
        "return 'Paris'",
      ];
      const file = join(dir, "candidates.jsonl");
      writeFileSync(
        file,
        bodies.map((b, i) => JSON.stringify({ problem: `Host path probe ${i}.`, solution: solution(b) })).join("\n"),
      );
      const out = join(dir, "out");
      await filterCandidates({
        candidatesFile: file,
        outDir: out,
        answerFormat: "text",
        sandbox: new PythonSandbox({ timeoutMs: 5000 }, { workers: 1 }),
      });
      const hostPaths = [REPO, realpathSync(REPO), workerFiles().pyodideDir];
      for (const name of readdirSync(out)) {
        const text = readFileSync(join(out, name), "utf8");
        for (const p of hostPaths) assert.ok(!text.includes(p), `${name} holds ${p}: ${text.slice(0, 600)}`);
      }
      const rejected = readFileSync(join(out, "rejected.jsonl"), "utf8");
      assert.match(rejected, /ValueError/);
      assert.match(rejected, /"line":3,"reason":"crash"/);
      assert.match(readFileSync(join(out, "tasks.jsonl"), "utf8"), /"answer":"Paris"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
