/**
 * The playground drives the harness's one episode loop a turn at a time (harness/interactive.ts):
 * the environment runs the tool call between turns, each turn has its own settings and cost, a
 * cancelled turn leaves the episode as it was, and "Save as episode" writes the run eval writes —
 * the same episode line, byte for byte, as eval's for the same sampled tokens. Bad input is refused
 * in one line, changing nothing.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { offlineTokenizer, type ChatTokenizer } from "../../../../../src/core/base/chat";
import { mergeConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { costUsd } from "../../../../../src/core/base/ledger";
import { fingerprintDiff, isPlaygroundRun, TYPED_QUESTIONS } from "../../../../../src/core/base/runs/manifest";
import { readRun, readSummary } from "../../../../../src/core/base/runs/run-files";
import type { Policy, Sample, SampleOptions } from "../../../../../src/core/harness/policy";
import { Playground } from "../../../../../src/core/steps/playground/playground";
import { ENVIRONMENT as CALCULATOR } from "../../../../../examples/environments/calculator/environment";
import { SCRIPTED_READER } from "../../../../../examples/environments/calculator/scripted";
import { scriptedEval } from "../../../../helpers/scripted-eval";
import { environmentMetrics } from "../../../../../src/core/envs/catalog";

const episodeLines = (runDir: string) => readFileSync(join(runDir, "episodes.jsonl"), "utf8");

describe("steps/playground: chat with a model, a turn at a time, through the one episode loop", function () {
  this.timeout(60_000);
  let ws: string;
  let tok: ChatTokenizer;
  const config = () => mergeConfig({ dataDir: "data", runsDir: "runs", concurrency: 1, maxTokens: 64 });
  const greedy = { temperature: 0, maxTokens: 64 };
  const open = (policy: Policy) =>
    Playground.open({ workspaceDir: ws, config: config(), env: CALCULATOR, backend: "scripted", policy });

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-playground-"));
    tok = await offlineTokenizer("qwen3");
    await CALCULATOR.data.prepare({ outDir: CALCULATOR.data.dir(join(ws, "data")), log: () => undefined });
  });
  after(() => ws && rmSync(ws, { recursive: true, force: true }));

  it("runs two turns (the environment runs the tool call between them) and saves eval's episode line, byte for byte", async () => {
    const pg = await open(SCRIPTED_READER(tok, {}));
    try {
      assert.deepEqual(
        pg.tools.map((t) => t.name),
        ["calc"],
      );
      const ep = pg.start({ split: "val", id: "val-0" });
      const first = await ep.next(greedy);
      assert.equal(first.kind, "turn");
      assert.equal(first.done, false);
      const t = ep.transcript();
      assert.deepEqual(
        t.turns.map((x) => x.action),
        ["calc"],
      );
      const observation = t.tokens.slice(t.turns[0].replyEnd, t.turns[0].end);
      assert.match(tok.decode(observation), /= \d+/, "the environment's tool result is inserted as the next user turn");
      assert.ok(t.sampled.slice(t.turns[0].replyEnd, t.turns[0].end).every((s) => s === 0));
      assert.ok(t.sampled.slice(t.turns[0].start, t.turns[0].replyEnd).includes(1));
      assert.equal(first.prefill, t.prompt.length);

      const second = await ep.next(greedy);
      assert.equal(second.done, true);
      assert.deepEqual(
        ep.transcript().turns.map((x) => x.action),
        ["calc", "answer"],
      );
      await assert.rejects(ep.next(greedy), /the episode has ended/);

      const saved = await ep.save("chat-val-0");
      const evalRun = await scriptedEval({
        workspaceDir: ws,
        config: config(),
        env: CALCULATOR,
        name: "eval-val-0",
        split: "val",
        limit: 1,
        policy: SCRIPTED_READER(tok, {}),
      });
      assert.equal(episodeLines(saved), episodeLines(evalRun.runDir), "the saved episode is eval's line");

      const run = readRun(saved, environmentMetrics);
      assert.equal(run.episodes.length, 1);
      assert.equal(run.episodes[0].reward, 1);
      // Same settings as the eval: only the playground's own record of its turns differs.
      assert.deepEqual(
        fingerprintDiff(run.manifest!, readRun(evalRun.runDir, environmentMetrics).manifest!).map((d) => d.field),
        ["playground.turns"],
      );
      assert.ok(isPlaygroundRun(run.manifest), "views that score checkpoints from evals can leave it out");
      assert.ok(!isPlaygroundRun(readRun(evalRun.runDir, environmentMetrics).manifest));
      assert.deepEqual(run.manifest!.playground, {
        turns: [
          { temperature: 0, max_tokens: 64 },
          { temperature: 0, max_tokens: 64 },
        ],
      });
      const summary = readSummary(saved, () => CALCULATOR.metrics)!;
      assert.equal(summary.status, "done");
      assert.equal(summary.split, "val");
      assert.equal(summary.n, 1);
    } finally {
      pg.close();
    }
  });

  it("prices each turn at the ledger's prices; the saved record's cost is their sum", async () => {
    const cfg = config();
    const priced: Policy = Object.assign(SCRIPTED_READER(tok, {}), {});
    const inner = priced.describe.bind(priced);
    priced.describe = () => ({ ...inner(), kind: "tinker", model: cfg.model });
    const pg = await open(priced);
    try {
      const prices = cfg.prices[cfg.model];
      const ep = pg.start({ split: "val", id: "val-1" });
      const estimate = ep.estimateNextUsd(64);
      assert.equal(estimate, costUsd(prices, { prefill: ep.transcript().prompt.length, sampled: 64 }));
      const a = await ep.next(greedy);
      const b = await ep.next(greedy);
      assert.ok(a.usd > 0 && b.usd > 0);
      assert.equal(a.usd, costUsd(prices, { prefill: a.prefill, sampled: a.generated }));
      assert.ok(Math.abs(ep.record().usd - (a.usd + b.usd)) < 1e-12);
    } finally {
      pg.close();
    }
  });

  it("a typed question has no gold: its run is unscored (split 'typed', no answers) and still reads back", async () => {
    const pg = await open(SCRIPTED_READER(tok, {}));
    try {
      const ep = pg.start({ typed: "  What is 2 + 3?  " });
      assert.equal(ep.scored, false);
      while (!(await ep.next(greedy)).done);
      const runDir = await ep.save("chat-typed");
      const run = readRun(runDir, environmentMetrics);
      assert.deepEqual(run.manifest!.split, {
        name: TYPED_QUESTIONS,
        file: "",
        sha256: run.manifest!.split.sha256,
      });
      assert.equal(run.manifest!.test_split.opened, false);
      assert.equal(run.episodes[0].question, "What is 2 + 3?");
      assert.deepEqual(run.episodes[0].answers, []);
      assert.equal(run.episodes[0].prediction, "5", "the model's answer is kept, with nothing to score it against");
      assert.equal(readSummary(runDir, () => CALCULATOR.metrics)!.split, TYPED_QUESTIONS);
    } finally {
      pg.close();
    }
  });

  it("a cancelled turn leaves the episode as it was; the next turn goes on and the record is still eval's", async () => {
    const scripted = SCRIPTED_READER(tok, {});
    let hang = false;
    const slow: Policy = {
      tokenizer: scripted.tokenizer,
      endToken: scripted.endToken,
      describe: () => scripted.describe(),
      sample: (ids: readonly number[], o: SampleOptions): Promise<Sample> => {
        if (!hang) return scripted.sample(ids, o);
        hang = false;
        // A sampler that never answers until it is aborted (a slow remote turn).
        return new Promise((_, reject) => {
          if (o.signal!.aborted) reject(o.signal!.reason);
          o.signal!.addEventListener("abort", () => reject(o.signal!.reason));
        });
      },
    };
    const pg = await open(slow);
    try {
      const ep = pg.start({ split: "val", id: "val-2" });
      await ep.next(greedy);
      const before = JSON.stringify(ep.transcript());
      hang = true;
      const turn = ep.next(greedy);
      // Cancelled while the sampler works on it.
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(hang, false, "the sampler was reached");
      ep.cancel();
      assert.equal((await turn).kind, "cancelled");
      assert.equal(JSON.stringify(ep.transcript()), before, "the cancelled turn left nothing behind");
      // Cancelled before the sampler is reached.
      const again = ep.next(greedy);
      ep.cancel();
      assert.equal((await again).kind, "cancelled");
      assert.equal(JSON.stringify(ep.transcript()), before);
      while (!(await ep.next(greedy)).done);
      const saved = await ep.save("chat-val-2");
      const evalRun = await scriptedEval({
        workspaceDir: ws,
        config: config(),
        env: CALCULATOR,
        name: "eval-val-2",
        split: "val",
        limit: 3,
        policy: SCRIPTED_READER(tok, {}),
      });
      const evalLine = episodeLines(evalRun.runDir)
        .split("\n")
        .find((l) => l.includes('"id":"val-2"'));
      assert.equal(episodeLines(saved), `${evalLine}\n`);
    } finally {
      pg.close();
    }
  });

  it("bad input is refused in one line, and nothing changes", async () => {
    const pg = await open(SCRIPTED_READER(tok, {}));
    const message = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        assert.ok(e instanceof UserError, String(e));
        return e.message;
      }
      return assert.fail("accepted");
    };
    const rejection = async (p: Promise<unknown>) =>
      p.then(
        () => assert.fail("accepted"),
        (e: unknown) => {
          assert.ok(e instanceof UserError, String(e));
          return e.message;
        },
      );
    try {
      assert.equal(
        message(() => pg.start({ typed: "   " })),
        "the question is empty: type one, or pick one from a split",
      );
      assert.equal(
        message(() => pg.start({ split: "test", id: "test-0" })),
        "the playground does not open the test split (it is opened once, at the end): pick val or train",
      );
      assert.equal(
        message(() => pg.start({ split: "val", id: "nope" })),
        'no item "nope" in the calculator val split: pick one from the list',
      );
      const ep = pg.start({ split: "val", id: "val-3" });
      const before = JSON.stringify(ep.transcript());
      assert.equal(
        await rejection(ep.next({ temperature: 3, maxTokens: 64 })),
        "temperature 3 is out of range: use a number from 0 to 2",
      );
      assert.equal(
        await rejection(ep.next({ temperature: 0, maxTokens: 1e9 })),
        "max tokens 1000000000 is out of range: use a whole number from 1 to 32768",
      );
      assert.equal(
        await rejection(ep.next({ temperature: 0, maxTokens: 0.5 })),
        "max tokens 0.5 is out of range: use a whole number from 1 to 32768",
      );
      assert.equal(JSON.stringify(ep.transcript()), before);
      const runs = join(ws, "runs");
      const listed = readdirSync(runs).sort();
      assert.equal(
        await rejection(ep.save("unfinished")),
        "the episode has not ended yet: run turns until the environment ends it, then save",
      );
      assert.equal(
        await rejection(ep.save("chat-val-0")),
        `${join(runs, "chat-val-0")} already holds a run: save the episode under another name`,
      );
      assert.deepEqual(readdirSync(runs).sort(), listed, "no run folder was written");
    } finally {
      pg.close();
    }
  });
});
