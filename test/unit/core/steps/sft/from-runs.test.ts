/**
 * sft-data --from-runs: SFT rows from episodes that runs already scored. GSM8K fixture records for
 * the selection rules (threshold, best K, newest wins ties, held-out questions, skipped runs), the
 * synthetic HotpotQA world for multi-turn episodes (searched-only, one example per turn).
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { type AgentLabConfig } from "../../../../../src/core/base/config";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { DEMO_SEED } from "../../../../../src/core/steps/demo/run-demo";
import { GSM8K } from "../../../../../src/core/envs/gsm8k/environment";
import { writeGsm8kSplits } from "../../../../../src/core/envs/gsm8k";
import type { EvalSplitOptions } from "../../../../../src/core/steps/eval/eval-split";
import { ScriptedPolicy } from "../../../../../src/core/harness/policies/scripted";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { readSftRows, sftFromRuns, sftPath } from "../../../../../src/core/steps/sft";
import { readSftData } from "../../../../../src/core/steps/train/sft-data";
import { runCli } from "../../../cli/cli-process";
import { fixtureRecords } from "../../envs/gsm8k/fixture";
import { prepareSyntheticWorkspace } from "../../../../helpers/synthetic-workspace";
import { scriptedEval } from "../../../../helpers/scripted-eval";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

describe("sft/sftFromRuns", function () {
  this.timeout(120_000);
  let root: string;
  let tok: ChatTokenizer;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-from-runs-"));
    tok = await offlineTokenizer("qwen3");
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  const evalRun = (
    ws: string,
    config: AgentLabConfig,
    name: string,
    reply: (q: string) => string,
    over: Partial<EvalSplitOptions> = {},
  ) =>
    scriptedEval({
      workspaceDir: ws,
      config,
      name,
      split: "train",
      limit: 12,
      policy: new ScriptedPolicy(tok, (c) => reply(c.promptText)),
      ...over,
    });

  describe("on GSM8K (single turn)", () => {
    let ws: string;
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", env: "gsm8k", concurrency: 1 });
    /** The question's reference answer, read back from the rendered prompt. */
    let refOf: (promptText: string) => string;

    before(async () => {
      ws = join(root, "gsm8k");
      const test = fixtureRecords(20, 10_000);
      // A test question slipped into train under another wording's case: held out by text.
      const train = [...fixtureRecords(530, 0), { ...test[0], question: test[0].question.toUpperCase() }];
      await writeGsm8kSplits(join(ws, "data", "gsm8k"), train, test, "test fixture");
      const items = [
        ...GSM8K.data.load(join(ws, "data", "gsm8k"), "train"),
        ...GSM8K.data.load(join(ws, "data", "gsm8k"), "val"),
      ];
      const byQuestion = new Map(items.map((i) => [i.question, i.answers[0]]));
      refOf = (p) =>
        byQuestion.get(
          p
            .split("<|im_start|>user\n")
            .at(-1)!
            .split("<|im_end|>")[0]
            .replace(" Write your answer in \\boxed{} format.", ""),
        )!;
      // Run a: right on about half the questions (by the prompt's length), wrong on the rest; run b (later): right everywhere, wordier.
      await evalRun(ws, config, "a", (p) => `\\boxed{${p.length % 2 === 0 ? refOf(p) : "0"}}`);
      await evalRun(ws, config, "b", (p) => `Adding up carefully gives \\boxed{${refOf(p)}}`);
      await evalRun(ws, config, "val", (p) => `\\boxed{${refOf(p)}}`, { split: "val" });
      writeFileSync(join(ws, "sys.txt"), "You are careful.");
      await evalRun(ws, config, "prompted", (p) => `\\boxed{${refOf(p)}}`, { promptFile: "sys.txt" });
    });

    it("keeps the best per question, newest first among equal rewards; skips other prompts, says why; never val/test", () => {
      const log: string[] = [];
      const r = sftFromRuns({
        workspaceDir: ws,
        config,
        name: "from",
        runs: ["a", "b", "val", "prompted"],
        minReward: 1,
        bestOf: 1,
        perTurn: false,
        command: ["test"],
        log: (l) => log.push(l),
      });
      const rows = readSftRows(sftPath(r.runDir));
      const trainIds = new Set(readEpisodes(join(ws, "runs", "a"), environmentMetrics).map((e) => e.id));
      assert.equal(rows.length, trainIds.size, "every train question was solved by some run");
      for (const row of rows) {
        assert.ok(trainIds.has(row.id));
        assert.equal(row.source.kind, "eval-run:b", "b is newer: it wins the ties with a");
        assert.match(tok.decode(row.tokens), /Adding up carefully/);
      }
      assert.deepEqual(
        r.skipped.map((s) => s.name),
        ["prompted"],
      );
      assert.match(r.skipped[0].reason, /system prompt .* differs from the one training will use/);
      assert.ok(log.some((l) => /^skipped prompted: /.test(l)));
      const m = r.manifest;
      assert.deepEqual(m.fingerprint.environment, { name: "gsm8k", version: "1" });
      const sources = m.fingerprint.from_runs as { name: string; fingerprint_sha256: string; used: number }[];
      assert.deepEqual(
        sources.map((s) => [s.name, s.used]),
        [
          ["a", 0],
          ["b", 12],
          ["val", 0],
        ],
      );
      assert.ok(sources.every((s) => /^[0-9a-f]{64}$/.test(s.fingerprint_sha256)));
      assert.equal(
        m.held_out_excluded.filter((h) => h.split === "val").length,
        12,
        "the val run's questions are all left out",
      );
      assert.equal(m.usd, 0);
      // train-sft reads it like any sft-data output, naming it by the hash the manifest recorded.
      const data = readSftData(r.runDir);
      assert.equal(data.rows.length, rows.length);
      assert.equal(data.lineageWarning, undefined);
    });

    it("--best-of 2 keeps both runs' correct episodes, best first; --min-reward filters", () => {
      const r = sftFromRuns({
        workspaceDir: ws,
        config,
        name: "best2",
        runs: ["a", "b"],
        minReward: 1,
        bestOf: 2,
        perTurn: false,
        command: ["test"],
      });
      const rows = readSftRows(sftPath(r.runDir));
      const evens = readEpisodes(join(ws, "runs", "a"), environmentMetrics).filter((e) => e.reward === 1).length;
      assert.equal(rows.length, 12 + evens);
      assert.ok(evens > 0 && evens < 12, `${evens} of a's episodes are right`);
      assert.equal(rows.filter((row) => row.id.endsWith("#2")).length, evens);
      assert.ok(
        rows.filter((row) => row.id.endsWith("#1")).every((row) => row.source.kind === "eval-run:b"),
        "equal rewards: the newer run first",
      );
      // A threshold nothing reaches is refused: no empty run is written (issue 30).
      assert.throws(
        () =>
          sftFromRuns({
            workspaceDir: ws,
            config,
            name: "none",
            runs: ["a"],
            minReward: 2,
            bestOf: 1,
            perTurn: false,
            command: ["test"],
          }),
        (e: unknown) =>
          e instanceof UserError &&
          e.message ===
            "--min-reward 2 selects no episode of a (their best reward is 1): lower it or give other runs; no run was written",
      );
      assert.equal(existsSync(join(ws, "runs", "none")), false);
    });

    it("agent-lab sft-data --from-runs through the CLI: one line of what it kept, the skipped runs on stderr", async () => {
      writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ env: "gsm8k" }));
      const r = await runCli([
        "sft-data",
        "--from-runs",
        "a",
        "b",
        "prompted",
        "--min-reward",
        "1",
        "--name",
        "cli",
        "--workspace",
        ws,
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /kept 12 examples from 12 questions {2}\| {2}from a \(0 used\), b \(12 used\)/);
      assert.match(r.stderr, /skipped prompted: system prompt/);
      const bad = await runCli(["sft-data", "--from-runs", "--best-of", "0", "a", "--workspace", ws]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /--best-of/);
    });

    it("refuses when no run fits, naming each and why; a HotpotQA run is skipped for its environment", () => {
      const hotpotManifest = JSON.parse(readFileSync(join(ws, "runs", "a", "manifest.json"), "utf8"));
      delete hotpotManifest.environment;
      mkdirSync(join(ws, "runs", "hotpot"));
      writeFileSync(join(ws, "runs", "hotpot", "manifest.json"), JSON.stringify(hotpotManifest));
      writeFileSync(
        join(ws, "runs", "hotpot", "episodes.jsonl"),
        readFileSync(join(ws, "runs", "a", "episodes.jsonl")),
      );
      assert.throws(
        () =>
          sftFromRuns({
            workspaceDir: ws,
            config,
            name: "refused",
            runs: ["hotpot", "prompted"],
            minReward: 1,
            bestOf: 1,
            perTurn: false,
            command: ["test"],
          }),
        /no usable run among hotpot, prompted: hotpot \(environment hotpotqa v1, not gsm8k v1\); prompted \(system prompt/,
      );
    });
  });

  describe("on the synthetic HotpotQA world (multi-turn)", () => {
    let ws: string;
    const config = mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 1 });
    before(async () => {
      ws = join(root, "hotpot");
      await prepareSyntheticWorkspace(ws, { seed: DEMO_SEED, train: 30, dev: 560 });
      await scriptedEval({
        workspaceDir: ws,
        config,
        name: "heur",
        split: "train",
        limit: 20,
        policy: new HeuristicPolicy(tok),
      });
    });

    it("--per-turn: one example per assistant turn, earlier turns as context; only episodes that searched", () => {
      const episodes = readEpisodes(join(ws, "runs", "heur"), environmentMetrics);
      const kept = episodes.filter((e) => e.reward >= 0.8 && e.searches.length > 0);
      assert.ok(kept.length > 0);
      const r = sftFromRuns({
        workspaceDir: ws,
        config,
        name: "turns",
        runs: ["heur"],
        minReward: 0.8,
        bestOf: 1,
        perTurn: true,
        command: ["test"],
      });
      const rows = readSftRows(sftPath(r.runDir));
      assert.equal(
        rows.length,
        kept.reduce((n, e) => n + e.turns!.length, 0),
      );
      for (const e of kept) {
        e.turns!.forEach((t, i) => {
          const row = rows.find((x) => x.id === `${e.id}/t${i}`)!;
          assert.deepEqual(row.prompt, [...e.prompt, ...e.tokens.slice(0, t.start)], "earlier turns are context");
          assert.deepEqual(row.tokens, e.tokens.slice(t.start, t.reply_end));
          assert.deepEqual(row.sampled, e.sampled.slice(t.start, t.reply_end));
        });
      }
      const whole = sftFromRuns({
        workspaceDir: ws,
        config,
        name: "whole",
        runs: ["heur"],
        minReward: 0.8,
        bestOf: 1,
        perTurn: false,
        command: ["test"],
      });
      assert.equal(whole.rows, kept.length, "one example per episode without --per-turn");
      assert.equal(whole.manifest.fingerprint.acceptance.requireSearch, true);
    });
  });
});
