/**
 * `runExperiment` end to end on a miniature of the offline spec (synthetic world, local backend,
 * every phase), stopped as one arm's GRPO starts and continued by the same command; then
 * `validateExperiment` on the record and on tampered copies of it: each tampering is caught by its
 * check with the exact reason, and the others still pass.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXPERIMENT_FILES, type ExperimentRecord } from "../../../../../src/core/steps/experiments/record";
import { runExperiment } from "../../../../../src/core/steps/experiments/run-experiment";
import { validateExperiment, type ValidationResult } from "../../../../../src/core/steps/experiments/validate";
import { experimentView } from "../../../../../src/core/views/experiments/view-model";
import { readProgress, type Progress } from "../../../../../src/core/base/runs/progress";
import { manifestEnvironment } from "../../../../../src/core/envs/manifest-environment";
import { UserError } from "../../../../../src/core/base/errors";
import { readRunRow } from "../../../../../src/extension/runs/runs-model";
import { miniatureSpec, writeSpec } from "./fixtures";
import { startLocalBackend } from "../../../../helpers/local-backend";

/** The miniature spec's phases, in the order the experiment declares and runs them. */
const MINIATURE_PHASES = [
  "world",
  "prepare",
  "index",
  "init:sft-data",
  "init:sft",
  "tasks:generated",
  "train:generated",
  "train:world",
  "eval:base",
  "eval:generated",
  "eval:world",
];

