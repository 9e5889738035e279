/**
 * Per-arm SFT in an experiment (offline, local backend): an arm that does SFT from the scripted
 * teacher then GRPO from its checkpoint, and an SFT-only arm on that arm's SFT data file (SFT from
 * runs already scored is rehearsed on GSM8K in experiment-rehearse.test.ts). The record names each arm's
 * SFT run and data (hashed), validate passes, and an eval item planted in an arm's SFT data is
 * caught by no-train-in-eval with the file:line of the row.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExperimentRecord } from "../../../../../src/core/steps/experiments/record";
import { runExperiment } from "../../../../../src/core/steps/experiments/run-experiment";
import { validateExperiment } from "../../../../../src/core/steps/experiments/validate";
import { UserError } from "../../../../../src/core/base/errors";
import { miniatureSpec, writeSpec } from "./fixtures";
import { startLocalBackend } from "../../../../helpers/local-backend";

describe("experiments: per-arm SFT (teacher then GRPO; SFT-only from a file)", function () {
  this.timeout(300_000);
  let root: string;
  let ws: string;
  let record: ExperimentRecord;
  let specFile: string;
  const grpo = { steps: 2, questions: 2, group: 2, lr: 0.002, temperature: 1, seed: 0 };
  const sft = { epochs: 1, batch: 4, lr: 0.01 };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-exp-sft-"));
    ws = join(root, "ws");
    const spec = miniatureSpec({
      name: "sfts",
      init: { kind: "base" },
      arms: [
        {
          name: "teach",
          data: { kind: "env-train", env: "hotpotqa", offset: 40 },
          sft: { ...sft, epochs: 3, data: { kind: "teacher", questions: 12 } },
          grpo,
        },
        { name: "world", data: { kind: "env-train", env: "hotpotqa", offset: 16 }, grpo },
        // SFT-only, on the teacher arm's data file (an SFT arm "from runs" is rehearsed on GSM8K: the
        // HotpotQA environment keeps only episodes that searched, and these tiny arms do not).
        { name: "fromfile", sft: { ...sft, data: { kind: "file", path: "runs/sfts-teach-sft-data/sft.jsonl" } } },
      ],
      criterion: {
        ...(miniatureSpec().criterion as Record<string, unknown>),
        treatment: "fromfile",
        reference: "world",
      },
      // The cap of the whole experiment (the local backend is free, so it only matters in the resume test below).
      budget_usd: 1,
    });
    specFile = writeSpec(root, spec);
    record = (await runExperiment({ startLocalBackend, specFile, dir: ws, log: () => undefined })).record!;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("trains every arm its way, records each arm's SFT run and data, and passes validation", () => {
    assert.deepEqual(record.validation?.failed, [], JSON.stringify(record.validation?.checks));
    assert.equal(record.validation?.passed.length, 7);
    const [teach, world, fromfile] = record.arms;
    assert.equal(world.sft_run, null);
    assert.equal(world.sft_data, null);
    assert.equal(fromfile.run, join("runs", "sfts-fromfile-sft"));
    assert.equal(fromfile.sft_run, fromfile.run);
    assert.equal(fromfile.data.kind, "sft");
    assert.equal(fromfile.train_reward, null);
    assert.equal(fromfile.sft_data?.source, join("runs", "sfts-teach-sft-data", "sft.jsonl"));
    assert.equal(fromfile.sft_data?.rows, teach.sft_data?.rows);
    assert.ok((teach.sft_data?.rows ?? 0) > 0);
    // The SFT-only arm trained from the base model (init "base"), on exactly that file.
    const m = JSON.parse(readFileSync(join(ws, "runs", "sfts-fromfile-sft", "manifest.json"), "utf8")) as Record<
      string,
      unknown
    >;
    assert.ok(
      JSON.stringify(m).includes(fromfile.sft_data!.sha256),
      "the SFT run's manifest hashes the data it trained on",
    );
    assert.equal(teach.run, join("runs", "sfts-teach"));
    assert.equal(teach.sft_run, join("runs", "sfts-teach-sft"));
    // teach's GRPO started from its own SFT checkpoint, not the base model.
    assert.match(teach.initialisation.init_state ?? "", /sfts-teach-sft-e3-state$/);
    assert.deepEqual(
      teach.adaptation.batches.map((b) => b.rows),
      [
        [40, 41],
        [42, 43],
      ],
    );
    assert.equal(fromfile.adaptation.batches.length, 0);
    for (const phase of ["sft-data:fromfile", "sft:fromfile", "sft-data:teach", "sft:teach", "train:teach"])
      assert.ok(record.phases[phase], phase);
    assert.ok(!record.phases["train:fromfile"]);
    const c = record.validation!.checks.find((x) => x.check === "no-train-in-eval")!;
    assert.match(c.reason, /GRPO episodes, [1-9]\d* SFT rows and 0 task items of 3 arms/);
  });

  it("catches an eval item planted in an arm's SFT data (no-train-in-eval) and its changed hash", () => {
    const dir = join(root, "copy");
    cpSync(ws, dir, { recursive: true });
    const evalRow = JSON.parse(
      readFileSync(join(dir, "runs", "sfts-eval-base", "episodes.jsonl"), "utf8").split("\n")[0],
    ) as { id: string; question: string };
    const sftFile = join(dir, "runs", "sfts-teach-sft-data", "sft.jsonl");
    assert.ok(existsSync(sftFile));
    const rows = readFileSync(sftFile, "utf8").trim().split("\n");
    appendFileSync(
      sftFile,
      JSON.stringify({ ...JSON.parse(rows[0]), id: "x-planted", question: evalRow.question }) + "\n",
    );
    const v = validateExperiment(join(dir, "runs", "sfts"));
    const c = v.checks.find((x) => x.check === "no-train-in-eval")!;
    assert.equal(c.status, "failed");
    assert.equal(
      c.reason,
      `arm teach trained on "${evalRow.question.slice(0, 80)}" (SFT data ${join("runs", "sfts-teach-sft-data", "sft.jsonl")}:${rows.length + 1}), which is eval item ${evalRow.id}`,
    );
    assert.match(
      v.checks.find((x) => x.check === "hashes")!.reason,
      /^arm teach's SFT data runs\/sfts-teach-sft-data\/sft\.jsonl hashes to /,
    );
  });

  it("stops between phases once the spend so far plus the next phase's estimate would pass budget_usd, keeping what is done", async () => {
    const dir = join(root, "over");
    cpSync(ws, dir, { recursive: true });
    const phasesFile = join(dir, "runs", "sfts", "phases.json");
    const phases = JSON.parse(readFileSync(phasesFile, "utf8")) as Record<string, { usd: number }>;
    // As if two finished phases had cost $1.25 (over the $1 cap) and the last evaluation had not run yet.
    phases["sft:teach"].usd = 0.75;
    phases["train:teach"].usd = 0.5;
    delete phases["eval:fromfile"];
    writeFileSync(phasesFile, JSON.stringify(phases));
    await assert.rejects(
      runExperiment({ startLocalBackend, specFile, dir, log: () => undefined }),
      (e: Error) =>
        e instanceof UserError &&
        e.message ===
          `budget_usd $1.00 (the whole experiment): $1.2500 spent so far and eval:fromfile is estimated at up to $0.0000; stopped before it (finished phases are kept in ${join("runs", "sfts", "phases.json")})`,
    );
    const after = JSON.parse(readFileSync(phasesFile, "utf8")) as Record<string, { usd: number }>;
    assert.equal(after["eval:fromfile"], undefined, "the phase over the cap did not run");
    assert.deepEqual(Object.keys(after), Object.keys(phases), "the finished phases are kept");
    assert.ok(
      !existsSync(join(dir, "runs", "sfts", "experiment.json")) ||
        JSON.parse(readFileSync(join(dir, "runs", "sfts", "experiment.json"), "utf8")).created === record.created,
      "no new record was written",
    );
  });
});
