/**
 * The filter logic of gen-tasks with a scripted sandbox (each solution's outcome given by the test)
 * and a scripted solve-rate policy: the order of the filters, the k/k and 0/k drops and histogram,
 * resume (nothing runs twice), byte-identical reruns, and one-line errors for bad input. The real
 * sandbox and the real CLI run in cli/gen-tasks-cli.test.ts.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError, UserError } from "../../../../../src/core/base/errors";
import {
  candidateId,
  filterCandidates,
  type FilterAudit,
  type RejectedRecord,
  type TaskRecord,
} from "../../../../../src/core/steps/tasks/filter";
import { AUDIT_FILE, REJECTED_FILE, RESULTS_FILE, TASKS_FILE } from "../../../../../src/core/base/task-sets/files";
import type { SandboxOutcome } from "../../../../../src/core/steps/tasks/sandbox/protocol";
import {
  DEFAULT_SANDBOX_LIMITS,
  type SandboxRun,
  type TaskSandbox,
} from "../../../../../src/core/steps/tasks/sandbox/sandbox";
import type { SolvableTask } from "../../../../../src/core/steps/tasks/solve-rate";

/** Solutions are "return <n>" or one of a few keywords; the outcome follows from the text alone. */
class ScriptedSandbox implements TaskSandbox {
  readonly limits = DEFAULT_SANDBOX_LIMITS;
  readonly codeSha256 = "scripted";
  readonly concurrency = 1;
  starts = 0;
  runs: string[] = [];
  /** Solutions whose run is reported as not clean (it ran where another task could have left something). */
  unclean = new Set<string>();
  async execute(code: string): Promise<SandboxRun> {
    return { outcome: this.outcome(code), clean: !this.unclean.has(code) };
  }
  private outcome(code: string): SandboxOutcome {
    this.runs.push(code);
    if (code === "boom") return { ok: false, reason: "error", detail: "ZeroDivisionError: division by zero" };
    if (code === "escape") return { ok: false, reason: "blocked:filesystem", detail: "open" };
    if (code === "words") return { ok: true, value: { type: "str", repr: "" } };
    const m = /^return (.+)$/.exec(code);
    if (!m) throw new Error(`unscripted ${code}`);
    return { ok: true, value: { type: m[1].includes(".") ? "float" : "int", repr: m[1] } };
  }
  close(): void {}
}

const line = (problem: string, solution: string) => JSON.stringify({ problem, solution });