describe("experiments: run and validate (miniature offline experiment)", function () {
  this.timeout(300_000);
  let root: string;
  let ws: string;
  let record: ExperimentRecord;
  const recordDir = () => join(ws, "runs", "mini");
  /** The phase lines of the stopped run and of the run that continued it, and progress.json as each was said. */
  const said: { stopped: string[]; continued: string[] } = { stopped: [], continued: [] };
  const seen: Progress[] = [];
  let stoppedProgress: Progress | undefined;
  /** What progress.json said of the running phase's own step (label, unit, planned) as the steps logged. */
  const steps = new Set<string>();
  const PHASE_LINE = /^\[\d+\.\ds\] (\d+)\/(\d+) (\S+)(.*)$/;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "agent-lab-experiment-"));
    ws = join(root, "ws");
    const specFile = writeSpec(root, miniatureSpec());
    const ac = new AbortController();
    const phaseLog = (into: string[]) => (l: string) => {
      const m = PHASE_LINE.exec(l);
      if (!m) {
        const current = readProgress(recordDir())?.current;
        if (current) steps.add(`${current.label} ${current.unit} /${current.planned}`);
        return;
      }
      into.push(`${m[1]}/${m[2]} ${m[3]}${m[4]}`);
      // The engine writes progress.json before it says a phase's line.
      if (!m[4].includes("skipped")) seen.push(readProgress(recordDir())!);
      // The user stops the experiment as the second arm's GRPO starts.
      if (m[3] === "train:world" && !ac.signal.aborted) ac.abort(new UserError("interrupted"));
    };
    await assert.rejects(
      runExperiment({ startLocalBackend, specFile, dir: ws, signal: ac.signal, log: phaseLog(said.stopped) }),
      /interrupted/,
    );
    stoppedProgress = readProgress(recordDir());
    const r = await runExperiment({ startLocalBackend, specFile, dir: ws, log: phaseLog(said.continued) });
    record = r.record!;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("runs every arm as a normal run folder, evaluates base and arms on the same items, and reaches a verdict", () => {
    for (const run of [
      "mini-generated",
      "mini-world",
      "mini-eval-base",
      "mini-eval-generated",
      "mini-eval-world",
      "mini-tasks-generated",
      "mini-init",
    ]) {
      assert.ok(existsSync(join(ws, "runs", run, "manifest.json")), run);
    }
    assert.ok(["supported", "refuted", "inconclusive"].includes(record.verdict.verdict));
    assert.deepEqual(Object.keys(record.scores), ["base", "generated", "world"]);
    assert.equal(record.evaluation.n, 20);
    assert.equal(readFileSync(join(recordDir(), EXPERIMENT_FILES.items), "utf8").trim().split("\n").length, 20);
    assert.deepEqual(record.validation?.failed, []);
    assert.deepEqual(record.validation?.passed, [
      "same-evaluator",
      "same-items",
      "hashes",
      "no-train-in-eval",
      "budget",
      "scores",
      "criterion",
    ]);
    assert.equal(readProgress(recordDir())?.status, "done");
  });

  it("its runs on the synthetic world record the world's own environment, as the pipeline's do", () => {
    for (const run of ["mini-eval-base", "mini-eval-world", "mini-world", "mini-init-data"]) {
      const m = JSON.parse(readFileSync(join(ws, "runs", run, "manifest.json"), "utf8")) as Record<string, unknown>;
      const fp = m.fingerprint as Record<string, unknown> | undefined;
      assert.equal(
        manifestEnvironment(m).name,
        "hotpotqa-world",
        `${run}: ${JSON.stringify(m.environment ?? fp?.environment)}`,
      );
    }
    assert.equal(record.evaluation.env, "hotpotqa-world");
    assert.deepEqual(
      record.arms.map((a) => a.data.env),
      ["hotpotqa-world", "hotpotqa-world"],
    );
  });

  it("an interrupted experiment continues from the phase it was in: the finished ones skipped, that one resumed", () => {
    const phases = MINIATURE_PHASES;
    assert.deepEqual(
      said.stopped,
      phases.slice(0, 8).map((p, i) => `${i + 1}/11 ${p}`),
    );
    assert.equal(stoppedProgress?.status, "interrupted");
    assert.deepEqual(stoppedProgress?.stage, { index: 8, count: 11, name: "train:world" });
    assert.equal(stoppedProgress?.done, 7);
    assert.deepEqual(said.continued, [
      ...phases.slice(0, 7).map((p, i) => `${i + 1}/11 ${p}: done earlier, skipped`),
      // The stop came as GRPO started, after it opened its run: its step resumes that run.
      "8/11 train:world (resuming)",
      ...phases.slice(8).map((p, i) => `${i + 9}/11 ${p}`),
    ]);
    assert.deepEqual(Object.keys(record.phases), phases);
  });

  it("progress.json names each phase in order as it starts, with one ETA for the list once a pace is known", () => {
    assert.deepEqual(
      seen.map((p) => `${p.stage?.index}/${p.stage?.count} ${p.stage?.name}`),
      [...said.stopped, ...said.continued.filter((l) => !l.includes("skipped"))].map((l) =>
        l.replace(/ \(resuming\)$/, ""),
      ),
    );
    assert.ok(
      seen.every((p) => p.step === "experiment" && p.unit === "phase" && p.planned === 11),
      JSON.stringify(seen[0]),
    );
    // The first phase has nothing to go by; from the second on, the phases left count at the pace measured.
    assert.equal(seen[0].eta_s, undefined);
    assert.ok(
      seen.slice(1, 8).every((p) => typeof p.eta_s === "number"),
      JSON.stringify(seen.map((p) => p.eta_s)),
    );
    // Each phase's own step, nested under it: SFT's steps, GRPO's 2 steps, an eval's 20 items.
    for (const step of ["GRPO step /2", "eval episode /20"]) assert.ok(steps.has(step), [...steps].join(", "));
    assert.ok(
      [...steps].some((x) => x.startsWith("SFT step /")),
      [...steps].join(", "),
    );
    const last = readProgress(recordDir())!;
    assert.equal(last.status, "done");
    assert.equal(last.done, 11);
    assert.equal(last.eta_s, 0);
  });

  it("records provenance: adaptation batches with rows, the initialisation, the generation audit, phases", () => {
    const gen = record.arms.find((a) => a.name === "generated")!;
    const world = record.arms.find((a) => a.name === "world")!;
    assert.deepEqual(
      gen.adaptation.batches.map((b) => b.rows),
      [
        [0, 1],
        [2, 3],
      ],
    );
    assert.deepEqual(
      world.adaptation.batches.map((b) => b.rows),
      [
        [16, 17],
        [18, 19],
      ],
    );
    assert.equal(world.data.source, join("data", "train.jsonl"));
    for (const a of [gen, world]) {
      assert.match(a.initialisation.init_state ?? "", /^tinker:\/\/.*\/weights\/mini-init-e1-state$/);
      assert.equal(a.initialisation.optimiser.name, "adam");
      assert.equal(a.initialisation.optimiser.lr, 0.002);
    }
    assert.ok(gen.generation_audit && gen.generation_audit.accepted >= 4);
    assert.equal(gen.generation_audit!.solve_rate.mode, "policy");
    assert.equal(world.generation_audit, null);
    assert.deepEqual(Object.keys(record.phases), MINIATURE_PHASES);
    assert.equal(record.evaluation.evaluator.decoding.temperature, 0);
    assert.match(record.evaluation.evaluator.code_version, /^agent-lab@/);
  });

  it("the Runs tree lists the record as an experiment, and the panel's view links every number to its run", () => {
    const row = readRunRow(recordDir(), "mini");
    assert.equal(row.kind, "experiment");
    assert.equal(
      row.description,
      [
        "experiment",
        record.verdict.verdict,
        record.numbers.recovery ? `recovery ${record.numbers.recovery.point.toFixed(2)}` : "",
        "7/7 checks",
      ]
        .filter(Boolean)
        .join(" · "),
    );
    const v = experimentView(recordDir());
    assert.equal(v.hypothesis, record.hypothesis);
    assert.deepEqual(
      v.arms.map((a) => [a.name, a.role, a.rewards.length]),
      [
        ["generated", "treatment", 2],
        ["world", "reference", 2],
      ],
    );
    assert.deepEqual(
      v.scores.map((s) => s.runs),
      ["base", "generated", "world"].map((a) => [join(ws, "runs", `mini-eval-${a}`)]),
    );
    assert.deepEqual(
      v.deltas.map((d) => d.label),
      ["generated − base", "world − base", "generated − world"],
    );
    assert.equal(v.checks.length, 7);
    if (v.recovery) assert.deepEqual(v.recovery.thresholds, [0.5]);
  });

  it("a rerun skips every finished phase and gives the same numbers, also in a folder an earlier build recorded", async () => {
    // An earlier build prepared and indexed the world inside its one "world" phase: phases.json has no prepare or index.
    const phasesFile = join(recordDir(), EXPERIMENT_FILES.phases);
    const { prepare, index, ...older } = JSON.parse(readFileSync(phasesFile, "utf8")) as Record<string, unknown>;
    assert.ok(prepare && index);
    writeFileSync(phasesFile, JSON.stringify(older));
    const lines: string[] = [];
    const again = await runExperiment({
      startLocalBackend,
      specFile: join(recordDir(), EXPERIMENT_FILES.spec),
      dir: ws,
      log: (l) => lines.push(l),
    });
    assert.equal(lines.filter((l) => /done earlier, skipped/.test(l)).length, 11);
    assert.deepEqual(again.record!.numbers, record.numbers);
    assert.equal(again.record!.verdict.verdict, record.verdict.verdict);
  });

  /** Validates a tampered copy of the experiment. */
  function tampered(change: (dir: string, rec: ExperimentRecord) => void): ValidationResult {
    const copy = mkdtempSync(join(root, "tampered-"));
    cpSync(ws, copy, { recursive: true });
    const dir = join(copy, "runs", "mini");
    const file = join(dir, EXPERIMENT_FILES.record);
    const rec = JSON.parse(readFileSync(file, "utf8")) as ExperimentRecord;
    change(copy, rec);
    if (existsSync(file)) writeFileSync(file, JSON.stringify(rec, null, 2));
    return validateExperiment(dir);
  }
  const reasonOf = (v: ValidationResult, check: string) => v.checks.find((c) => c.check === check)!;

  it("catches an edited score with the exact reason", () => {
    const v = tampered((_, rec) => (rec.scores.generated.mean += 0.25));
    const c = reasonOf(v, "scores");
    assert.equal(c.status, "failed");
    assert.equal(
      c.reason,
      `scores.generated.mean is ${record.scores.generated.mean + 0.25} in experiment.json, ${record.scores.generated.mean} recomputed from runs/mini-eval-generated/episodes.jsonl`,
    );
    assert.deepEqual(v.failed, ["scores"]);
  });

  it("catches an edited recovery or verdict: the criterion recomputed from the recorded numbers disagrees", () => {
    const v = tampered((_, rec) => (rec.numbers.arm_minus_reference.ci.hi = 9));
    assert.equal(
      reasonOf(v, "criterion").reason,
      `numbers.arm_minus_reference.ci.hi is 9 in the record, ${record.numbers.arm_minus_reference.ci.hi} recomputed (recomputed from the eval episodes with 1000 resamples, seed 0)`,
    );
    const other = record.verdict.verdict === "supported" ? "refuted" : "supported";
    const w = tampered((_, rec) => (rec.verdict.verdict = other));
    assert.equal(
      reasonOf(w, "criterion").reason,
      `the criterion gives "${record.verdict.verdict}" from the recorded numbers, the record says "${other}"`,
    );
  });

  it("a removed item manifest fails: item IDs or a hashed manifest are required", () => {
    const v = tampered((dir) => rmSync(join(dir, "runs", "mini", EXPERIMENT_FILES.items)));
    assert.equal(reasonOf(v, "same-items").status, "failed");
    assert.equal(
      reasonOf(v, "same-items").reason,
      "item IDs or a hashed item manifest are required: items.txt is missing",
    );
  });

  it("a training question planted in the eval set is caught by its text, and the item lists disagree", () => {
    const v = tampered((dir) => {
      const trained = JSON.parse(
        readFileSync(join(dir, "runs", "mini-world", "episodes.jsonl"), "utf8").split("\n")[0],
      ) as { question_id: string; question: string };
      const evalFile = join(dir, "runs", "mini-eval-base", "episodes.jsonl");
      const first = JSON.parse(readFileSync(evalFile, "utf8").split("\n")[0]) as Record<string, unknown>;
      appendFileSync(evalFile, JSON.stringify({ ...first, id: "planted", question: trained.question }) + "\n");
    });
    const c = reasonOf(v, "no-train-in-eval");
    assert.equal(c.status, "failed");
    assert.match(
      c.reason,
      /^arm generated trained on ".*" \(GRPO step \d\), which is eval item planted$|^arm world trained on ".*" \(GRPO step 1\), which is eval item planted$/,
    );
    assert.match(
      reasonOf(v, "same-items").reason,
      /^runs\/mini-eval-base was evaluated on other items: 1 not in the manifest \(e\.g\. planted\), 0 missing$/,
    );
  });

  it("an arm scored with other decoding is another evaluator", () => {
    const v = tampered((dir) => {
      const f = join(dir, "runs", "mini-eval-world", "manifest.json");
      const m = JSON.parse(readFileSync(f, "utf8")) as { sampling: { temperature: number } };
      m.sampling.temperature = 0.7;
      writeFileSync(f, JSON.stringify(m));
    });
    assert.match(
      reasonOf(v, "same-evaluator").reason,
      /^world \(runs\/mini-eval-world\) was scored by evaluator [0-9a-f]{12}…, not the record's [0-9a-f]{12}… \(differs in decoding\)$/,
    );
  });

  it("a rewritten training order no longer rehashes; a hidden spend breaks the budget check", () => {
    const v = tampered((dir) => {
      const f = join(dir, "runs", "mini-world", "groups.jsonl");
      const rows = readFileSync(f, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { question_id: string });
      [rows[0].question_id, rows[1].question_id] = [rows[1].question_id, rows[0].question_id];
      writeFileSync(f, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    });
    assert.equal(
      reasonOf(v, "hashes").reason,
      "arm world's adaptation record does not rehash from runs/mini-world/groups.jsonl (step 1 differs)",
    );
    const b = tampered((dir) =>
      appendFileSync(
        join(dir, "runs", "mini-world", "ledger.jsonl"),
        JSON.stringify({
          time: "x",
          kind: "sample",
          tokens: { prefill: 0, sampled: 0, trained: 0 },
          usd: 1.5,
          cumulative_usd: 1.5,
        }) + "\n",
      ),
    );
    assert.equal(reasonOf(b, "budget").reason, "the runs' ledgers add up to $1.5000, the record says $0.0000");
  });

  it("a copy without its runs is unverifiable, not passed", () => {
    const v = tampered((dir) => rmSync(join(dir, "runs", "mini-eval-world"), { recursive: true }));
    assert.equal(reasonOf(v, "same-items").status, "unverifiable");
    assert.equal(
      reasonOf(v, "same-items").reason,
      "runs/mini-eval-world is not here (copy the experiment with its runs)",
    );
  });
});
