/**
 * gen-tasks from a generator, with the real sandbox: the scripted generator's drafts (some broken on
 * purpose) go through every filter and the solve-rate filter; the folder is a run folder (manifest,
 * lock, progress, ledger); a rerun resumes and a changed setting is refused; the budget cap stops
 * a paid generation before it goes over; a model's replies are parsed into candidates.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import { UserError } from "../../../../../src/core/base/errors";
import type { Policy, SampleOptions } from "../../../../../src/core/harness/policy";
import { readProgress } from "../../../../../src/core/base/runs/progress";
import { lockRunFolder } from "../../../../../src/core/base/runs/run-folder";
import { type TaskRecord } from "../../../../../src/core/steps/tasks/filter";
import { AUDIT_FILE, TASKS_FILE } from "../../../../../src/core/base/task-sets/files";
import {
  CANDIDATES_FILE,
  genTasks,
  GENERATION_FILE,
  type GenTasksAudit,
} from "../../../../../src/core/steps/tasks/gen-tasks";
import { ModelGenerator } from "../../../../../src/core/steps/tasks/generators/model";
import { parseGeneratorReply } from "../../../../../src/core/steps/tasks/generators/reply";
import { scriptedGsm8kGenerator } from "../../../../../src/core/envs/gsm8k/gen-tasks";
import { readWorldFacts, scriptedWorldGenerator } from "../../../../../src/core/envs/hotpotqa/gen-tasks";
import { scriptedSolver } from "../../../../../src/core/steps/tasks/solvers";
import { generateSyntheticHotpot } from "../../../../../src/core/envs/hotpotqa/synthetic-world";

const PRICES = { prefill: 1, sample: 1, train: 1 };

describe("tasks: gen-tasks from a generator", function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-gen-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Each call gets its own sandbox (the filter closes the one it runs): short limits keep the endless loops quick.
  const base = (out: string) => ({
    outDir: out,
    prices: null,
    budgetUsd: 0,
    limits: { timeoutMs: 400, memoryBytes: 256 * 2 ** 20 },
    command: ["agent-lab", "gen-tasks", "(test)"],
  });

  it("scripted GSM8K drafts: every broken kind rejected with its reason, the solve rate by the scripted solver, a run folder", async () => {
    const out = join(dir, "gsm8k");
    const r = await genTasks({
      ...base(out),
      env: "gsm8k",
      generator: { generator: scriptedGsm8kGenerator({ seed: 3, brokenShare: 0.5 }), count: 40 },
      solver: scriptedSolver(3, 8),
    });
    assert.equal(r.status, "done");
    const a = JSON.parse(readFileSync(join(out, AUDIT_FILE), "utf8")) as GenTasksAudit;
    assert.equal(a.generation?.drawn, 40);
    assert.equal(a.candidates.count, 40);
    for (const reason of [
      "error",
      "timeout",
      "non-numeric",
      "duplicate",
      "blocked:environment",
      "solve-rate:all-solved",
      "solve-rate:none-solved",
    ] as const)
      assert.ok(a.counts[reason] > 0, `${reason}: ${JSON.stringify(a.counts)}`);
    assert.equal(a.solve_rate.mode, "policy");
    if (a.solve_rate.mode === "policy")
      assert.equal(
        Object.values(a.solve_rate.histogram).reduce((s, n) => s + n, 0),
        a.accepted + a.counts["solve-rate:all-solved"] + a.counts["solve-rate:none-solved"],
      );
    const tasks = readFileSync(join(out, TASKS_FILE), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as TaskRecord);
    assert.equal(tasks.length, a.accepted);
    for (const t of tasks) {
      assert.match(t.answer, /^-?\d+(\.\d+)?$/);
      assert.ok(t.solve_rate! > 0 && t.solve_rate! < 1);
    }
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as {
      kind: string;
      source: { kind: string; generator: string };
    };
    assert.deepEqual([m.kind, m.source.kind, m.source.generator], ["gen-tasks", "generator", "scripted:gsm8k@seed3"]);
    assert.equal(readProgress(out)?.status, "done");
    assert.ok(existsSync(join(out, "ledger.jsonl")) || a.spend.usd === 0);
    assert.ok(!existsSync(join(out, ".lock")));

    // A rerun decides the same from its records (nothing new runs), a changed setting is refused, a live writer too.
    const again = await genTasks({
      ...base(out),
      env: "gsm8k",
      generator: { generator: scriptedGsm8kGenerator({ seed: 3, brokenShare: 0.5 }), count: 40 },
      solver: scriptedSolver(3, 8),
    });
    assert.equal(again.audit?.timings.executed, 0);
    assert.deepEqual({ ...again.audit, timings: undefined }, { ...a, timings: undefined });
    await assert.rejects(
      genTasks({
        ...base(out),
        env: "gsm8k",
        generator: { generator: scriptedGsm8kGenerator({ seed: 3, brokenShare: 0.5 }), count: 40 },
        solver: scriptedSolver(3, 4),
      }),
      (e: Error) => e instanceof UserError && /fingerprint differs in 1 field\(s\): solve_rate/.test(e.message),
    );
    const lock = lockRunFolder(out, "another gen-tasks");
    try {
      await assert.rejects(
        genTasks({
          ...base(out),
          env: "gsm8k",
          generator: { generator: scriptedGsm8kGenerator({ seed: 3, brokenShare: 0.5 }), count: 40 },
          solver: scriptedSolver(3, 8),
        }),
        /another gen-tasks/,
      );
    } finally {
      lock.release();
    }
  });

  it("HotpotQA-style drafts over a world's paragraphs: text answers computed by the code, checked against the eval set", async () => {
    const world = generateSyntheticHotpot({ seed: 5, train: 40, dev: 40, style: "compact" });
    const paragraphs = [...world.train, ...world.dev].flatMap((r) =>
      r.context.map(([title, sentences]) => ({ title, text: sentences.join("") })),
    );
    const facts = readWorldFacts(paragraphs);
    assert.ok(facts.people.length > 10 && facts.companies.length > 5 && facts.towns.size > 5);
    const evalFile = join(dir, "val.jsonl");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(evalFile, world.dev.map((q) => JSON.stringify({ question: q.question })).join("\n") + "\n");
    const out = join(dir, "hotpot");
    // 100 drafts: at 60, this world's one wrong-type draft asks an eval question and is dropped as eval-overlap first.
    const r = await genTasks({
      ...base(out),
      env: "hotpotqa",
      generator: { generator: scriptedWorldGenerator(facts, { seed: 2 }), count: 100 },
      evalItemsFile: evalFile,
    });
    const a = r.audit!;
    assert.equal(a.answer_format, "text");
    assert.ok(a.counts["non-text"] > 0, JSON.stringify(a.counts));
    const tasks = readFileSync(join(out, TASKS_FILE), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as TaskRecord);
    const byQuestion = new Map([...world.train, ...world.dev].map((q) => [q.question, q.answer]));
    let checked = 0;
    for (const t of tasks) {
      const truth = byQuestion.get(t.problem);
      if (truth !== undefined) {
        assert.equal(t.answer, truth, t.problem);
        checked++;
      }
    }
    assert.ok(
      tasks.length > 20 && checked > 0,
      `${tasks.length} tasks, ${checked} checked against the world's own answers`,
    );
  });

  it("stops a paid generation at the budget cap before the draw that would pass it, and resumes from there", async () => {
    const tok = await offlineTokenizer("qwen3");
    const reply =
      "Problem: Ann has 3 apples and buys 4 more. How many apples does she have?\n\n```python\ndef solution():\n    return 3 + 4\n```";
    let calls = 0;
    const policy: Policy = {
      tokenizer: tok,
      endToken: tok.tokenId("<|im_end|>"),
      describe: () => ({ kind: "test", model: "canned", logprobs: true }),
      async sample(_p: readonly number[], o: SampleOptions) {
        calls++;
        const tokens = tok.encode(
          `${reply.replace("3 + 4", `3 + ${o.seed! % 5}`).replace("buys 4", `buys ${o.seed! % 5}`)}<|im_end|>`,
        );
        return { tokens, logprobs: tokens.map(() => 0), stopReason: "stop" };
      },
    };
    const gen = new ModelGenerator({
      policy,
      promptText: "write a task",
      seed: 0,
      temperature: 1,
      maxTokens: 64,
      paid: true,
    });
    const out = join(dir, "paid");
    // $1 per 1M tokens: each draw is ~100 tokens, so a $0.0005 cap allows about five.
    const o = {
      ...base(out),
      env: "gsm8k" as const,
      generator: { generator: gen, count: 20, promptText: "write a task", promptFile: "p.md" },
      prices: PRICES,
      budgetUsd: 0.0005,
      estimateDrawUsd: 0.0001,
    };
    const r = await genTasks(o);
    assert.equal(r.status, "budget");
    assert.match(r.message!, /^budget cap \$0\.00 reached/);
    const drawn = readFileSync(join(out, GENERATION_FILE), "utf8").trim().split("\n").length;
    assert.ok(drawn > 0 && drawn < 20 && calls === drawn, `${drawn} drawn, ${calls} calls`);
    const done = await genTasks({ ...o, budgetUsd: 0 });
    assert.equal(done.status, "done");
    assert.equal(calls, 20);
    assert.equal(done.audit!.generation!.parsed, 20);
    assert.match(done.audit!.hashes.generation_prompt_sha256 ?? "", /^[0-9a-f]{64}$/);
    assert.ok(done.audit!.spend.usd > 0.0004);
    assert.equal(readFileSync(join(out, CANDIDATES_FILE), "utf8").trim().split("\n").length, 20);
  });

  it("parses a reply into problem and solution, and says why when it cannot", () => {
    assert.deepEqual(
      parseGeneratorReply(
        "<think>hmm</think>**Problem:** A box holds 12 eggs. How many eggs are in 3 boxes?\n\n```python\ndef solution():\n    return 12 * 3\n```\n",
      ),
      {
        problem: "A box holds 12 eggs. How many eggs are in 3 boxes?",
        solution: "def solution():\n    return 12 * 3",
      },
    );
    assert.deepEqual(parseGeneratorReply("Problem: twelve eggs and more words here\nno code"), {
      error: "no fenced Python block",
    });
    assert.deepEqual(parseGeneratorReply("Problem: A box holds 12 eggs, how many?\n```python\nprint(36)\n```"), {
      error: "the code defines no solution()",
    });
  });
});
