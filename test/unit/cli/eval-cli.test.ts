/**
 * End to end through the real CLI: `agent-lab demo` builds a workspace (synthetic data, prepare,
 * index, two evals, show); then eval runs in it are killed with SIGKILL and SIGTERM and resumed.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../src/core/base/chat";
import { loadConfig } from "../../../src/core/envs/config";
import type { Policy } from "../../../src/core/harness/policy";
import { evalSplit, TEST_SPLIT_FLAG } from "../../../src/core/steps/eval/eval-split";
import { readEpisodes } from "../../../src/core/base/runs/run-files";
import { runFile, runWriter } from "../../../src/core/base/runs/run-folder";
import { cachedForCompare } from "../../../src/core/steps/ablate/compare-cache";
import type { RunSummary } from "../../../src/core/base/runs/summary";
import { runCli, startCli, waitFor } from "./cli-process";
import { environmentMetrics } from "../../../src/core/envs/catalog";

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0);
const summaryOf = (run: string) => JSON.parse(readFileSync(join(run, "summary.json"), "utf8")) as RunSummary;

describe("cli: demo, eval (kill -9, SIGTERM, resume, test split), show", function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;
  let valIds: string[];

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-cli-"));
    ws = join(root, "demo");
  });
  // root is unset when the before hook skipped (no shared data): nothing to remove then.
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("agent-lab demo runs the whole offline pipeline, says it is a stand-in, and shows failures", async () => {
    const started = Date.now();
    const r = await runCli(["demo", "--dir", ws]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - started < 60_000, "under a minute");
    assert.match(r.stdout, /stand-in/);
    assert.match(r.stdout, /corpus \d+ paragraphs \| train 300 \| val 200 \| test 500/);
    const open = /heuristic: EM ([\d.]+) {2}F1 ([\d.]+) {2}searches ([\d.]+) {2}answered 100% {2}\$0\.0000\/q/.exec(
      r.stdout,
    );
    const closed = /closed-book: EM [\d.]+ {2}F1 ([\d.]+) {2}searches 0\.00/.exec(r.stdout);
    assert.ok(open && closed, r.stdout);
    assert.ok(Number(open[2]) > Number(closed[1]) + 0.3, "searching beats the closed-book floor by a wide margin");
    assert.ok(Number(open[3]) >= 1, "it searched");
    assert.match(r.stdout, /Failures \(F1 < 0\.5\)/);
    assert.match(r.stdout, /⟦<result>⟧/, "inserted text is fenced when stdout is not a terminal");
    const heuristic = join(ws, "runs", "heuristic");
    assert.equal(readEpisodes(heuristic, environmentMetrics).length, 200);
    assert.equal(summaryOf(heuristic).status, "done");
    valIds = readFileSync(join(ws, "data", "val.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).id);
    // Rerunning into the same folder replaces it; a foreign folder is refused.
    writeFileSync(join(root, "keep.txt"), "x");
    const refused = await runCli(["demo", "--dir", root]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /was not made by "agent-lab demo"/);
  });

  it("kill -9 mid-run loses at most the episodes in flight; --resume completes it with unique ids", async function () {
    if (!valIds) this.skip();
    const run = join(ws, "runs", "k9");
    const args = ["eval", "--workspace", ws, "--name", "k9", "--limit", "100", "--concurrency", "4"];
    const { child, done } = await startCli([...args, "--scripted-delay-ms", "50"]);
    await waitFor(() => lines(join(run, "episodes.jsonl")) >= 12, 60_000, "12 finished episodes");
    child.kill("SIGKILL");
    const killed = await done;
    assert.equal(killed.signal, "SIGKILL");
    const before = readEpisodes(run, environmentMetrics).map((e) => e.id);
    assert.ok(before.length >= 12 && before.length < 100, `${before.length} kept`);
    assert.equal(summaryOf(run).status, "running", "a killed job cannot close its summary");
    assert.equal(existsSync(runFile(run, "compareCache")), false, "no Compare cache for an unfinished run");

    const resumed = await runCli([...args, "--resume"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(
      resumed.stdout,
      new RegExp(`resumed: ${before.length} episodes were already done, ${100 - before.length} run now`),
    );
    const ids = readEpisodes(run, environmentMetrics).map((e) => e.id);
    assert.equal(lines(join(run, "episodes.jsonl")), 100, "no duplicate lines on disk");
    assert.equal(new Set(ids).size, 100);
    assert.deepEqual([...ids].sort(), valIds.slice(0, 100).sort());
    assert.deepEqual(ids.slice(0, before.length), before, "finished episodes were kept, not redone");
    assert.equal(summaryOf(run).status, "done");
    assert.equal(summaryOf(run).n, 100);
    assert.ok(cachedForCompare([run]), "the finished run keeps a Compare cache of its episodes as they are");
  });

  it("two resumes of one interrupted run at once: one writes, the other is refused naming it, no line twice", async function () {
    if (!valIds) this.skip();
    const run = join(ws, "runs", "twice");
    const args = ["eval", "--workspace", ws, "--name", "twice", "--limit", "60", "--concurrency", "4"];
    const first = await startCli([...args, "--scripted-delay-ms", "50"]);
    await waitFor(() => lines(join(run, "episodes.jsonl")) >= 8, 60_000, "8 finished episodes");
    first.child.kill("SIGKILL");
    await first.done;
    // The killed writer left its lock behind: the first resume takes it over, the second is refused.
    const a = await startCli([...args, "--resume", "--scripted-delay-ms", "400"]); // slow enough to still run when b starts
    // runWriter tolerates the moment the takeover has removed the stale lock and not yet written its own.
    await waitFor(() => runWriter(run)?.pid === a.child.pid, 30_000, "the first resume to hold the lock");
    const b = await runCli([...args, "--resume"]);
    assert.equal(b.code, 1);
    assert.match(
      b.stderr.trim(),
      new RegExp(
        `^agent-lab eval: .*twice is being written by agent-lab eval .*\\(pid ${a.child.pid}, since [^)]+\\): wait for it to finish or stop it first \\(one writer per run folder\\)$`,
      ),
    );
    const done = await a.done;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(lines(join(run, "episodes.jsonl")), 60, "every question once");
    assert.equal(new Set(readEpisodes(run, environmentMetrics).map((e) => e.id)).size, 60);
    assert.equal(existsSync(join(run, ".lock")), false, "released at exit");
  });

  it("SIGTERM stops cleanly as interrupted; resume refuses a changed fingerprint, naming the field", async function () {
    if (!valIds) this.skip();
    const run = join(ws, "runs", "term");
    const args = ["eval", "--workspace", ws, "--name", "term", "--limit", "60", "--concurrency", "3"];
    const { child, done } = await startCli([...args, "--scripted-delay-ms", "60"]);
    await waitFor(() => lines(join(run, "episodes.jsonl")) >= 5, 60_000, "5 finished episodes");
    child.kill("SIGTERM");
    const r = await done;
    assert.equal(r.code, 1);
    assert.match(r.stderr, /SIGTERM: stopping/);
    assert.match(r.stderr, /interrupted with \d+\/60 episodes kept/);
    const s = summaryOf(run);
    assert.equal(s.status, "interrupted");
    const kept = readEpisodes(run, environmentMetrics).length;
    assert.equal(s.n, kept);
    assert.ok(kept < 60);
    assert.ok(readFileSync(join(run, "episodes.jsonl"), "utf8").endsWith("\n"), "no torn line after a clean stop");
    assert.equal(existsSync(runFile(run, "compareCache")), false, "no Compare cache for an interrupted run");

    const changed = await runCli([...args, "--resume", "--top-k", "5", "--closed-book"]);
    assert.equal(changed.code, 1);
    assert.match(changed.stderr, /fingerprint differs/);
    assert.match(changed.stderr, /search\.top_k: 3 → 5/);
    assert.match(changed.stderr, /search\.closed_book: false → true/);
    assert.equal(readEpisodes(run, environmentMetrics).length, kept, "a refused resume writes nothing");
  });

  it("opening the test split needs the flag, is recorded, and refuses a changed test.jsonl", async function () {
    if (!valIds) this.skip();
    const config = loadConfig(ws, { concurrency: 4 });
    const base = {
      workspaceDir: ws,
      config,
      split: "test" as const,
      closedBook: true,
      limit: 3,
      resume: false,
      temperature: 0,
      backend: "scripted",
      command: ["test"],
    };
    await assert.rejects(evalSplit({ ...base, name: "t0" }), new RegExp(`add ${TEST_SPLIT_FLAG}`));
    assert.ok(!existsSync(join(ws, "runs", "t0")), "nothing written without the flag");
    const ok = await evalSplit({ ...base, name: "t1", testFlag: TEST_SPLIT_FLAG });
    const manifest = JSON.parse(readFileSync(join(ok.runDir, "manifest.json"), "utf8"));
    assert.deepEqual(manifest.test_split, { opened: true, flag: TEST_SPLIT_FLAG });
    assert.equal(manifest.split.name, "test");

    const testFile = join(ws, "data", "test.jsonl");
    const original = readFileSync(testFile, "utf8");
    try {
      writeFileSync(testFile, original.replace(/"answers": \["[^"]*"\]/, '"answers": ["tampered"]'));
      await assert.rejects(
        evalSplit({ ...base, name: "t2", testFlag: TEST_SPLIT_FLAG }),
        /changed since "agent-lab prepare"/,
      );
    } finally {
      writeFileSync(testFile, original);
    }
    const viaCli = await runCli(["eval", "--workspace", ws, "--name", "t3", "--split", "test", "--limit", "2"]);
    assert.equal(viaCli.code, 1);
    assert.match(viaCli.stderr, new RegExp(TEST_SPLIT_FLAG));
  });

  it("a paid policy is refused without a price before it samples, and charged from the price table", async function () {
    if (!valIds) this.skip();
    const tok = await offlineTokenizer("qwen3");
    let samples = 0;
    /** A stand-in for a Tinker sampler: answers at once, counts calls. */
    const paid = (model: string): Policy => ({
      tokenizer: tok,
      endToken: tok.tokenId("<|im_end|>"),
      async sample() {
        samples++;
        const tokens = [...tok.encode("<answer>yes</answer>"), tok.tokenId("<|im_end|>")];
        return { tokens, logprobs: tokens.map(() => -0.1), stopReason: "stop" as const };
      },
      describe: () => ({ kind: "tinker", model, logprobs: true }),
    });
    const base = {
      workspaceDir: ws,
      split: "val" as const,
      closedBook: true,
      limit: 4,
      resume: false,
      temperature: 0,
      backend: "tinker",
      command: ["test"],
    };
    await assert.rejects(
      evalSplit({ ...base, config: loadConfig(ws), name: "p0", policy: paid("Qwen/Qwen3-8B") }),
      /no price for model "Qwen\/Qwen3-8B"/,
    );
    assert.equal(samples, 0, "nothing sampled");
    assert.ok(!existsSync(join(ws, "runs", "p0")));
    const config = loadConfig(ws, { concurrency: 2 });
    const r = await evalSplit({ ...base, config, name: "p1", policy: paid("Qwen/Qwen3.5-4B") });
    const price = config.prices["Qwen/Qwen3.5-4B"];
    const eps = readEpisodes(r.runDir, environmentMetrics);
    assert.equal(eps.length, 4);
    for (const e of eps) {
      assert.ok(e.usd > 0);
      assert.ok(Math.abs(e.usd - (e.prefill * price.prefill + e.generated * price.sample) / 1e6) < 1e-15);
    }
    assert.ok(Math.abs(r.summary.usd_total - eps.reduce((s, e) => s + e.usd, 0)) < 1e-15);
    assert.deepEqual(JSON.parse(readFileSync(join(r.runDir, "manifest.json"), "utf8")).policy, {
      kind: "tinker",
      model: "Qwen/Qwen3.5-4B",
      logprobs: true,
    });
  });

  it("show prints ends, searches and failures, coloured under FORCE_COLOR", async function () {
    if (!valIds) this.skip();
    const plain = await runCli(["show", "heuristic", "--workspace", ws, "--n", "1", "--seed", "3"]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /How episodes ended\n {2}answer +200 +100%/);
    assert.match(plain.stdout, /Searches per episode/);
    assert.match(plain.stdout, /⟦<result>⟧/);
    assert.ok(!plain.stdout.includes("\x1b["));
    const colour = await runCli(["show", join(ws, "runs", "heuristic"), "--n", "1", "--seed", "3"], {
      FORCE_COLOR: "1",
    });
    assert.equal(colour.code, 0, colour.stderr);
    assert.ok(colour.stdout.includes("\x1b[2m<result>\x1b[0m"));
    // eslint-disable-next-line no-control-regex -- matches an ANSI colour escape
    assert.match(colour.stdout, /\x1b\[1;32m<search>/);
    const missing = await runCli(["show", "nope", "--workspace", ws]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no run folder "nope"/);
  });
});
