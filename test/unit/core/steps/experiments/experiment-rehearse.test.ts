/**
 * `experiment run examples/gsm8k-self-generated.json --rehearse`: the seed's GSM8K spec end to end
 * (GSM8K prepared from --train/--test files, tasks from the scripted generator through the sandbox
 * and the eval-overlap filter, GRPO on those tasks as GSM8K items and on GSM8K train, base and
 * both arms scored on the same test items) through the Tinker client against the real local
 * backend over HTTP (TINKER_BASE_URL, a fake tml- key) with the stand-in tokenizer, to a record
 * `experiment validate` passes. On a GSM8K-shaped twin so a fresh clone runs it; on the real
 * shared records too when they are here. Without --rehearse the spec stays the real thing.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { offlineTokenizer } from "../../../../../src/core/base/chat";
import { REHEARSAL_SIZES } from "../../../../../src/core/steps/experiments/rehearsal";
import type { ExperimentRecord } from "../../../../../src/core/steps/experiments/record";
import { runExperiment } from "../../../../../src/core/steps/experiments/run-experiment";
import { readExperimentSpec } from "../../../../../src/core/steps/experiments/spec";
import { validateExperiment } from "../../../../../src/core/steps/experiments/validate";
import { sha256File } from "../../../../../src/core/base/runs/manifest";
import { UserError } from "../../../../../src/core/base/errors";
import { startLocalBackend, type RunningLocalBackend } from "../../../../../src/server";
import { sharedDataPath } from "../../../../helpers/shared-data";
import { writeSpec } from "./fixtures";
import { startLocalBackend as startOrReuseLocalBackend } from "../../../../helpers/local-backend";
import { REPO } from "../../../../helpers/repo";

const SPEC = resolve(REPO, "examples", "gsm8k-self-generated.json");
const NAME = "gsm8k-self-generated-rehearsal";

/** GSM8K-shaped records ({question, answer ending "#### N"}): enough train for the val carve (500). */
function writeTwin(dir: string): { train: string; test: string } {
  const people = ["Ava", "Ben", "Cara", "Dev", "Eli", "Fay", "Gus", "Hana"];
  const things = ["apples", "stamps", "marbles", "books", "shells", "coins"];
  const row = (i: number) => {
    const a = 3 + (i % 41);
    const b = 2 + ((i * 7) % 37);
    const who = people[i % people.length];
    const what = things[i % things.length];
    return JSON.stringify({
      question: `${who} has ${a} ${what} in box ${i} and gets ${b} more. How many ${what} are in box ${i} now?`,
      answer: `${a} + ${b} = ${a + b}\n#### ${a + b}`,
    });
  };
  const train = join(dir, "twin_train.jsonl");
  const test = join(dir, "twin_test.jsonl");
  writeFileSync(train, Array.from({ length: 560 }, (_, i) => row(i)).join("\n") + "\n");
  writeFileSync(test, Array.from({ length: 12 }, (_, i) => row(10_000 + i)).join("\n") + "\n");
  return { train, test };
}

