/**
 * What the experiment panel shows, built from the record folder alone (no vscode; tested in plain
 * Node): the hypothesis, each arm's train-reward curve, the scores and paired comparisons with their
 * intervals, the recovery interval against the criterion's thresholds, the verdict and the
 * validation checklist. Every number carries the run folder it came from, so the panel links it.
 */
import { basename, join, resolve } from "node:path";
import { describeProgress, formatDuration, readProgress, type UnitProgress } from "../../base/runs/progress";
import { experimentState, type ExperimentState } from "./experiment-list";
import type { Interval } from "../../base/stats/bootstrap";
import { readStepRewards } from "../../steps/pipeline/reward-trend";
import { readJsonFile } from "../../base/runs/run-files";
import { runFile } from "../../base/runs/run-folder";
import type { Condition } from "../../steps/experiments/spec";
import {
  EXPERIMENT_FILES,
  type ArmRecord,
  type CheckResult,
  type ExperimentRecord,
} from "../../steps/experiments/record";
import { experimentMetric } from "../../steps/experiments/metric";
import { readValidationFile } from "../../steps/experiments/validation-file";
import { percent, signedNumber, verdictSentence } from "./verdict-sentence";
import { sweepView, type SweepView } from "./sweep-view-model";

export interface LinkedNumber {
  label: string;
  point: number;
  ci: Interval;
  /** Absolute run folders the number was computed from (an eval run; a delta names both). */
  runs: string[];
}

export interface ExperimentView {
  recordDir: string;
  name: string;
  title: string;
  hypothesis: string;
  metric: string;
  n: number;
  verdict: ExperimentRecord["verdict"]["verdict"];
  rule: string;
  conditions: { kind: "supported" | "refuted"; text: string; holds: boolean }[];
  /** The verdict in one plain sentence with its numbers (verdict-sentence.ts), from the record's numbers. */
  sentence: string;
  /** Each condition as a result-box row: what the spec states, what was measured (with its CI), whether it holds. */
  criteria: CriterionRow[];
  /** The metric as labelled ("F1"), with the evaluated split ("val F1"). */
  metricLabel: string;
  arms: {
    name: string;
    run: string;
    rewards: number[];
    role: "treatment" | "reference" | "arm";
    /** What it trained ("GRPO on generated tasks"). */
    training: string;
    /** Its own runs to open: training (dashboard), its SFT, its eval (traces). */
    links: { label: string; run: string; kind: "training" | "eval" }[];
  }[];
  scores: LinkedNumber[];
  deltas: LinkedNumber[];
  recovery: (LinkedNumber & { thresholds: number[]; resamples_used: number }) | null;
  checks: CheckResult[];
  evaluatorId: string;
  spendUsd: number;
  budgetUsd: number;
  /** A sweep's ranking and plots (sweep-view-model.ts); absent for an experiment without a sweep. */
  sweep?: SweepView;
}

export interface CriterionRow {
  kind: "supported" | "refuted";
  /** "treatment − base ≥ +0.020" */
  stated: string;
  /** "+0.003 [−0.047, +0.053]" (undefined numbers say why) */
  measured: string;
  holds: boolean;
}

/** What an arm trained, in words: its method and its data ("SFT then GRPO on the environment's train split"). */
export function armTraining(a: Pick<ArmRecord, "sft_run" | "run" | "data">): string {
  const data =
    a.data.kind === "tasks"
      ? "generated tasks"
      : a.data.kind === "env-train"
        ? "the environment's train split"
        : a.data.kind === "sft"
          ? "its SFT data"
          : `${a.data.kind} data`;
  if (a.data.kind === "sft") return `SFT on ${data}`;
  return `${a.sft_run && a.sft_run !== a.run ? "SFT then GRPO" : "GRPO"} on ${data}`;
}

/** What "base" is: the point every arm starts from. */
function baseWords(init: ExperimentRecord["init"]): string {
  return init.kind === "sft" ? "the SFT warm start" : init.kind === "base" ? "the base model" : "the initial state";
}

const STAT_WORDS: Record<string, (t: string, r: string) => string> = {
  arm_minus_base: (t) => `${t} − base`,
  reference_minus_base: (_t, r) => `${r} − base`,
  arm_minus_reference: (t, r) => `${t} − ${r}`,
  recovery: (t, r) => `recovery (${t} − base) / (${r} − base)`,
};

