/** The ledger inside eval: one ledger line per episode, and the budget cap stops new episodes cleanly. */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import { DEFAULT_PRICES } from "../../../../../src/core/base/config";
import { mergeConfig } from "../../../../../src/core/envs/config";
import type { Question } from "../../../../../src/core/base/data/question";
import { episodeUsd } from "../../../../../src/core/steps/eval/cost";
import { evalSplit } from "../../../../../src/core/steps/eval/eval-split";
import { runEval, type EvalJob } from "../../../../../src/core/steps/eval/run-eval";
import { readLedger } from "../../../../../src/core/base/ledger";
import { readEpisodes } from "../../../../../src/core/base/runs/run-files";
import { requireSharedData } from "../../../../helpers/shared-data";
import { fakeManifest, fakeRecord } from "../runs/fakes";
import { PlanPolicy, readRows, writeRealDataDir, type HotpotRow } from "../../steps/sft/real-hotpot";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const QWEN = DEFAULT_PRICES["Qwen/Qwen3.5-4B"];
const QUESTIONS: Question[] = Array.from({ length: 12 }, (_, i) => ({
  id: `q${i}`,
  question: `question ${i}?`,
  answers: ["x"],
  type: "bridge",
  level: "hard",
}));
// Every episode is the recipe's typical one, so the estimate equals the actual cost.
const EPISODE_USD = episodeUsd(QWEN, 2000, 80);

describe("ledger/eval integration", () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), "agent-lab-eval-budget-")), "run");
  });
  afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

  function job(budgetUsd: number, over: Partial<EvalJob> = {}): EvalJob {
    return {
      runDir: dir,
      questions: QUESTIONS,
      manifest: fakeManifest(),
      resume: false,
      concurrency: 3,
      runQuestion: async (q) => {
        await new Promise((r) => setTimeout(r, 2));
        return fakeRecord(q.id, { prefill: 2000, generated: 80, usd: EPISODE_USD });
      },
      split: "val",
      model: "Qwen/Qwen3.5-4B",
      cost: { prices: QWEN, budgetUsd },
      ...over,
    };
  }

  it("records every episode in ledger.jsonl with its tokens and dollars", async () => {
    const { summary } = await runEval(job(0));
    assert.equal(summary.status, "done");
    const ledger = readLedger(dir);
    assert.equal(ledger.length, 12);
    assert.deepEqual(ledger[0].tokens, { prefill: 2000, sampled: 80, trained: 0 });
    assert.ok(ledger.every((l) => l.kind === "eval" && l.usd === EPISODE_USD));
    assert.ok(Math.abs(ledger[11].cumulative_usd - summary.usd_total) < 1e-12);
  });

  it("stops starting episodes before the cap, keeps what is done as 'interrupted', and --resume with a larger cap finishes", async () => {
    const lines: string[] = [];
    // Room for 6.5 episodes: the 7th would go over, even with 3 in flight at a time.
    const cap = 6.5 * EPISODE_USD;
    const first = await runEval(job(cap, { log: (l) => lines.push(l) }));
    assert.equal(first.summary.status, "interrupted");
    assert.equal(first.summary.n, 6);
    assert.ok(first.budgetStop, "the result says the budget stopped it");
    assert.match(first.budgetStop!.message, /budget cap/);
    assert.ok(
      lines.some((l) => /stopping: budget cap/.test(l)),
      lines.join("\n"),
    );
    const spent = readLedger(dir).at(-1)!.cumulative_usd;
    assert.ok(spent <= cap, `spent ${spent} ≤ cap ${cap}`);
    assert.equal(readEpisodes(dir, environmentMetrics).length, 6);

    const again = await runEval(job(1, { resume: true }));
    assert.equal(again.summary.status, "done");
    assert.equal(again.ran, 6);
    assert.equal(again.budgetStop, undefined);
    assert.equal(readLedger(dir).length, 12, "one line per episode across both jobs");
  });

  it("a resumed run's ledger total counts against the cap", async () => {
    await runEval(job(0, { questions: QUESTIONS.slice(0, 4) }));
    const r = await runEval(job(5.5 * EPISODE_USD, { resume: true }));
    assert.equal(r.summary.n, 5, "4 already paid for, room for one more");
    assert.equal(r.summary.status, "interrupted");
  });

  it("a free source never hits the cap and records tokens at $0", async () => {
    const r = await runEval(
      job(1e-9, {
        cost: { prices: null, budgetUsd: 1e-9 },
        runQuestion: async (q) => fakeRecord(q.id, { prefill: 2000, generated: 80, usd: 0 }),
      }),
    );
    assert.equal(r.summary.status, "done");
    assert.ok(readLedger(dir).every((l) => l.usd === 0 && l.tokens.prefill === 2000));
  });
});

describe("ledger/evalSplit with a paid source on real HotpotQA records", function () {
  this.timeout(60_000);
  let root: string;
  let rows: HotpotRow[];

  before(async function () {
    const dev = readRows(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    const train = readRows(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl"));
    rows = [...train.slice(0, 5), ...dev];
    root = mkdtempSync(join(tmpdir(), "agent-lab-eval-paid-"));
    await writeRealDataDir(join(root, "data"), train.slice(0, 5), dev);
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("prices each episode at the table, writes it to the ledger, and stops at config budgetUsd with status 'interrupted'", async () => {
    const tok = await offlineTokenizer("qwen3");
    const policy = new PlanPolicy(tok, rows, 9, { kind: "tinker", model: "Qwen/Qwen3.5-4B", logprobs: true });
    const lines: string[] = [];
    const result = await evalSplit({
      workspaceDir: root,
      config: mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 2, budgetUsd: 0.003 }),
      name: "paid",
      split: "val",
      closedBook: false,
      limit: 40,
      resume: false,
      temperature: 0,
      backend: "tinker",
      policy,
      command: ["agent-lab", "eval", "(test)"],
      log: (l) => lines.push(l),
    });
    assert.equal(result.summary.status, "interrupted");
    assert.ok(result.budgetStop);
    assert.ok(result.summary.n > 0 && result.summary.n < 40, `${result.summary.n} episodes`);
    const ledger = readLedger(result.runDir);
    assert.equal(ledger.length, result.summary.n);
    const episodes = readEpisodes(result.runDir, environmentMetrics);
    for (const [i, e] of episodes.entries()) {
      assert.equal(ledger[i].usd, episodeUsd(QWEN, e.prefill, e.generated));
      assert.deepEqual(ledger[i].tokens, { prefill: e.prefill, sampled: e.generated, trained: 0 });
    }
    assert.ok(Math.abs(ledger.at(-1)!.cumulative_usd - result.summary.usd_total) < 1e-12);
    assert.ok(lines.some((l) => /stopping: budget cap \$0\.00/.test(l)));
  });
});