describe("experiments: the seed's GSM8K spec, rehearsed (--rehearse against the local backend)", function () {
  this.timeout(300_000);
  let root: string;
  let backend: RunningLocalBackend;
  const saved = { url: process.env.TINKER_BASE_URL, key: process.env.TINKER_API_KEY };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-exp-rehearse-"));
    backend = await startLocalBackend({ dir: join(root, "backend"), port: 0 });
    process.env.TINKER_BASE_URL = backend.url;
    process.env.TINKER_API_KEY = "tml-rehearsal-fake-key";
  });
  after(async () => {
    for (const [k, v] of [
      ["TINKER_BASE_URL", saved.url],
      ["TINKER_API_KEY", saved.key],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await backend?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  async function rehearse(
    files: { train: string; test: string },
    ws: string,
  ): Promise<{ record: ExperimentRecord; lines: string[] }> {
    const lines: string[] = [];
    const r = await runExperiment({
      startLocalBackend: startOrReuseLocalBackend,
      specFile: SPEC,
      dir: ws,
      rehearse: true,
      trainFiles: [files.train],
      testFiles: [files.test],
      log: (l) => lines.push(l),
    });
    return { record: r.record!, lines };
  }

  function checkRecord(ws: string, record: ExperimentRecord, lines: string[], standIn: string): void {
    assert.equal(record.name, NAME);
    assert.equal(record.backend, "tinker");
    assert.equal(record.base_model, "Qwen/Qwen3.5-4B");
    assert.deepEqual(record.validation?.failed, [], JSON.stringify(record.validation?.checks));
    assert.deepEqual(record.validation?.passed, [
      "same-evaluator",
      "same-items",
      "hashes",
      "no-train-in-eval",
      "budget",
      "scores",
      "criterion",
    ]);
    assert.deepEqual(validateExperiment(join(ws, "runs", NAME)).failed, []);
    assert.deepEqual(Object.keys(record.scores), ["base", "selfgen", "gsm8k"]);
    assert.equal(record.evaluation.env, "gsm8k");
    assert.equal(record.evaluation.split, "test");
    // The spec's "accuracy" is GSM8K's declared `correct`: each item's score is its episode's verdict.
    const scores = JSON.parse(readFileSync(join(ws, "runs", NAME, "item-scores.json"), "utf8")) as {
      scores: Record<string, number[]>;
    };
    const ids = readFileSync(join(ws, "runs", NAME, "items.txt"), "utf8")
      .split("\n")
      .filter(Boolean);
    const verdicts = new Map(
      readFileSync(join(ws, record.scores.base.run, "episodes.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: string; metrics: { correct: number } })
        .map((e) => [e.id, e.metrics.correct]),
    );
    assert.deepEqual(
      scores.scores.base,
      ids.map((id) => verdicts.get(id)),
    );
    assert.equal(record.evaluation.n, REHEARSAL_SIZES.evalItems);
    // Free on the stand-in, and the whole experiment's cap is what the record compares with.
    assert.equal(record.spend.usd, 0);
    assert.equal(record.spend.budget_usd, 150);
    assert.equal(record.spend.estimate_usd, 0);
    // The selfgen arm trained on the generated tasks as GSM8K items, recorded with their folder and hash.
    const selfgen = record.arms.find((a) => a.name === "selfgen")!;
    assert.equal(selfgen.data.kind, "tasks");
    assert.ok(
      selfgen.generation_audit && selfgen.generation_audit.accepted >= 2,
      "the scripted generator's tasks passed the filters",
    );
    const m = JSON.parse(readFileSync(join(ws, "runs", `${NAME}-selfgen`, "manifest.json"), "utf8")) as Record<
      string,
      any
    >;
    assert.equal(m.environment.name, "gsm8k");
    assert.equal(m.backend, "tinker");
    assert.equal(m.tokenizer, standIn);
    assert.equal(m.train_split.tasks_dir, join("runs", `${NAME}-tasks-selfgen`));
    assert.equal(m.train_split.sha256, sha256File(join(ws, "runs", `${NAME}-tasks-selfgen`, "tasks.jsonl")));
    assert.deepEqual(
      selfgen.adaptation.batches.map((b) => b.rows),
      [[0, 1]],
    );
    const gsm = record.arms.find((a) => a.name === "gsm8k")!;
    assert.equal(gsm.data.source, join("data", "gsm8k", "train.jsonl"));
    // Every evaluation went through the Tinker client with the stand-in tokenizer, greedy.
    for (const arm of ["base", "selfgen", "gsm8k"]) {
      const em = JSON.parse(readFileSync(join(ws, record.scores[arm].run, "manifest.json"), "utf8")) as Record<
        string,
        any
      >;
      assert.equal(em.tokenizer, standIn, arm);
      assert.equal(em.environment.name, "gsm8k", arm);
    }
    assert.ok(
      lines.some((l) => l.includes("rehearsal against") && l.includes("stand-in")),
      "the rehearsal says what it is",
    );
  }

  it("runs every phase on a GSM8K-shaped twin to a record experiment validate passes", async () => {
    const ws = join(root, "twin");
    const { record, lines } = await rehearse(writeTwin(root), ws);
    checkRecord(ws, record, lines, (await offlineTokenizer("qwen3")).name);
    // The rehearsal's own spec is the record's spec.json: the real arms, evaluation and criterion at tiny sizes.
    const spec = readExperimentSpec(join(ws, "runs", NAME, "spec.json")).spec;
    assert.deepEqual(
      spec.arms.map((a) => a.grpo?.steps),
      [1, 1],
    );
    assert.deepEqual(spec.criterion, readExperimentSpec(SPEC).spec.criterion);
  });

  it("rehearses a sweep as a sweep: its arms under their names, the record's sweep section, the sweep check passed", async () => {
    const spec = JSON.parse(readFileSync(SPEC, "utf8")) as Record<string, unknown>;
    spec.name = "gsm8k-sweep";
    spec.sweep = { arm: "gsm8k", grid: { "grpo.lr": [4e-5, 1e-4] }, baseline: "gsm8k_lr4e-5", max_concurrent_arms: 2 };
    (spec.criterion as Record<string, unknown>).reference = "gsm8k_lr4e-5";
    const specFile = writeSpec(root, spec, "sweep.json");
    const files = writeTwin(root);
    const ws = join(root, "sweep");
    const r = await runExperiment({
      startLocalBackend: startOrReuseLocalBackend,
      specFile,
      dir: ws,
      rehearse: true,
      trainFiles: [files.train],
      testFiles: [files.test],
      log: () => {},
    });
    const record = r.record!;
    assert.deepEqual(record.validation?.failed, [], JSON.stringify(record.validation?.checks));
    assert.ok(record.validation?.passed.includes("sweep"), JSON.stringify(record.validation?.passed));
    assert.deepEqual(record.sweep?.arms.map((a) => a.name).sort(), ["gsm8k_lr1e-4", "gsm8k_lr4e-5"]);
    // The record's spec.json reads back as the same sweep at tiny sizes.
    const again = readExperimentSpec(join(ws, "runs", "gsm8k-sweep-rehearsal", "spec.json")).spec;
    assert.deepEqual(
      again.sweep?.points.map((p) => [p.name, p.values["grpo.lr"]]),
      [
        ["gsm8k_lr4e-5", 4e-5],
        ["gsm8k_lr1e-4", 1e-4],
      ],
    );
    assert.deepEqual(
      again.arms.map((a) => [a.name, a.grpo?.steps]),
      [
        ["selfgen", 1],
        ["gsm8k_lr4e-5", 1],
        ["gsm8k_lr1e-4", 1],
      ],
    );
    assert.deepEqual(validateExperiment(join(ws, "runs", "gsm8k-sweep-rehearsal")).failed, []);
  });

  it("runs on the real shared GSM8K records when they are here", async function () {
    const train = sharedDataPath("gsm8k", "train.jsonl");
    const test = sharedDataPath("gsm8k", "test.jsonl");
    if (!train || !test) {
      console.log("      skipped: ../shared/data/gsm8k is not present (real-data test)");
      return this.skip();
    }
    const ws = join(root, "shared");
    const { record, lines } = await rehearse({ train, test }, ws);
    checkRecord(ws, record, lines, (await offlineTokenizer("qwen3")).name);
  });

  it("rehearses an SFT-only arm on episodes of runs already paid for (sft-data --from-runs over the GSM8K arm's GRPO run)", async () => {
    const seed = JSON.parse(readFileSync(SPEC, "utf8")) as {
      arms: Record<string, unknown>[];
      criterion: Record<string, unknown>;
    };
    const gsm = seed.arms.find((a) => a.name === "gsm8k")!;
    const sftruns = {
      name: "sftruns",
      sft: {
        epochs: 1,
        batch: 2,
        lr: 1e-4,
        data: { kind: "runs", runs: ["gsm8k-sftruns-rehearsal-gsm8k"], min_reward: 0 },
      },
    };
    const file = writeSpec(
      root,
      {
        ...seed,
        name: "gsm8k-sftruns",
        arms: [gsm, sftruns],
        criterion: { ...seed.criterion, treatment: "sftruns", reference: "gsm8k" },
      },
      "sftruns.json",
    );
    const ws = join(root, "sftruns");
    const r = await runExperiment({
      startLocalBackend: startOrReuseLocalBackend,
      specFile: file,
      dir: ws,
      rehearse: true,
      trainFiles: [writeTwin(root).train],
      testFiles: [join(root, "twin_test.jsonl")],
      log: () => undefined,
    });
    const record = r.record!;
    assert.deepEqual(record.validation?.failed, [], JSON.stringify(record.validation?.checks));
    const arm = record.arms.find((a) => a.name === "sftruns")!;
    assert.equal(arm.data.kind, "sft");
    assert.equal(arm.sft_data?.source, join("runs", "gsm8k-sftruns-rehearsal-sftruns-sft-data", "sft.jsonl"));
    // One row per train question the GRPO arm sampled (best of 1), none of them an eval item.
    assert.equal(arm.sft_data?.rows, REHEARSAL_SIZES.grpo.steps * REHEARSAL_SIZES.grpo.questions);
    const lineage = readFileSync(join(ws, "runs", "gsm8k-sftruns-rehearsal-sftruns-sft-data", "manifest.json"), "utf8");
    assert.ok(lineage.includes("gsm8k-sftruns-rehearsal-gsm8k"), "the SFT data names the run it came from");
    assert.match(record.validation!.checks.find((c) => c.check === "no-train-in-eval")!.reason, / 2 SFT rows /);
  });

  it("leaves the real spec as it is: its dry run keeps the seed's sizes, the hub and the full test set", async () => {
    const lines: string[] = [];
    const r = await runExperiment({
      startLocalBackend: startOrReuseLocalBackend,
      specFile: SPEC,
      dir: join(root, "dry"),
      dryRun: true,
      log: (l) => lines.push(l),
    });
    assert.equal(r.dir, join(root, "dry"));
    assert.ok(r.estimate.usd > 100 && r.estimate.usd < 150, `≈ $131, got ${r.estimate.usd}`);
    assert.ok(lines.some((l) => l.includes("12000 model drafts")));
    assert.ok(lines.some((l) => l.includes("1319 items")));
    const rehearsed: string[] = [];
    const d = await runExperiment({
      startLocalBackend: startOrReuseLocalBackend,
      specFile: SPEC,
      dryRun: true,
      rehearse: true,
      log: (l) => rehearsed.push(l),
    });
    assert.equal(d.dir, resolve("experiments", NAME), "the default folder, under the current one");
    assert.ok(rehearsed.some((l) => l.includes(`${REHEARSAL_SIZES.drafts} scripted drafts`)));
  });

  it("refuses to start when the estimate is over the experiment's budget, and --rehearse on a local spec", async () => {
    const spec = JSON.parse(readFileSync(SPEC, "utf8")) as Record<string, unknown>;
    const file = writeSpec(root, { ...spec, budget_usd: 10 }, "over-budget.json");
    await assert.rejects(
      runExperiment({
        startLocalBackend: startOrReuseLocalBackend,
        specFile: file,
        dir: join(root, "over"),
        yes: true,
        log: () => undefined,
      }),
      (e: Error) =>
        e instanceof UserError &&
        /over the spec's budget_usd \(\$10\.00, the cap for all phases together\)/.test(e.message),
    );
    const offline = resolve(REPO, "examples", "offline-experiment.json");
    await assert.rejects(
      runExperiment({
        startLocalBackend: startOrReuseLocalBackend,
        specFile: offline,
        rehearse: true,
        dryRun: true,
        log: () => undefined,
      }),
      /--rehearse rehearses a Tinker spec/,
    );
  });
});