function criterionRows(rec: ExperimentRecord, metricLabel: string): CriterionRow[] {
  const { treatment, reference } = rec.criterion_arms;
  const n = rec.numbers;
  const estimateOf = (stat: string) =>
    stat === "arm_minus_base"
      ? n.minus_base[treatment]
      : stat === "reference_minus_base"
        ? n.minus_base[reference]
        : stat === "arm_minus_reference"
          ? n.arm_minus_reference
          : stat === "recovery"
            ? n.recovery
            : undefined;
  const rows = (kind: "supported" | "refuted", list: ExperimentRecord["verdict"]["supported"]) =>
    list.map((c): CriterionRow => {
      const cond = c.condition;
      if (cond.stat === "drift")
        return {
          kind,
          stated: `drift: ${metricLabel} falls below base while ${treatment}'s train reward keeps rising`,
          measured: `${treatment} − base ${signedNumber(n.minus_base[treatment]?.point ?? 0)}; reward slope ${c.observed === null ? "unknown" : signedNumber(c.observed, 4)}`,
          holds: c.holds,
        };
      const f = cond.stat === "recovery" ? percent : signedNumber;
      const bound = cond.bound && cond.bound !== "point" ? ` (${cond.bound === "ci_lo" ? "CI low" : "CI high"})` : "";
      const e = estimateOf(cond.stat);
      return {
        kind,
        stated: `${STAT_WORDS[cond.stat](treatment, reference)}${bound} ${cond.op === ">=" ? "≥" : cond.op === "<=" ? "≤" : cond.op} ${cond.value === undefined ? "?" : f(cond.value)}`,
        measured: e
          ? `${f(e.point)} [${f(e.ci.lo)}, ${f(e.ci.hi)}]`
          : "undefined (the reference did not move from base)",
        holds: c.holds,
      };
    });
  return [...rows("supported", rec.verdict.supported), ...rows("refuted", rec.verdict.refuted)];
}

export function experimentView(recordDir: string): ExperimentView {
  const file = join(recordDir, EXPERIMENT_FILES.record);
  const rec = readJsonFile<ExperimentRecord>(file);
  if (!rec)
    throw new Error(
      `${file}: no experiment record here yet (the experiment is still running, or failed before writing it)`,
    );
  const ws = resolve(recordDir, ...rec.record_dir.split(/[\\/]/).map(() => ".."));
  const abs = (p: string) => join(ws, p);
  const { treatment, reference } = rec.criterion_arms;
  const base = abs(rec.scores.base.run);
  const conditions = [
    ...rec.verdict.supported.map((c) => ({ kind: "supported" as const, text: c.text, holds: c.holds })),
    ...rec.verdict.refuted.map((c) => ({ kind: "refuted" as const, text: c.text, holds: c.holds })),
  ];
  const recoveryThresholds = [...rec.verdict.supported, ...rec.verdict.refuted]
    .map((c) => c.condition)
    .filter((c: Condition) => c.stat === "recovery" && typeof c.value === "number")
    .map((c) => c.value!);
  const label = experimentMetric(rec.evaluation.env, rec.metric)?.label ?? rec.metric;
  const metricLabel = `${rec.evaluation.split} ${label}`;
  const armOf = (name: string) => rec.arms.find((a) => a.name === name);
  const describe = (name: string) => {
    const a = armOf(name);
    return a ? `${name} (${armTraining(a)})` : name;
  };
  const trend = armOf(treatment)?.train_reward;
  const sentence = verdictSentence({
    verdict: rec.verdict.verdict,
    metric: metricLabel,
    base: baseWords(rec.init),
    treatment: describe(treatment),
    reference: describe(reference),
    treatmentName: treatment,
    referenceName: reference,
    numbers: rec.numbers,
    supported: rec.verdict.supported,
    refuted: rec.verdict.refuted,
    drift: {
      fell: (rec.numbers.minus_base[treatment]?.point ?? 0) < 0,
      rewardRose: trend?.slopeCi ? trend.slopeCi[0] > 0 : false,
    },
  });
  return {
    recordDir,
    name: rec.name,
    title: rec.title,
    hypothesis: rec.hypothesis,
    metric: rec.metric,
    n: rec.evaluation.n,
    verdict: rec.verdict.verdict,
    rule: rec.verdict.rule,
    conditions,
    sentence,
    criteria: criterionRows(rec, metricLabel),
    metricLabel,
    arms: rec.arms.map((a) => ({
      name: a.name,
      run: abs(a.run),
      rewards: readStepRewards(runFile(abs(a.run), "metrics")),
      role: a.name === treatment ? "treatment" : a.name === reference ? "reference" : "arm",
      training: armTraining(a),
      links: [
        ...(a.sft_run && a.sft_run !== a.run ? [{ label: "SFT", run: abs(a.sft_run), kind: "training" as const }] : []),
        { label: a.data.kind === "sft" ? "SFT" : "GRPO", run: abs(a.run), kind: "training" as const },
        ...(rec.scores[a.name]
          ? [{ label: "eval traces", run: abs(rec.scores[a.name].run), kind: "eval" as const }]
          : []),
      ],
    })),
    scores: Object.entries(rec.scores).map(([arm, s]) => ({ label: arm, point: s.mean, ci: s.ci, runs: [abs(s.run)] })),
    deltas: [
      ...Object.entries(rec.numbers.minus_base).map(([arm, d]) => ({
        label: `${arm} − base`,
        point: d.point,
        ci: d.ci,
        runs: [abs(rec.scores[arm].run), base],
      })),
      {
        label: `${treatment} − ${reference}`,
        point: rec.numbers.arm_minus_reference.point,
        ci: rec.numbers.arm_minus_reference.ci,
        runs: [abs(rec.scores[treatment].run), abs(rec.scores[reference].run)],
      },
    ],
    recovery: rec.numbers.recovery
      ? {
          label: `recovery (${treatment} vs ${reference})`,
          point: rec.numbers.recovery.point,
          ci: rec.numbers.recovery.ci,
          resamples_used: rec.numbers.recovery.resamples_used,
          thresholds: recoveryThresholds,
          runs: [abs(rec.scores[treatment].run), abs(rec.scores[reference].run), base],
        }
      : null,
    // The last `experiment validate` of this very record, else what the run's own validation recorded.
    checks: readValidationFile(recordDir)?.checks ?? rec.validation?.checks ?? [],
    evaluatorId: rec.evaluation.evaluator_id,
    spendUsd: rec.spend.usd,
    budgetUsd: rec.spend.budget_usd,
    ...(rec.sweep ? { sweep: sweepView(rec, abs) } : {}),
  };
}