describe("tasks: gen-tasks filters (scripted sandbox and policy)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-filter-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function write(name: string, lines: string[]): string {
    const file = join(dir, name);
    writeFileSync(file, lines.join("\n") + "\n");
    return file;
  }
  const read = <T>(out: string, name: string): T[] =>
    readFileSync(join(out, name), "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as T);

  const candidates = () =>
    write("candidates.jsonl", [
      line("Ann has 3 apples and buys 4 more. How many apples does she have?", "return 7"), // 1: kept (solved 4/8)
      line("A bus carries 40 people on each of 3 trips. How many people ride in total?", "return 120"), // 2: 8/8, dropped
      line("A tank holds 9.5 litres and loses 2 a day. What is left after 3 days?", "return 3.5"), // 3: 0/8, dropped
      line("ANN has 3 apples, and buys 4 more!  How many apples does she have?", "return 7"), // 4: duplicate of 1
      line("Divide by zero.", "boom"), // 5: error
      line("Escape.", "escape"), // 6: blocked
      line("Say a word.", "words"), // 7: non-numeric
      line(
        "Copy of an eval item: a farmer has 12 cows and sells 5 of them at the market on a sunny day. How many remain?",
        "return 7",
      ), // 8: overlap
    ]);
  const evalItems = () =>
    write("eval.jsonl", [
      JSON.stringify({
        question: "Yesterday a farmer has 12 cows and sells 5 of them at the market on a sunny day, and then?",
        answer: "#### 7",
      }),
    ]);

  /** Correct on try i when i < solvedTries(problem). */
  function policy(calls: SolvableTask[]) {
    return async (task: SolvableTask) => {
      calls.push(task);
      const solved = task.problem.startsWith("Ann") ? 4 : task.problem.startsWith("A bus") ? 8 : 0;
      return Array.from({ length: 8 }, (_, i) => i < solved);
    };
  }

  it("drops k/k and 0/k tasks, keeps the rest with their rate, and counts every reason", async () => {
    const sandbox = new ScriptedSandbox();
    const calls: SolvableTask[] = [];
    const out = join(dir, "out");
    const audit = await filterCandidates({
      candidatesFile: candidates(),
      outDir: out,
      evalItemsFile: evalItems(),
      sandbox,
      solveRate: { id: "scripted", tries: 8, solve: policy(calls) },
    });
    assert.deepEqual(Object.fromEntries(Object.entries(audit.counts).filter(([, n]) => n > 0)), {
      "eval-overlap": 1,
      error: 1,
      "blocked:filesystem": 1,
      "non-numeric": 1,
      duplicate: 1,
      "solve-rate:all-solved": 1,
      "solve-rate:none-solved": 1,
    });
    assert.equal(audit.accepted, 1);
    assert.equal(audit.yield, 0.125);
    assert.deepEqual(audit.solve_rate, {
      mode: "policy",
      policy: "scripted",
      tries: 8,
      histogram: { "0": 1, "1": 0, "2": 0, "3": 0, "4": 1, "5": 0, "6": 0, "7": 0, "8": 1 },
    });
    assert.deepEqual(
      audit.eval_overlap && {
        count: audit.eval_overlap.count,
        exact: audit.eval_overlap.exact,
        ngram: audit.eval_overlap.ngram_matches,
      },
      { count: 1, exact: 0, ngram: 1 },
    );
    // Only candidates that passed every other filter met the (paid) policy; the overlap one never ran.
    assert.deepEqual(
      calls.map((c) => c.answer),
      ["7", "120", "3.5"],
    );
    assert.equal(sandbox.runs.length, 7);
    const tasks = read<TaskRecord>(out, TASKS_FILE);
    assert.deepEqual(
      tasks.map((t) => [t.answer, t.solve_rate]),
      [["7", 0.5]],
    );
    assert.match(tasks[0].solution_sha256, /^[0-9a-f]{64}$/);
    const rejected = read<RejectedRecord>(out, REJECTED_FILE);
    assert.deepEqual(
      rejected.map((r) => [r.line, r.reason]),
      [
        [2, "solve-rate:all-solved"],
        [3, "solve-rate:none-solved"],
        [4, "duplicate"],
        [5, "error"],
        [6, "blocked:filesystem"],
        [7, "non-numeric"],
        [8, "eval-overlap"],
      ],
    );
    assert.equal(rejected[2].detail, "same problem as line 1");
    assert.equal(rejected[6].detail, "shares a 13-word run with eval item at line 1");
  });

  it("with the solve rate off, keeps every runnable task with a null rate", async () => {
    const audit = await filterCandidates({
      candidatesFile: candidates(),
      outDir: join(dir, "out"),
      sandbox: new ScriptedSandbox(),
    });
    assert.equal(audit.accepted, 4);
    assert.deepEqual(audit.solve_rate, { mode: "off" });
    assert.equal(audit.eval_overlap, null);
    assert.ok(read<TaskRecord>(join(dir, "out"), TASKS_FILE).every((t) => t.solve_rate === null));
  });

  it("resumes: a rerun executes nothing already decided, and only the new candidates", async () => {
    const file = candidates();
    const out = join(dir, "out");
    const first = new ScriptedSandbox();
    const calls: SolvableTask[] = [];
    const options = {
      candidatesFile: file,
      outDir: out,
      evalItemsFile: evalItems(),
      solveRate: { id: "scripted", tries: 8, solve: policy(calls) },
    };
    await filterCandidates({ ...options, sandbox: first });
    const before = readFileSync(join(out, TASKS_FILE));
    const second = new ScriptedSandbox();
    const audit = await filterCandidates({ ...options, sandbox: second });
    assert.equal(second.runs.length, 0);
    assert.equal(calls.length, 3, "no policy call on the rerun");
    assert.deepEqual([audit.timings.executed, audit.timings.reused], [0, 7]);
    assert.deepEqual(readFileSync(join(out, TASKS_FILE)), before);

    writeFileSync(
      file,
      readFileSync(file, "utf8") + line("Bo has 10 pens and loses 6. How many pens are left?", "return 4") + "\n",
    );
    const third = new ScriptedSandbox();
    const more = await filterCandidates({ ...options, sandbox: third });
    assert.deepEqual(third.runs, ["return 4"]);
    assert.equal(more.counts["solve-rate:none-solved"], 2);
  });

  it("caches only clean runs: an outcome that may carry another task's doing is run again next time", async () => {
    const file = candidates();
    const out = join(dir, "out");
    const first = new ScriptedSandbox();
    first.unclean.add("return 120");
    const firstAudit = await filterCandidates({ candidatesFile: file, outDir: out, sandbox: first });
    const id = candidateId({
      line: 2,
      problem: "A bus carries 40 people on each of 3 trips. How many people ride in total?",
      solution: "return 120",
    });
    const cached = readFileSync(join(out, RESULTS_FILE), "utf8");
    assert.ok(cached.includes(candidateId({ line: 1, problem: "Say a word.", solution: "words" })));
    assert.ok(!cached.includes(id), "the unclean outcome is not in results.jsonl");
    const second = new ScriptedSandbox();
    const audit = await filterCandidates({ candidatesFile: file, outDir: out, sandbox: second });
    assert.deepEqual(second.runs, ["return 120"]);
    assert.deepEqual([audit.timings.executed, audit.accepted], [1, firstAudit.accepted]);
  });

  it("gives the same bytes for the same input (only the timings differ)", async () => {
    const file = candidates();
    const evals = evalItems();
    const run = (out: string) =>
      filterCandidates({
        candidatesFile: file,
        outDir: join(dir, out),
        evalItemsFile: evals,
        sandbox: new ScriptedSandbox(),
        solveRate: { id: "s", tries: 8, solve: policy([]) },
      });
    await run("a");
    await run("b");
    for (const f of [TASKS_FILE, REJECTED_FILE])
      assert.deepEqual(readFileSync(join(dir, "a", f)), readFileSync(join(dir, "b", f)), f);
    const strip = (out: string) => {
      const audit = JSON.parse(readFileSync(join(dir, out, AUDIT_FILE), "utf8")) as Partial<FilterAudit>;
      delete audit.timings;
      return audit;
    };
    assert.deepEqual(strip("a"), strip("b"));
  });

  it("names file:line for bad candidates and eval items, and refuses a folder filtered with other limits", async () => {
    const bad = write("bad.jsonl", [line("ok", "return 1"), "{not json", line("x", "return 2")]);
    await assert.rejects(
      filterCandidates({ candidatesFile: bad, outDir: join(dir, "o"), sandbox: new ScriptedSandbox() }),
      (e: Error) => e instanceof FileFormatError && e.message.startsWith(`${bad}:2: not valid JSON`),
    );
    const missing = write("missing.jsonl", [line("ok", "return 1"), JSON.stringify({ problem: "no solution" })]);
    await assert.rejects(
      filterCandidates({ candidatesFile: missing, outDir: join(dir, "o"), sandbox: new ScriptedSandbox() }),
      (e: Error) => e.message.startsWith(`${missing}:2: "solution" must be a non-empty string`),
    );
    const evals = write("evals.jsonl", [JSON.stringify({ answer: "3" })]);
    await assert.rejects(
      filterCandidates({
        candidatesFile: candidates(),
        outDir: join(dir, "o"),
        evalItemsFile: evals,
        sandbox: new ScriptedSandbox(),
      }),
      (e: Error) => e.message === `${evals}:1: expected a "question" (or "problem") string`,
    );

    const out = join(dir, "out");
    await filterCandidates({ candidatesFile: candidates(), outDir: out, sandbox: new ScriptedSandbox() });
    const other = Object.assign(new ScriptedSandbox(), { limits: { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 1 } });
    await assert.rejects(
      filterCandidates({ candidatesFile: candidates(), outDir: out, sandbox: other }),
      (e: Error) => e instanceof UserError && /different timeout_ms; filter into a new --out folder/.test(e.message),
    );
  });

  it("ids are content hashes, so a moved line keeps its id", () => {
    assert.equal(
      candidateId({ line: 1, problem: "p", solution: "s" }),
      candidateId({ line: 9, problem: "p", solution: "s" }),
    );
    assert.notEqual(
      candidateId({ line: 1, problem: "p", solution: "s" }),
      candidateId({ line: 1, problem: "p", solution: "t" }),
    );
  });
});
