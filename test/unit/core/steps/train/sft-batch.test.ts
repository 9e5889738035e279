/**
 * SFT's per-epoch slicing, held on the requests themselves: which rows each forward_backward carries
 * (the seeded shuffle of every epoch, cut into batches with a short last one), the learning rate each
 * optim_step carries, every metrics column, which steps print a line, the ledger, the per-epoch
 * checkpoints, and a run stopped inside its second epoch that resumes on the same rows. Small and
 * fast on purpose: the mutation run reruns it for every mutant of the training loop.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readRegistry, registryPath } from "../../../../../src/core/base/checkpoints/registry";
import { loadConfig } from "../../../../../src/core/envs/config";
import { UserError } from "../../../../../src/core/base/errors";
import { PyRandom } from "../../../../../src/core/base/data/python-random";
import { readLedger } from "../../../../../src/core/base/ledger";
import type { Datum } from "../../../../../src/core/base/tinker/wire";
import { modelInputLength } from "../../../../../src/core/base/tinker/wire/builders";
import { decodeForwardBackwardRequest } from "../../../../../src/core/base/tinker/wire/codec";
import {
  linearLr,
  readSftData,
  trainSft,
  type SftMetrics,
  type TrainSftOptions,
} from "../../../../../src/core/steps/train";
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

/** The forward_backward datums and optim_step learning rates a run sent, in order. */
function recorder(onOptim?: (count: number) => void) {
  const batches: Datum[][] = [];
  const lrs: number[] = [];
  const adam: Record<string, number>[] = [];
  const fetchSpy: typeof fetch = async (input, init) => {
    const url = String(input);
    if (url.endsWith("/api/v1/forward_backward") && init?.body instanceof Uint8Array)
      batches.push(decodeForwardBackwardRequest(init.body).data);
    const res = await fetch(input, init);
    if (url.endsWith("/api/v1/optim_step") && typeof init?.body === "string") {
      const { learning_rate, beta1, beta2, eps } = (JSON.parse(init.body) as { adam_params: Record<string, number> })
        .adam_params;
      lrs.push(learning_rate);
      adam.push({ beta1, beta2, eps });
      onOptim?.(lrs.length);
    }
    return res;
  };
  return { batches, lrs, adam, fetchSpy };
}