/** What the panel shows while an experiment runs (or before it wrote its record): its progress, from its files. */
/** A phase's own steps as the panel shows them. */
export interface ExperimentProgressStep {
  label: string;
  unit: string;
  done: number;
  planned: number;
}

export interface ExperimentProgressView {
  recordDir: string;
  name: string;
  title: string;
  hypothesis: string;
  state: ExperimentState;
  /** The one progress line every view shows (describeProgress); undefined before the first write. */
  line?: string;
  phase?: { index: number; count: number; name: string };
  /** The running phase's own steps. */
  step?: { label: string; unit: string; done: number; planned: number };
  /**
   * While a sweep runs two or more phases at once: each with its own steps (`phase`/`step` then
   * name the one started last), and how many phases are finished.
   */
  running?: { index: number; name: string; step?: ExperimentProgressStep }[];
  phasesDone?: number;
  /** Time left for the whole experiment ("4m 10s"). */
  eta?: string;
  spendUsd: number;
  budgetUsd: number;
}

const stepOf = (u: UnitProgress): ExperimentProgressStep => ({
  label: u.label,
  unit: u.unit,
  done: u.done,
  planned: u.planned,
});

export function experimentProgressView(recordDir: string): ExperimentProgressView {
  const spec = readJsonFile<{ name?: unknown; title?: unknown; hypothesis?: unknown; budget_usd?: unknown }>(
    join(recordDir, EXPERIMENT_FILES.spec),
  );
  const p = readProgress(recordDir);
  const text = (x: unknown) => (typeof x === "string" ? x : "");
  return {
    recordDir,
    name: text(spec?.name) || basename(recordDir),
    title: text(spec?.title),
    hypothesis: text(spec?.hypothesis),
    state: experimentState(recordDir),
    ...(p ? { line: describeProgress(p) } : {}),
    ...(p?.stage ? { phase: p.stage } : {}),
    ...(p?.current ? { step: stepOf(p.current) } : {}),
    ...(p?.running && p.running.length > 1
      ? {
          running: p.running.map((r) => ({
            index: r.index,
            name: r.name,
            ...(r.current ? { step: stepOf(r.current) } : {}),
          })),
          phasesDone: p.done,
        }
      : {}),
    ...(p?.eta_s !== undefined && p.status === "running" ? { eta: formatDuration(p.eta_s) } : {}),
    spendUsd: p?.usd ?? 0,
    budgetUsd: p?.budget_usd ?? (typeof spec?.budget_usd === "number" ? spec.budget_usd : 0),
  };
}
