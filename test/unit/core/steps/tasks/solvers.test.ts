/**
 * The solve-rate solvers: GSM8K tries graded by the GSM8K grader on the boxed answer, HotpotQA tries
 * as episodes of the real search harness over a real BM25 index of a synthetic world (the scripted
 * reader as the policy), each try's tokens reported for the ledger; the scripted stand-in spreads
 * tasks over always, never and sometimes solved.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import { prepareData } from "../../../../../src/core/envs/hotpotqa/prepare";
import { HeuristicPolicy } from "../../../../../src/core/envs/hotpotqa/heuristic-policy";
import { generateSyntheticHotpot } from "../../../../../src/core/envs/hotpotqa/synthetic-world";
import type { Policy } from "../../../../../src/core/harness/policy";
import { buildIndex, openIndex } from "../../../../../src/core/base/search";
import { gsm8kPolicySolver } from "../../../../../src/core/envs/gsm8k/gen-tasks";
import { harnessPolicySolver } from "../../../../../src/core/envs/hotpotqa/gen-tasks";
import { scriptedSolver } from "../../../../../src/core/steps/tasks/solvers";
import { solveRateVerdict } from "../../../../../src/core/steps/tasks/solve-rate";

describe("tasks: solve-rate solvers", function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-solvers-"))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("GSM8K: each try's boxed answer graded against the executed answer, tokens reported", async () => {
    const tok = await offlineTokenizer("qwen3");
    let k = 0;
    const policy: Policy = {
      tokenizer: tok,
      endToken: tok.tokenId("<|im_end|>"),
      describe: () => ({ kind: "test", model: "canned", logprobs: true }),
      async sample() {
        const tokens = tok.encode(`Adding up: \\boxed{${k++ % 2 === 0 ? "7" : "8"}}<|im_end|>`);
        return { tokens, logprobs: null, stopReason: "stop" };
      },
    };
    const used: number[] = [];
    const solver = gsm8kPolicySolver({ policy, tries: 4, temperature: 1, maxTokens: 64, seed: 0 });
    const tries = await solver.solve(
      { id: "t", problem: "Ann has 3 apples and buys 4 more. How many?", answer: "7" },
      (u) => used.push(u.prefill, u.sampled),
    );
    assert.deepEqual([...tries].sort(), [false, false, true, true]);
    assert.equal(used.length, 8);
    assert.ok(used[0] > 20 && used[1] > 3);
    assert.match(solver.id, /^test:canned gsm8k T=1 max_tokens=64 k=4 seed=0$/);
  });

  it("HotpotQA: tries are harness episodes over the world's index, graded by exact match", async () => {
    const world = generateSyntheticHotpot({ seed: 11, train: 30, dev: 30, style: "compact" });
    writeFileSync(join(dir, "train.json"), JSON.stringify(world.train));
    writeFileSync(join(dir, "dev.json"), JSON.stringify(world.dev));
    const data = join(dir, "data");
    await prepareData(data, {
      trainFiles: [join(dir, "train.json")],
      devFiles: [join(dir, "dev.json")],
      source: "test world",
    });
    await buildIndex(join(data, "corpus.jsonl"), join(data, "bm25"), { workers: 0 });
    const policy = new HeuristicPolicy(await offlineTokenizer("qwen3"));
    const solver = harnessPolicySolver({
      policy,
      tries: 3,
      temperature: 0,
      maxTokens: 64,
      seed: 0,
      searcher: openIndex(join(data, "bm25")),
      systemPrompt: "Answer by searching.",
      topK: 1,
      maxSearches: 2,
    });
    let solvedSome = false;
    for (const q of world.train.slice(0, 6)) {
      let episodes = 0;
      const right = await solver.solve({ id: q._id, problem: q.question, answer: q.answer }, () => episodes++);
      const wrong = await solver.solve({ id: q._id, problem: q.question, answer: "Nowhere At All" }, () => {});
      assert.equal(episodes, 3);
      assert.deepEqual(wrong, [false, false, false]);
      // The scripted reader is deterministic: its three tries agree.
      assert.equal(new Set(right).size, 1);
      solvedSome ||= right[0];
    }
    assert.ok(solvedSome, "the scripted reader answers some of the world's questions");
  });

  it("the scripted stand-in: deterministic per (seed, task), with tasks always, never and sometimes solved", async () => {
    const s = scriptedSolver(0, 8);
    const kinds = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const tries = await s.solve({ id: `task-${i}`, problem: "p", answer: "1" }, () => {});
      assert.deepEqual(await s.solve({ id: `task-${i}`, problem: "p", answer: "1" }, () => {}), tries);
      const v = solveRateVerdict(tries);
      kinds.add(v.keep ? "kept" : v.reason);
    }
    assert.deepEqual([...kinds].sort(), ["kept", "solve-rate:all-solved", "solve-rate:none-solved"]);
  });
});
