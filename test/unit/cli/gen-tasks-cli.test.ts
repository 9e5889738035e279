/**
 * `agent-lab gen-tasks` end to end: the real CLI and the real sandbox on the shipped example
 * (data/tasks/candidates-example.jsonl, 20 word problems and 13 escape attempts) with an eval file
 * the test writes, a fake TINKER_API_KEY in the CLI's environment, and a rerun that must resume.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FilterAudit, type RejectedRecord } from "../../../src/core/steps/tasks/filter";
import { AUDIT_FILE, REJECTED_FILE, TASKS_FILE } from "../../../src/core/base/task-sets/files";
import { REPO, runCli } from "./cli-process";

const EXAMPLE = join(REPO, "data", "tasks", "candidates-example.jsonl");
const FAKE_KEY = "sk-agent-lab-cli-test-fedcba9876543210";
/** Where two of the example's escape attempts would write (see the example file). */
const ESCAPE_FILE = "/tmp/agent-lab-sandbox-escape.txt";

describe("cli: agent-lab gen-tasks", function () {
  this.timeout(180_000);
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-gen-tasks-"));
    rmSync(ESCAPE_FILE, { force: true });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("filters the shipped example: every escape rejected with its reason, the audit counted exactly, a rerun resumes", async () => {
    const example = readFileSync(EXAMPLE, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { problem: string });
    // An eval set holding the example's second problem verbatim and a long run of its third.
    const evalFile = join(dir, "eval.jsonl");
    writeFileSync(
      evalFile,
      [
        { question: example[1].problem },
        { question: `Yesterday: ${example[2].problem.split(" ").slice(0, 14).join(" ")} and so on.` },
      ]
        .map((q) => JSON.stringify(q))
        .join("\n") + "\n",
    );
    const out = join(dir, "out");
    const args = [
      "gen-tasks",
      "--candidates",
      EXAMPLE,
      "--out",
      out,
      "--solve-rate",
      "off",
      "--eval-items",
      evalFile,
      "--timeout-ms",
      "1500",
    ];
    const r = await runCli(args, { TINKER_API_KEY: FAKE_KEY });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /33 candidates → 15 tasks \(yield 0\.4545\)/);

    const audit = JSON.parse(readFileSync(join(out, AUDIT_FILE), "utf8")) as FilterAudit;
    assert.deepEqual(audit.counts, {
      "eval-overlap": 2,
      error: 1,
      timeout: 2,
      memory: 1,
      "blocked:filesystem": 2,
      "blocked:network": 1,
      "blocked:process": 2,
      "blocked:environment": 1,
      "blocked:host-bridge": 4,
      crash: 0,
      "non-numeric": 1,
      "non-text": 0,
      duplicate: 1,
      "solve-rate:all-solved": 0,
      "solve-rate:none-solved": 0,
    });
    assert.deepEqual([audit.accepted, audit.rejected, audit.candidates.count], [15, 18, 33]);
    assert.deepEqual(
      audit.eval_overlap && [audit.eval_overlap.count, audit.eval_overlap.exact, audit.eval_overlap.ngram_matches],
      [2, 1, 1],
    );
    assert.deepEqual(audit.solve_rate, { mode: "off" });
    assert.equal(audit.timings.executed, 31);

    const rejected = readFileSync(join(out, REJECTED_FILE), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RejectedRecord);
    const byLine = new Map(rejected.map((x) => [x.line, x.reason]));
    assert.deepEqual(
      [21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33].map((l) => byLine.get(l)),
      [
        "blocked:filesystem",
        "blocked:filesystem",
        "blocked:network",
        "blocked:host-bridge",
        "blocked:host-bridge",
        "blocked:host-bridge",
        "blocked:host-bridge",
        "blocked:process",
        "blocked:process",
        "blocked:environment",
        "memory",
        "timeout",
        "timeout",
      ],
    );
    assert.equal(existsSync(ESCAPE_FILE), false);
    for (const f of [TASKS_FILE, REJECTED_FILE, AUDIT_FILE, "results.jsonl"])
      assert.ok(!readFileSync(join(out, f), "utf8").includes(FAKE_KEY), f);

    // Rerun: every candidate already decided, nothing executes, the same bytes come out.
    const tasks = readFileSync(join(out, TASKS_FILE));
    const rejectedBytes = readFileSync(join(out, REJECTED_FILE));
    const again = await runCli(args);
    assert.equal(again.code, 0, again.stderr);
    const audit2 = JSON.parse(readFileSync(join(out, AUDIT_FILE), "utf8")) as FilterAudit;
    assert.deepEqual([audit2.timings.executed, audit2.timings.reused, audit2.timings.worker_starts], [0, 31, 0]);
    assert.deepEqual(readFileSync(join(out, TASKS_FILE)), tasks);
    assert.deepEqual(readFileSync(join(out, REJECTED_FILE)), rejectedBytes);
    assert.deepEqual({ ...audit2, timings: undefined }, { ...audit, timings: undefined });
  });

  it("bad input and missing flags are one-line errors naming the file:line or the flag", async () => {
    const bad = join(dir, "bad.jsonl");
    writeFileSync(
      bad,
      `${JSON.stringify({ problem: "p", solution: "def solution():\n    return 1" })}\n{"problem": "no solution"}\n`,
    );
    const r = await runCli(["gen-tasks", "--candidates", bad, "--out", join(dir, "o"), "--solve-rate", "off"]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.trim(),
      `agent-lab gen-tasks: ${bad}:2: "solution" must be a non-empty string (each line is {"problem": …, "solution": "def solution(): …"})`,
    );
    // The default solve-rate filter tries each task with the base policy on Tinker: without a key, one line saying so.
    const noKey = await runCli(["gen-tasks", "--candidates", EXAMPLE, "--out", join(dir, "o")], { TINKER_API_KEY: "" });
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr.trim().split("\n").pop()!, /^agent-lab gen-tasks: .*TINKER_API_KEY/);
    const neither = await runCli(["gen-tasks", "--out", join(dir, "o"), "--solve-rate", "off"]);
    assert.equal(
      neither.stderr.trim(),
      "agent-lab gen-tasks: say where the candidates come from: --candidates FILE, --generator scripted, or --model/--model-path (with --backend)",
    );
    const missing = await runCli([
      "gen-tasks",
      "--candidates",
      join(dir, "nope.jsonl"),
      "--out",
      join(dir, "o"),
      "--solve-rate",
      "off",
    ]);
    assert.equal(
      missing.stderr.trim().split("\n").pop(),
      `agent-lab gen-tasks: ${join(dir, "nope.jsonl")}: candidates file not found`,
    );
  });
});
