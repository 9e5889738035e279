/**
 * Clean stops: the budget cap (on the priced path — `--backend tinker` pointed at the local server,
 * so the Qwen price row applies and the ledger records real dollars) and Ctrl-C, which saves the
 * steps done since the last checkpoint so nothing is lost.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../../../src/core/envs/config";
import { readRegistry, registryPath } from "../../../../../src/core/base/checkpoints/registry";
import type { Question } from "../../../../../src/core/base/data/question";
import { readLedger } from "../../../../../src/core/base/ledger";
import { trainGrpo, trainSft, type TrainGrpoOptions } from "../../../../../src/core/steps/train";
import type { ChatTokenizer } from "../../../../../src/core/base/chat";
import { requireSharedData } from "../../../../helpers/shared-data";
import {
  FAST_RETRY,
  localWorld,
  qwenTokenizer,
  readRecords,
  SHORT_PROMPT,
  teacherRows,
  TinySearcher,
  toQuestion,
  writeJsonlFile,
  type LocalWorld,
} from "./helpers";

const rowsOf = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

describe("train: budget cap and interruption", function () {
  this.timeout(60_000);
  let world: LocalWorld;
  let questions: Question[];
  let searcher: TinySearcher;
  let tok: ChatTokenizer;
  let dataFile: string;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    const records = readRecords(file, 10);
    questions = records.map(toQuestion);
    searcher = new TinySearcher(records);
    tok = await qwenTokenizer();
    world = await localWorld("train-stops");
    writeFileSync(join(world.root, "prompt.txt"), SHORT_PROMPT);
    dataFile = writeJsonlFile(
      join(world.root, "runs", "data", "sft.jsonl"),
      await teacherRows(tok, records.slice(0, 4), searcher),
    );
  });
  after(async () => world?.close());

  const grpo = (over: Partial<TrainGrpoOptions>): TrainGrpoOptions => ({
    workspaceDir: world.root,
    config: loadConfig(world.root, { loraRank: 8, maxTokens: 6, concurrency: 4 }),
    name: "g",
    steps: 3,
    questions: 2,
    group: 2,
    lr: 0.01,
    temperature: 1,
    offset: 0,
    saveEvery: 10,
    backend: "tinker",
    apiKey: "tml-test-not-a-real-key",
    baseUrl: world.backend.url,
    retry: FAST_RETRY,
    command: ["test"],
    trainQuestions: questions,
    searcher,
    tokenizer: tok,
    promptFile: "prompt.txt",
    ...over,
  });

  it("SFT refuses before any request when the whole run cannot fit under the cap", async () => {
    const config = loadConfig(world.root, { loraRank: 8, budgetUsd: 1e-7 });
    await assert.rejects(
      trainSft({
        workspaceDir: world.root,
        config,
        name: "capped",
        data: dataFile,
        epochs: 2,
        batch: 2,
        lr: 0.01,
        backend: "tinker",
        apiKey: "tml-x",
        baseUrl: world.backend.url,
        command: ["t"],
      }),
      /budget cap \$0\.00 reached: .* the rest of this SFT run ≈ \$0\.00\d+ would go over it/,
    );
    assert.equal(readLedger(join(world.root, "runs", "capped")).length, 0, "nothing spent");
  });

  it("GRPO records sampling and training dollars per step and stops cleanly before a step that would pass the cap", async () => {
    const first = await trainGrpo(grpo({ steps: 1 }));
    assert.equal(first.status, "done");
    const ledger = readLedger(first.runDir);
    assert.deepEqual(
      ledger.map((e) => [e.kind, e.label]).filter(([k]) => k === "sample"),
      [["sample", "step 1"]],
    );
    const spent = ledger.reduce((s, e) => s + e.usd, 0);
    assert.ok(spent > 0 && ledger.every((e) => e.usd >= 0));

    // Allow almost nothing more: step 2 (estimated from step 1's measured episodes) does not fit.
    const capped = await trainGrpo(
      grpo({
        steps: 3,
        resume: true,
        config: loadConfig(world.root, { loraRank: 8, maxTokens: 6, concurrency: 4, budgetUsd: spent + 1e-9 }),
      }),
    );
    assert.equal(capped.status, "budget");
    assert.equal(capped.step, 1);
    assert.match(capped.message!, /budget cap .* step 2 ≈ \$/);
    assert.equal(rowsOf(join(first.runDir, "metrics.jsonl")).length, 1, "no step 2 was started");
    assert.equal(readLedger(first.runDir).length, ledger.length, "nothing more spent");
  });

  it("an abort between steps saves the unsaved steps as a checkpoint, so --resume loses nothing", async () => {
    const controller = new AbortController();
    const result = await trainGrpo(
      grpo({
        name: "stopped",
        steps: 5,
        backend: "local",
        log: (line) => {
          if (line.startsWith("step 2 ")) controller.abort();
        },
        signal: controller.signal,
      }),
    );
    assert.equal(result.status, "interrupted");
    assert.equal(result.step, 2);
    assert.deepEqual(
      result.checkpoints.map((c) => c.name),
      ["stopped-s2"],
    );
    assert.ok(readRegistry(registryPath(join(world.root, "runs"))).some((e) => e.name === "stopped-s2"));
    const resumed = await trainGrpo(grpo({ name: "stopped", steps: 3, backend: "local", resume: true }));
    assert.equal(resumed.step, 3);
    assert.deepEqual(
      rowsOf<{ step: number }>(join(result.runDir, "metrics.jsonl")).map((m) => m.step),
      [1, 2, 3],
    );
  });
  it("SFT stopped inside its first epoch: --resume starts over from the base and writes each step once", async () => {
    const controller = new AbortController();
    const base = {
      workspaceDir: world.root,
      config: loadConfig(world.root, { loraRank: 8 }),
      name: "sft-stop",
      data: dataFile,
      epochs: 2,
      batch: 1,
      lr: 0.01,
      backend: "local",
      baseUrl: world.backend.url,
      retry: FAST_RETRY,
      command: ["t"],
    };
    const stopped = await trainSft({
      ...base,
      signal: controller.signal,
      log: (l) => l.startsWith("epoch 1  step 1/") && controller.abort(),
    });
    assert.equal(stopped.status, "interrupted");
    assert.equal(stopped.checkpoints.length, 0);
    assert.ok(rowsOf(join(stopped.runDir, "metrics.jsonl")).length >= 1);
    const done = await trainSft({ ...base, resume: true });
    assert.equal(done.status, "done");
    assert.deepEqual(
      rowsOf<{ step: number }>(join(done.runDir, "metrics.jsonl")).map((m) => m.step),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.deepEqual(
      done.checkpoints.map((c) => c.name),
      ["sft-stop-e1", "sft-stop-e2"],
    );
  });
  it("GRPO stops cleanly when the train questions run out, keeping what it did", async () => {
    const result = await trainGrpo(grpo({ name: "short", steps: 3, offset: 8, backend: "local" }));
    assert.equal(result.status, "out_of_questions");
    assert.equal(result.step, 1);
    assert.match(result.message!, /no train questions left for step 2 \(index 10 of 10\)/);
    assert.deepEqual(
      result.checkpoints.map((c) => c.name),
      ["short-s1"],
    );
    await assert.rejects(
      trainGrpo(grpo({ name: "past", offset: 10, backend: "local" })),
      /--offset 10 is past the 10 train questions/,
    );
  });
});
