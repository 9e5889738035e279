/**
 * The real `agent-lab train-sft`, `train-grpo` and `ckpt` as child processes on the local backend
 * (started inside the CLI, checkpoints on disk): each is killed with SIGKILL mid-run and resumed
 * with --resume. Nothing finished is lost or duplicated (only the steps after the last saved
 * state are redone), no question is reused, and the registry stays valid with each name once.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRegistry, registryPath } from "../../../src/core/base/checkpoints/registry";
import { buildIndex } from "../../../src/core/base/search";
import { requireSharedData } from "../../helpers/shared-data";
import {
  corpusRows,
  qwenTokenizer,
  readRecords,
  SHORT_PROMPT,
  teacherRows,
  TinySearcher,
  toQuestion,
  writeJsonlFile,
} from "../core/steps/train/helpers";
import { runCli, startCli, waitFor } from "./cli-process";

const lineCount = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
const rowsOf = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

describe("cli: train-sft, train-grpo (kill -9, --resume) and ckpt", function () {
  this.timeout(120_000);
  let root: string;
  let ws: string;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    root = mkdtempSync(join(tmpdir(), "agent-lab-train-cli-"));
    ws = join(root, "ws");
    mkdirSync(join(ws, "data"), { recursive: true });
    const records = readRecords(file, 40);
    writeJsonlFile(join(ws, "data", "train.jsonl"), records.map(toQuestion));
    writeJsonlFile(join(ws, "data", "corpus.jsonl"), corpusRows(records));
    await buildIndex(join(ws, "data", "corpus.jsonl"), join(ws, "data", "bm25"), { workers: 0 });
    writeFileSync(join(ws, "prompt.txt"), SHORT_PROMPT);
    writeFileSync(
      join(ws, "agent-lab.json"),
      JSON.stringify({ loraRank: 8, maxTokens: 12, concurrency: 4, systemPromptFile: "prompt.txt" }),
    );
    const sftRecords = records.slice(0, 8);
    writeJsonlFile(
      join(ws, "runs", "sft-data", "sft.jsonl"),
      await teacherRows(await qwenTokenizer(), sftRecords, new TinySearcher(sftRecords)),
    );
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("train-sft killed with SIGKILL mid-run resumes from its last epoch without duplicating steps or registry entries", async () => {
    const run = join(ws, "runs", "sft");
    const args = [
      "train-sft",
      "--workspace",
      ws,
      "--backend",
      "local",
      "--local-port",
      "0",
      "--data",
      "runs/sft-data/sft.jsonl",
      "--epochs",
      "3",
      "--batch",
      "1",
      "--lr",
      "0.02",
    ];
    const { child, done } = await startCli(args);
    await waitFor(() => lineCount(join(run, "checkpoints.jsonl")) >= 1, 60_000, "the first epoch's checkpoint");
    child.kill("SIGKILL");
    const killed = await done;
    assert.equal(killed.signal, "SIGKILL", `it finished before the kill:\n${killed.stdout}`);
    const saved = rowsOf<{ name: string; batch: number }>(join(run, "checkpoints.jsonl"));
    assert.ok(saved.length >= 1 && saved.length < 3, `${saved.length} epochs saved when killed`);
    const keptMetrics = readFileSync(join(run, "metrics.jsonl"), "utf8").split("\n").slice(0, saved.at(-1)!.batch);

    const resumed = await runCli([...args, "--resume"]);
    assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
    assert.match(
      resumed.stdout,
      new RegExp(`resuming sft from ${saved.at(-1)!.name} \\(epoch ${saved.length}, step ${saved.at(-1)!.batch}\\)`),
    );
    const metrics = rowsOf<{ step: number; epoch: number }>(join(run, "metrics.jsonl"));
    assert.deepEqual(
      metrics.map((m) => m.step),
      Array.from({ length: 24 }, (_, i) => i + 1),
      "every step once, in order",
    );
    assert.deepEqual(
      readFileSync(join(run, "metrics.jsonl"), "utf8").split("\n").slice(0, keptMetrics.length),
      keptMetrics,
      "saved epochs' lines kept as they were",
    );
    assert.deepEqual(
      rowsOf<{ name: string }>(join(run, "checkpoints.jsonl")).map((c) => c.name),
      ["sft-e1", "sft-e2", "sft-e3"],
    );
    const reg = readRegistry(registryPath(join(ws, "runs")));
    assert.deepEqual(
      reg.map((e) => [e.name, e.parent]),
      [
        ["sft-e1", null],
        ["sft-e2", "sft-e1"],
        ["sft-e3", "sft-e2"],
      ],
    );
    assert.ok(lineCount(join(run, "ledger.jsonl")) >= 24, "redone steps stay in the ledger: they were computed twice");

    const state = await runCli(["ckpt", "sft-e2", "state", "--workspace", ws]);
    assert.equal(state.code, 0, state.stderr);
    assert.equal(state.stdout.trim(), reg[1].state_path);
    const unknown = await runCli(["ckpt", "sft-e9", "--workspace", ws]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /agent-lab ckpt: no checkpoint named "sft-e9" .*known names: sft-e1, sft-e2, sft-e3/);
  });

  it("train-grpo killed with SIGKILL mid-run resumes at the step after its last save, on unused questions", async function () {
    if (!existsSync(join(ws, "runs", "sft", "checkpoints.jsonl"))) this.skip();
    const run = join(ws, "runs", "grpo");
    const args = [
      "train-grpo",
      "--workspace",
      ws,
      "--backend",
      "local",
      "--local-port",
      "0",
      "--init-state",
      "sft-e2",
      "--steps",
      "8",
      "--questions",
      "2",
      "--group",
      "4",
      "--offset",
      "12",
      "--save-every",
      "3",
      "--temperature",
      "1",
    ];
    const { child, done } = await startCli(args);
    await waitFor(() => lineCount(join(run, "metrics.jsonl")) >= 4, 60_000, "four finished steps");
    child.kill("SIGKILL");
    const killed = await done;
    assert.equal(killed.signal, "SIGKILL", `it finished before the kill:\n${killed.stdout}`);
    const saved = rowsOf<{ name: string; batch: number }>(join(run, "checkpoints.jsonl"));
    const lastSaved = saved.at(-1)!.batch;
    assert.ok(lastSaved >= 3 && lastSaved < 8, `last saved step ${lastSaved}`);
    const before = rowsOf<{ step: number }>(join(run, "metrics.jsonl")).length;

    const resumed = await runCli([...args, "--resume"]);
    assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
    assert.match(resumed.stdout, new RegExp(`resuming grpo from grpo-s${lastSaved} \\(step ${lastSaved}\\)`));
    if (before > lastSaved) assert.match(resumed.stdout, /dropped \d+ lines after step \d+; those steps are redone/);
    const metrics = rowsOf<{ step: number; questions: [number, number] }>(join(run, "metrics.jsonl"));
    assert.deepEqual(
      metrics.map((m) => m.step),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.deepEqual(
      metrics.map((m) => m.questions),
      Array.from({ length: 8 }, (_, i) => [12 + 2 * i, 14 + 2 * i]),
      "each question used once",
    );
    const episodes = rowsOf<{ id: string; step: number }>(join(run, "episodes.jsonl"));
    assert.equal(episodes.length, 64);
    assert.equal(new Set(episodes.map((e) => e.id)).size, 64);
    assert.equal(lineCount(join(run, "groups.jsonl")), 16);
    const names = readRegistry(registryPath(join(ws, "runs")))
      .filter((e) => e.kind === "grpo")
      .map((e) => [e.name, e.parent]);
    assert.deepEqual(names, [
      ["grpo-s3", "sft-e2"],
      ["grpo-s6", "grpo-s3"],
      ["grpo-s8", "grpo-s6"],
    ]);
    assert.match(
      resumed.stdout,
      /step 8 {2}reward [\d.]+ {2}skipped_groups [\d.]+ {2}searches [\d.]+ {2}answered [\d.]+ {2}budget_hit [\d.]+ {2}tokens [\d.]+ {2}usd 0\.00/,
    );
  });
});