describe("train: SFT's per-epoch batches and step log", function () {
  this.timeout(120_000);
  let world: LocalWorld;
  let dataFile: string;

  before(async function () {
    const file = requireSharedData(this, "hotpotqa", "hotpotqa_distractor_train_partial.jsonl");
    world = await localWorld("sft-batch");
    const records = readRecords(file, 5);
    const rows = await teacherRows(await qwenTokenizer(), records, new TinySearcher(records));
    dataFile = writeJsonlFile(join(world.root, "data", "sft.jsonl"), rows);
  });
  after(async () => world?.close());

  const options = (over: Partial<TrainSftOptions>): TrainSftOptions => ({
    workspaceDir: world.root,
    config: loadConfig(world.root, { loraRank: 4 }),
    name: "sft",
    data: dataFile,
    epochs: 2,
    batch: 2,
    lr: 0.02,
    seed: 5,
    backend: "local",
    baseUrl: world.backend.url,
    retry: FAST_RETRY,
    command: ["test"],
    ...over,
  });

  it("shuffles each epoch with the run's seed, cuts it into batches (the last one short), and logs every step's numbers", async () => {
    const data = readSftData(dataFile);
    const rowOf = (d: Datum) =>
      data.datums.findIndex(
        (x) =>
          JSON.stringify(x.loss_fn_inputs.target_tokens.data) === JSON.stringify(d.loss_fn_inputs.target_tokens.data),
      );
    // The recipe's random.Random(seed): one shuffle per epoch, continuing the same generator.
    const rng = new PyRandom(5);
    const order = [0, 1, 2, 3, 4];
    const epochOrders = [1, 2].map(() => (rng.shuffle(order), [...order]));
    assert.notDeepEqual(epochOrders[0], epochOrders[1], "the second epoch is shuffled again");
    const wantBatches = epochOrders.flatMap((o) => [o.slice(0, 2), o.slice(2, 4), o.slice(4)]);

    const { batches, lrs, adam, fetchSpy } = recorder();
    const log: string[] = [];
    const progress: { label: string; planned: number }[] = [];
    const result = await trainSft(
      options({ fetch: fetchSpy, log: (l) => log.push(l), onProgress: (p) => progress.push(p) }),
    );
    assert.equal(result.status, "done");
    assert.deepEqual([result.steps, result.totalSteps], [6, 6]);
    assert.deepEqual(
      batches.map((b) => b.map(rowOf)),
      wantBatches,
    );
    const inputTokens = (d: Datum) => d.model_input.chunks.flatMap((c) => (c.type === "encoded_text" ? c.tokens : []));
    batches.forEach((b) =>
      b.forEach((d) => {
        const row = data.datums[rowOf(d)];
        assert.deepEqual(inputTokens(d), inputTokens(row), "each datum is the row's, unchanged");
        assert.deepEqual(d.loss_fn_inputs.weights.data, row.loss_fn_inputs.weights.data);
      }),
    );
    assert.deepEqual(
      lrs,
      [0, 1, 2, 3, 4, 5].map((s) => linearLr(0.02, s, 6)),
    );
    // The cookbook's Adam (eps 1e-8, not the service's default 1e-12) on every step.
    assert.ok(adam.length === 6 && adam.every((a) => a.beta1 === 0.9 && a.beta2 === 0.95 && a.eps === 1e-8));
    assert.ok(progress.length > 0 && progress.every((p) => p.label === "SFT" && p.planned === 6));

    const metrics = rowsOf<SftMetrics & { time: string }>(join(result.runDir, "metrics.jsonl"));
    const tokensOf = (rows: number[]) => rows.reduce((n, k) => n + modelInputLength(data.datums[k].model_input), 0);
    const weightOf = (rows: number[]) =>
      rows.reduce((n, k) => n + data.datums[k].loss_fn_inputs.weights.data.reduce((s, w) => s + w, 0), 0);
    assert.deepEqual(
      metrics.map((m) => [m.step, m.epoch, m.lr, m.tokens, m.loss_tokens, m.usd]),
      wantBatches.map((rows, i) => [i + 1, i < 3 ? 1 : 2, lrs[i], tokensOf(rows), weightOf(rows), 0]),
    );
    assert.ok(metrics.every((m) => Number.isFinite(m.loss) && m.loss > 0));

    // Printed: the first step, every fifth and the last.
    const steps = log.filter((l) => l.startsWith("epoch "));
    assert.deepEqual(
      steps,
      [1, 5, 6].map((s) => {
        const m = metrics[s - 1];
        return `epoch ${m.epoch}  step ${s}/6  loss ${m.loss.toFixed(4)}  lr ${m.lr.toExponential(2)}`;
      }),
    );
    assert.equal(log[0], `5 examples, ${data.tokensPerEpoch.toLocaleString("en-US")} tokens/epoch, ≈ $0.00 to train`);
    assert.equal(log.at(-1), "spent $0.00 (estimate was $0.00)");

    assert.deepEqual(
      readLedger(result.runDir).map((e) => [e.kind, e.label, e.tokens.trained]),
      wantBatches.map((rows, i) => ["train", `step ${i + 1}`, tokensOf(rows)]),
    );
    assert.deepEqual(
      result.checkpoints.map((c) => [c.name, c.batch, c.epoch, c.final ?? false]),
      [
        ["sft-e1", 3, 1, false],
        ["sft-e2", 6, 2, true],
      ],
    );
    const manifest = JSON.parse(readFileSync(join(result.runDir, "manifest.json"), "utf8"));
    assert.deepEqual(
      [manifest.steps_per_epoch, manifest.total_steps, manifest.batch, manifest.epochs, manifest.seed],
      [3, 6, 2, 2, 5],
    );
    assert.deepEqual(
      [manifest.data.examples, manifest.data.tokens_per_epoch, manifest.data.path, manifest.data.lineage_manifest],
      [5, data.tokensPerEpoch, join("data", "sft.jsonl"), null],
    );
    assert.deepEqual(
      [manifest.loss_fn, manifest.tokenizer, manifest.parent, manifest.init_state, manifest.lr_schedule],
      ["cross_entropy", data.tokenizer ?? null, null, null, "linear"],
    );
    assert.ok(
      readRegistry(registryPath(join(world.root, "runs")))
        .filter((e) => e.run === join("runs", "sft"))
        .every((e) => e.data_hash === data.hash),
    );

    // Stopped after step 4 (inside epoch 2): --resume redoes epoch 2 from its first batch, on the
    // same rows as the run that was never stopped, and each step is written once.
    const stopper = new AbortController();
    const cut = recorder((n) => n === 4 && stopper.abort());
    const cutLog: string[] = [];
    const stopped = await trainSft(
      options({ name: "cut", fetch: cut.fetchSpy, signal: stopper.signal, log: (l) => cutLog.push(l) }),
    );
    assert.deepEqual([stopped.status, stopped.steps], ["interrupted", 4]);
    assert.ok(cutLog.includes("stopped before step 5; resume from cut-e1 with --resume"), cutLog.join("\n"));
    const resumed = recorder();
    const again = await trainSft(options({ name: "cut", resume: true, fetch: resumed.fetchSpy }));
    assert.deepEqual([again.status, again.steps], ["done", 6]);
    assert.deepEqual(
      resumed.batches.map((b) => b.map(rowOf)),
      wantBatches.slice(3),
    );
    assert.deepEqual(resumed.lrs, lrs.slice(3));
    assert.deepEqual(
      rowsOf<SftMetrics>(join(again.runDir, "metrics.jsonl")).map((m) => [m.step, m.epoch, m.tokens]),
      metrics.map((m) => [m.step, m.epoch, m.tokens]),
    );

    // Resumed once it is complete: nothing to do, nothing sent.
    const complete: string[] = [];
    const idle = recorder();
    const third = await trainSft(
      options({ name: "cut", resume: true, fetch: idle.fetchSpy, log: (l) => complete.push(l) }),
    );
    assert.deepEqual(
      [third.status, third.steps, third.totalSteps, third.spentUsd, third.checkpoints.length],
      ["done", 6, 6, 0, 2],
    );
    assert.ok(complete.includes(`${again.runDir} is already complete (2 epochs); nothing to do`), complete.join("\n"));
    assert.equal(idle.batches.length, 0);

    // A resume with other settings is refused, naming the field.
    for (const [over, field] of [
      [{ lr: 0.03 }, "lr"],
      [{ batch: 3 }, "batch"],
      [{ epochs: 3 }, "epochs"],
      [{ seed: 6 }, "seed"],
      [{ config: loadConfig(world.root, { loraRank: 8 }) }, "lora_rank"],
      [{ initState: "sft-e1" }, "init_state"],
      [{ data: writeJsonlFile(join(world.root, "other", "sft.jsonl"), rowsOf(dataFile).slice(0, 4)) }, "data"],
    ] as [Partial<TrainSftOptions>, string][]) {
      await assert.rejects(
        trainSft(options({ name: "cut", resume: true, ...over })),
        (e: Error) => e instanceof UserError && new RegExp(`field\\(s\\): (.*; )?${field}: `).test(e.message),
        field,
      );
    }

    // As many rows as the batch: one step, no empty one after it.
    const whole = recorder();
    const one = await trainSft(options({ name: "whole", epochs: 1, batch: 5, fetch: whole.fetchSpy }));
    assert.deepEqual([one.status, one.steps, whole.batches.map((b) => b.length)], ["done", 1, [5]]);
  });
  it("refuses a bad flag, and a run named after the data's own folder, with one line", async () => {
    const cases: [Partial<TrainSftOptions>, string][] = [
      [{ epochs: 0 }, "--epochs must be an integer ≥ 1"],
      [{ epochs: 1.5 }, "--epochs must be an integer ≥ 1"],
      [{ batch: 0 }, "--batch must be an integer ≥ 1"],
      [{ batch: 2.5 }, "--batch must be an integer ≥ 1"],
      [{ lr: 0 }, "--lr must be > 0"],
    ];
    // The boundaries pass (epochs 1, batch 1): each case fails on its own flag only.
    for (const [over, message] of cases) {
      await assert.rejects(
        trainSft(options({ name: "refused", epochs: 1, batch: 1, ...over })),
        (e: Error) => e instanceof UserError && e.message === message,
        message,
      );
    }
    const inRun = writeJsonlFile(join(world.root, "runs", "made", "sft.jsonl"), rowsOf(dataFile));
    await assert.rejects(
      trainSft(options({ name: "made", data: inRun })),
      (e: Error) =>
        e instanceof UserError &&
        e.message ===
          "--name made is the folder of the SFT data itself; give the training run another --name (e.g. made-train)",
    );
  });
});
