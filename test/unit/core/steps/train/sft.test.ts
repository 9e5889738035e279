/**
 * trainSft against the real local backend over HTTP: loss falls on scripted-teacher traces of real
 * HotpotQA records, the LR decays linearly, forward_backward and optim_step are both on the wire
 * before either is awaited, and each epoch's checkpoint is registered with its parent and data hash.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../../../../src/core/envs/config";
import { readRegistry, registryPath } from "../../../../../src/core/base/checkpoints/registry";
import { readLedger } from "../../../../../src/core/base/ledger";
import { sha256File } from "../../../../../src/core/base/runs/manifest";
import { trainSft, type SftMetrics } from "../../../../../src/core/steps/train";
import { requireSharedData } from "../../../../helpers/shared-data";
import {
  FAST_RETRY,
  localWorld,
  qwenTokenizer,
  readRecords,
  teacherRows,
  TinySearcher,
  writeJsonlFile,
  type LocalWorld,
} from "./helpers";

const rowsOf = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

describe("train: trainSft on the local backend", function () {
  this.timeout(60_000);
  let world: LocalWorld;
  let dataFile: string;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    world = await localWorld("sft");
    const records = readRecords(file, 6);
    const rows = await teacherRows(await qwenTokenizer(), records, new TinySearcher(records));
    dataFile = writeJsonlFile(join(world.root, "runs", "sft-data", "sft.jsonl"), rows);
  });
  after(async () => world?.close());

  it("loss falls, lr decays linearly to 0, fwd/bwd and optim_step are submitted back to back, epochs are registered", async () => {
    // Every request the client sends, in order, with when it started and finished.
    const events: string[] = [];
    const spy: typeof fetch = async (input, init) => {
      const path = new URL(String(input instanceof Request ? input.url : input)).pathname.replace("/api/v1/", "");
      events.push(`start ${path}`);
      const res = await fetch(input, init);
      events.push(`end ${path}`);
      return res;
    };
    const log: string[] = [];
    const result = await trainSft({
      workspaceDir: world.root,
      config: loadConfig(world.root, { loraRank: 8 }),
      name: "sft",
      data: dataFile,
      epochs: 3,
      batch: 2,
      lr: 0.05,
      backend: "local",
      baseUrl: world.backend.url,
      retry: FAST_RETRY,
      fetch: spy,
      command: ["test"],
      log: (l) => log.push(l),
    });
    assert.equal(result.status, "done");
    assert.equal(result.totalSteps, 9);
    const metrics = rowsOf<SftMetrics>(join(result.runDir, "metrics.jsonl"));
    assert.deepEqual(
      metrics.map((m) => m.step),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    metrics.forEach((m, i) => assert.ok(Math.abs(m.lr - 0.05 * (1 - i / 9)) < 1e-12, `step ${m.step} lr ${m.lr}`));
    const epochLoss = (e: number) => metrics.filter((m) => m.epoch === e).reduce((s, m) => s + m.loss, 0) / 3;
    assert.ok(
      epochLoss(3) < epochLoss(1) * 0.8,
      `epoch losses ${[1, 2, 3]
        .map(epochLoss)
        .map((l) => l.toFixed(3))
        .join(" → ")}`,
    );
    assert.ok(
      metrics.every((m) => m.tokens > 0 && m.loss_tokens > 0 && m.loss_tokens < m.tokens),
      "loss only on sampled tokens",
    );
    assert.match(log[0], /^6 examples, [\d,]+ tokens\/epoch, ≈ \$0\.00 to train$/);

    // Back to back: each optim_step request starts before its forward_backward's result is polled back.
    const fb = events.flatMap((e, i) => (e === "start forward_backward" ? [i] : []));
    assert.equal(fb.length, 9);
    for (const i of fb) {
      const opt = events.indexOf("start optim_step", i);
      const firstPollDone = events.indexOf("end retrieve_future", i);
      assert.ok(
        opt > i && opt < firstPollDone,
        `optim_step sent at ${opt}, first future came back at ${firstPollDone}: ${events.slice(i, i + 8).join(", ")}`,
      );
    }

    // Per-epoch checkpoints: the run's cookbook-shaped file and the workspace registry.
    const runCkpts = rowsOf<{ name: string; batch: number; epoch: number }>(join(result.runDir, "checkpoints.jsonl"));
    assert.deepEqual(
      runCkpts.map((c) => [c.name, c.batch, c.epoch]),
      [
        ["sft-e1", 3, 1],
        ["sft-e2", 6, 2],
        ["sft-e3", 9, 3],
      ],
    );
    const reg = readRegistry(registryPath(join(world.root, "runs")));
    assert.deepEqual(
      reg.map((e) => [e.name, e.parent, e.step, e.epoch, e.kind, e.run]),
      [
        ["sft-e1", null, 3, 1, "sft", join("runs", "sft")],
        ["sft-e2", "sft-e1", 6, 2, "sft", join("runs", "sft")],
        ["sft-e3", "sft-e2", 9, 3, "sft", join("runs", "sft")],
      ],
    );
    for (const e of reg) {
      assert.equal(e.data_hash, `sha256:${sha256File(dataFile)}`);
      assert.match(e.sampler_path, /^tinker:\/\/.+\/sampler_weights\/sft-e\d$/);
      assert.match(e.state_path, /^tinker:\/\/.+\/weights\/sft-e\d-state$/);
      assert.equal(e.base_model, "agent-lab/local-tiny");
    }
    const manifest = JSON.parse(readFileSync(join(result.runDir, "manifest.json"), "utf8"));
    assert.equal(manifest.lr_schedule, "linear");
    assert.equal(manifest.data.hash, reg[0].data_hash);
    assert.equal(manifest.backend, "local");
    assert.equal(readLedger(result.runDir).length, 9, "one ledger line per step");

    // Resuming a finished run does nothing and registers nothing twice.
    const again = await trainSft({
      workspaceDir: world.root,
      config: loadConfig(world.root, { loraRank: 8 }),
      name: "sft",
      data: dataFile,
      epochs: 3,
      batch: 2,
      lr: 0.05,
      backend: "local",
      baseUrl: world.backend.url,
      retry: FAST_RETRY,
      command: ["test"],
      resume: true,
    });
    assert.equal(again.steps, 9);
    assert.equal(readRegistry(registryPath(join(world.root, "runs"))).length, 3);
  });

  it("refuses a second run into the same folder, an unpriced model, and bad rows with file:line", async () => {
    const base = {
      workspaceDir: world.root,
      data: dataFile,
      epochs: 1,
      batch: 2,
      lr: 0.01,
      baseUrl: world.backend.url,
      command: ["test"],
    };
    await assert.rejects(
      trainSft({ ...base, config: loadConfig(world.root), name: "sft", backend: "local" }),
      /already holds a run: pass --resume/,
    );
    await assert.rejects(
      trainSft({
        ...base,
        config: loadConfig(world.root, { model: "Some/Unpriced-Model" }),
        name: "paid",
        backend: "tinker",
        apiKey: "tml-unused",
      }),
      /no price for model "Some\/Unpriced-Model"/,
    );
    const bad = writeJsonlFile(join(world.root, "bad", "sft.jsonl"), [
      { prompt: [1, 2], tokens: [3], sampled: [1] },
      { prompt: [1], tokens: [2, 3], sampled: [1] },
    ]);
    await assert.rejects(
      trainSft({ ...base, data: bad, config: loadConfig(world.root), name: "bad-run", backend: "local" }),
      /bad[/\\]sft\.jsonl:2: "sampled" has 1 flags for 2 tokens/,
    );
  });
});
