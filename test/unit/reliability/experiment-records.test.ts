/**
 * Reliability: an experiment record cannot be forged and still validate (issue 30, part 3). One
 * small offline experiment is run once; every case edits its own copy the way a forger would —
 * a score's interval, the verdict's words, the embedded ablation, the evaluator, the phases, the
 * spec with its hash, the arms, the episodes — and `experiment validate` fails the check that
 * catches it with the exact reason (exit code 1), or refuses the record in one line.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError, UserError } from "../../../src/core/base/errors";
import { sha256File } from "../../../src/core/base/runs/manifest";
import { decideVerdict } from "../../../src/core/steps/experiments/analysis";
import { EXPERIMENT_FILES, type ExperimentRecord } from "../../../src/core/steps/experiments/record";
import { runExperiment } from "../../../src/core/steps/experiments/run-experiment";
import { readExperimentSpec } from "../../../src/core/steps/experiments/spec";
import { validateExperiment, type ValidationResult } from "../../../src/core/steps/experiments/validate";
import { startLocalBackend } from "../../helpers/local-backend";
import { miniatureSpec, writeSpec } from "../core/steps/experiments/fixtures";
import { cliInProcess } from "./in-process-cli";
import { runCli } from "../cli/cli-process";

describe("reliability: experiment records cannot be forged", function () {
  this.timeout(600_000);
  let root: string;
  let fixture: string;
  let record: ExperimentRecord;
  const RECORD = join("runs", "mini");

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-forgery-"));
    fixture = join(root, "fixture");
    // The miniature offline experiment from the base model (no SFT warm-up): a generated-tasks arm and a world arm.
    const specFile = writeSpec(root, miniatureSpec({ init: { kind: "base" } }));
    record = (await runExperiment({ startLocalBackend, specFile, dir: fixture, log: () => undefined })).record!;
    assert.deepEqual(record.validation?.failed, []);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A fresh copy of the fixture workspace; returns its record folder. */
  function copy(): string {
    const ws = mkdtempSync(join(root, "forged-"));
    cpSync(fixture, ws, { recursive: true });
    return ws;
  }
  const recordFile = (ws: string) => join(ws, RECORD, EXPERIMENT_FILES.record);
  function forge(ws: string, change: (rec: ExperimentRecord) => void): void {
    const rec = JSON.parse(readFileSync(recordFile(ws), "utf8")) as ExperimentRecord;
    change(rec);
    writeFileSync(recordFile(ws), JSON.stringify(rec, null, 2));
  }
  const check = (v: ValidationResult, name: string) => v.checks.find((c) => c.check === name)!;

  const validateCli = (ws: string) => cliInProcess(["experiment", "validate", join(ws, RECORD)]);

  it("an edited score interval fails the scores check, and validate exits 1", async () => {
    const ws = copy();
    forge(ws, (rec) => (rec.scores.generated.ci.hi += 0.1));
    const v = validateExperiment(join(ws, RECORD));
    const { lo, hi } = record.scores.generated.ci;
    assert.equal(
      check(v, "scores").reason,
      `scores.generated.ci is [${lo}, ${hi + 0.1}] in experiment.json, numbers.scores.generated.ci [${lo}, ${hi}]`,
    );
    assert.deepEqual(v.failed, ["scores"]);
    const cli = await validateCli(ws);
    assert.equal(cli.code, 1);
    assert.match(cli.out, /^validation: 6 passed, 1 failed, 0 unverifiable$/m);
    // The process itself exits 1 (main.ts used to overwrite the command's exit code with 0).
    const spawned = await runCli(["experiment", "validate", join(ws, RECORD)]);
    assert.equal(spawned.code, 1, spawned.stderr);
    assert.match(spawned.stdout, /^ {2}✗ scores +failed: scores\.generated\.ci is /m);
    // The bundled CLI hashes the grading code as tsx runs it here: same-evaluator passes across builds.
    assert.match(spawned.stdout, /^validation: 6 passed, 1 failed, 0 unverifiable$/m);
  });

  it("an edited verdict's observed number or text fails the criterion check", () => {
    const ws = copy();
    const observed = record.verdict.supported[0].observed;
    forge(ws, (rec) => (rec.verdict.supported[0].observed = 0.9));
    assert.equal(
      check(validateExperiment(join(ws, RECORD)), "criterion").reason,
      `verdict.supported[0].observed is 0.9 in the record, ${observed} recomputed (the criterion applied to the recomputed numbers)`,
    );
    const text = copy();
    forge(text, (rec) => (rec.verdict.refuted[0].text = "nothing to see here"));
    assert.equal(
      check(validateExperiment(join(text, RECORD)), "criterion").reason,
      `verdict.refuted[0].text is "nothing to see here" in the record, ${JSON.stringify(record.verdict.refuted[0].text)} recomputed (the criterion applied to the recomputed numbers)`,
    );
  });

  it("an edited verdict of the embedded ablation fails the criterion check", () => {
    const ws = copy();
    const was = record.ablation.comparisons[0].primary.verdict;
    const forged = was === "better" ? "worse" : "better";
    forge(ws, (rec) => (rec.ablation.comparisons[0].primary.verdict = forged as typeof was));
    const v = validateExperiment(join(ws, RECORD));
    assert.equal(
      check(v, "criterion").reason,
      `ablation.comparisons[0].primary.verdict is "${forged}" in the record, "${was}" recomputed (ablate rerun on the eval runs)`,
    );
    assert.deepEqual(v.failed, ["criterion"]);
  });

  it("edited evaluator fields fail the same-evaluator check", () => {
    const ws = copy();
    forge(ws, (rec) => (rec.evaluation.evaluator.decoding.temperature = 0.7));
    const v = validateExperiment(join(ws, RECORD));
    assert.match(
      check(v, "same-evaluator").reason,
      /^evaluation\.evaluator hashes to [0-9a-f]{12}…, the record's evaluator_id says [0-9a-f]{12}…$/,
    );
    assert.deepEqual(v.failed, ["same-evaluator"]);
  });

  it("an arm's edited initialisation or train reward fails against its run's manifest and metrics", () => {
    const ws = copy();
    const lr = record.arms[1].initialisation.optimiser.lr;
    forge(ws, (rec) => (rec.arms[1].initialisation.optimiser.lr = 0.5));
    const v = validateExperiment(join(ws, RECORD));
    assert.equal(
      check(v, "hashes").reason,
      `arms[1].initialisation.optimiser.lr is 0.5 in the record, ${lr} recomputed from runs/mini-world/manifest.json`,
    );
    assert.deepEqual(v.failed, ["hashes"]);
    const reward = copy();
    const trend = record.arms[0].train_reward!;
    forge(reward, (rec) => (rec.arms[0].train_reward!.lastThird = 0.99));
    assert.equal(
      check(validateExperiment(join(reward, RECORD)), "criterion").reason,
      `arms[0].train_reward.lastThird is 0.99 in the record, ${trend.lastThird} recomputed from runs/mini-generated/metrics.jsonl`,
    );
  });

  it("a spent run removed from record.phases fails the budget check", () => {
    const ws = copy();
    appendFileSync(
      join(ws, "runs", "mini-world", "ledger.jsonl"),
      JSON.stringify({ time: "x", kind: "sample", tokens: { prefill: 0, sampled: 0, trained: 0 }, usd: 0.5 }) + "\n",
    );
    forge(ws, (rec) => (rec.phases["train:world"].runs = []));
    const v = validateExperiment(join(ws, RECORD));
    assert.equal(
      check(v, "budget").reason,
      "runs/mini-world is a run of this experiment in no phase of the record: its spend ($0.5000) is not counted",
    );
    assert.deepEqual(v.failed, ["budget"]);
  });

  it("a rewritten criterion in spec.json, rehashed, with the verdict it gives, fails the hashes check", () => {
    const ws = copy();
    const specFile = join(ws, RECORD, EXPERIMENT_FILES.spec);
    const spec = JSON.parse(readFileSync(specFile, "utf8")) as ReturnType<typeof miniatureSpec>;
    const flipped = record.verdict.verdict === "supported" ? "refuted" : "supported";
    // Always holds: supported when refuted cannot hold, refuted when it always does.
    const always = { stat: "arm_minus_base", op: ">=", value: -9 };
    const never = { stat: "arm_minus_base", op: "<", value: -9 };
    spec.criterion = {
      treatment: "generated",
      reference: "world",
      supported: [always],
      refuted: [flipped === "supported" ? never : always],
    };
    writeFileSync(specFile, JSON.stringify(spec, null, 2) + "\n");
    const verdict = decideVerdict(record.numbers, readExperimentSpec(specFile).spec, record.arms[0].train_reward);
    assert.equal(verdict.verdict, flipped);
    forge(ws, (rec) => {
      rec.spec_sha256 = sha256File(specFile);
      rec.verdict = verdict;
    });
    const v = validateExperiment(join(ws, RECORD));
    assert.equal(
      check(v, "hashes").reason,
      `spec.json hashes to ${sha256File(specFile).slice(0, 12)}…, but the experiment ran under spec ${record.spec_sha256.slice(0, 12)}… (its manifest.json)`,
    );
    assert.deepEqual(v.failed, ["hashes"]);
  });

  it("a rewritten criterion rehashed into the record and the experiment's manifest fails against the arm runs' spec hash", () => {
    const ws = copy();
    const specFile = join(ws, RECORD, EXPERIMENT_FILES.spec);
    const spec = JSON.parse(readFileSync(specFile, "utf8")) as ReturnType<typeof miniatureSpec>;
    const flipped = record.verdict.verdict === "supported" ? "refuted" : "supported";
    const always = { stat: "arm_minus_base", op: ">=", value: -9 };
    const never = { stat: "arm_minus_base", op: "<", value: -9 };
    spec.criterion = {
      treatment: "generated",
      reference: "world",
      supported: [always],
      refuted: [flipped === "supported" ? never : always],
    };
    writeFileSync(specFile, JSON.stringify(spec, null, 2) + "\n");
    const verdict = decideVerdict(record.numbers, readExperimentSpec(specFile).spec, record.arms[0].train_reward);
    assert.equal(verdict.verdict, flipped);
    forge(ws, (rec) => {
      rec.spec_sha256 = sha256File(specFile);
      rec.verdict = verdict;
    });
    // The experiment folder's own manifest rehashed too: only the arm runs still know the spec they ran under.
    const manifestFile = join(ws, RECORD, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { spec_sha256: string };
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, spec_sha256: sha256File(specFile) }, null, 2));
    const v = validateExperiment(join(ws, RECORD));
    assert.equal(
      check(v, "hashes").reason,
      `spec.json hashes to ${sha256File(specFile).slice(0, 12)}…, but runs/mini-generated ran under spec ${record.spec_sha256.slice(0, 12)}… (its experiment-spec.json)`,
    );
    assert.deepEqual(v.failed, ["hashes"]);
  });

  it("arm runs of an earlier build, without a spec hash, still validate and the hashes line says so", () => {
    const ws = copy();
    const armRuns = ["runs/mini-generated", "runs/mini-world", "runs/mini-eval-base"];
    for (const run of armRuns) {
      const file = join(ws, run, "experiment-spec.json");
      assert.equal((JSON.parse(readFileSync(file, "utf8")) as { spec_sha256: string }).spec_sha256, record.spec_sha256);
      rmSync(file);
    }
    const v = validateExperiment(join(ws, RECORD));
    assert.deepEqual(v.failed, []);
    assert.match(
      check(v, "hashes").reason,
      /^\d+ hashes recomputed from the files; 3 of 5 arm runs record no spec hash \(written by an earlier build\): runs\/mini-generated, runs\/mini-world, runs\/mini-eval-base$/,
    );
  });

  it("arms: [] with an eval item planted in the tasks is refused in one line, exit 1", async () => {
    const ws = copy();
    const evalQuestion = (
      JSON.parse(readFileSync(join(ws, "runs", "mini-eval-base", "episodes.jsonl"), "utf8").split("\n")[0]) as {
        question: string;
      }
    ).question;
    const tasks = join(ws, "runs", "mini-tasks-generated", "tasks.jsonl");
    const first = JSON.parse(readFileSync(tasks, "utf8").split("\n")[0]) as Record<string, unknown>;
    appendFileSync(tasks, JSON.stringify({ ...first, id: "planted", problem: evalQuestion }) + "\n");
    forge(ws, (rec) => (rec.arms = []));
    const message = `${recordFile(ws)}: arms are [], but spec.json names ["generated","world"]: a record holds every arm its spec names (rerun agent-lab experiment run)`;
    assert.throws(
      () => validateExperiment(join(ws, RECORD)),
      (e: unknown) => e instanceof FileFormatError && e.message === message,
    );
    const cli = await validateCli(ws);
    assert.equal(cli.code, 1);
    assert.equal(cli.err, `agent-lab experiment: ${message}`);
    // With its arms the planted item is caught by its text.
    const kept = copy();
    appendFileSync(
      join(kept, "runs", "mini-tasks-generated", "tasks.jsonl"),
      JSON.stringify({ ...first, id: "planted", problem: evalQuestion }) + "\n",
    );
    const v = validateExperiment(join(kept, RECORD));
    assert.match(
      check(v, "no-train-in-eval").reason,
      /^arm generated trained on ".*" \(runs\/mini-tasks-generated\/tasks\.jsonl:\d+\), which is eval item \S+$/,
    );
  });

  it("F1 edited in 10 episodes: validate fails the scores check, and experiment run refuses to rebuild the record", async () => {
    const ws = copy();
    const episodes = join(ws, "runs", "mini-eval-generated", "episodes.jsonl");
    const lines = readFileSync(episodes, "utf8").trim().split("\n");
    const first = JSON.parse(lines[0]) as { id: string; metrics: Record<string, number> };
    const was = first.metrics[record.metric];
    writeFileSync(
      episodes,
      lines
        .map((l, i) => {
          if (i >= 10) return l;
          const e = JSON.parse(l) as { metrics: Record<string, number> };
          e.metrics[record.metric] = 1;
          return JSON.stringify(e);
        })
        .join("\n") + "\n",
    );
    const edited = lines
      .slice(0, 10)
      .filter((l) => (JSON.parse(l) as typeof first).metrics[record.metric] !== 1).length;
    const reason = `runs/mini-eval-generated/episodes.jsonl: ${edited} episodes record a ${record.metric} its grader does not give (item ${first.id}: 1 recorded, ${was} regraded by ${record.evaluation.env}'s grader)`;
    const v = validateExperiment(join(ws, RECORD));
    assert.equal(check(v, "scores").reason, reason);
    assert.ok(v.failed.includes("scores") && v.failed.includes("hashes"), v.failed.join(", "));
    const before = readFileSync(recordFile(ws));
    await assert.rejects(
      runExperiment({ specFile: join(ws, RECORD, EXPERIMENT_FILES.spec), dir: ws, log: () => undefined }),
      (e: unknown) =>
        e instanceof UserError &&
        e.message ===
          `${reason}; the experiment's numbers come from its grader: restore the run, or rescore it (agent-lab score runs/mini-eval-generated) and rerun`,
    );
    assert.deepEqual(readFileSync(recordFile(ws)), before);
  });

  for (const [what, change, problem] of [
    ["[]", () => [], "the file is a list, not an object"],
    ["scores: null", (rec: Record<string, unknown>) => ({ ...rec, scores: null }), "scores is null, not an object"],
    [
      "a missing arm",
      (rec: ExperimentRecord) => {
        delete rec.scores.world;
        return rec;
      },
      `scores are given for ["base","generated"], but spec.json names ["base","generated","world"]: a record scores base and every arm its spec names (rerun agent-lab experiment run)`,
    ],
  ] as const) {
    it(`a malformed record (${what}) is a one-line refusal, not an internal error`, async () => {
      const ws = copy();
      const rec = JSON.parse(readFileSync(recordFile(ws), "utf8")) as ExperimentRecord & Record<string, unknown>;
      writeFileSync(recordFile(ws), JSON.stringify((change as (r: typeof rec) => unknown)(rec)));
      const message = problem.startsWith("scores are")
        ? `${recordFile(ws)}: ${problem}`
        : `${recordFile(ws)}: not an experiment record: ${problem} (rerun agent-lab experiment run)`;
      const cli = await validateCli(ws);
      assert.equal(cli.code, 1);
      assert.equal(cli.err, `agent-lab experiment: ${message}`);
    });
  }
});
