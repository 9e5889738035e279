/**
 * What the experiment panel shows, built from the record folder alone (no vscode; tested in plain
 * Node): the hypothesis, each arm's train-reward curve, the scores and paired comparisons with their
 * intervals, the recovery interval against the criterion's thresholds, the verdict and the
 * validation checklist. Every number carries the run folder it came from, so the panel links it.
 */
import { join, resolve } from "node:path";
import type { Interval } from "../../base/stats/bootstrap";
import { readStepRewards } from "../../steps/pipeline/reward-trend";
import { readJsonFile } from "../../base/runs/run-files";
import { runFile } from "../../base/runs/run-folder";
import type { Condition } from "../../steps/experiments/spec";
import { EXPERIMENT_FILES, type CheckResult, type ExperimentRecord } from "../../steps/experiments/record";
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
  arms: { name: string; run: string; rewards: number[]; role: "treatment" | "reference" | "arm" }[];
  scores: LinkedNumber[];
  deltas: LinkedNumber[];
  recovery: (LinkedNumber & { thresholds: number[]; resamples_used: number }) | null;
  checks: CheckResult[];
  evaluatorId: string;
  spendUsd: number;
  /** A sweep's ranking and plots (sweep-view-model.ts); absent for an experiment without a sweep. */
  sweep?: SweepView;
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
    arms: rec.arms.map((a) => ({
      name: a.name,
      run: abs(a.run),
      rewards: readStepRewards(runFile(abs(a.run), "metrics")),
      role: a.name === treatment ? "treatment" : a.name === reference ? "reference" : "arm",
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
    checks: rec.validation?.checks ?? [],
    evaluatorId: rec.evaluation.evaluator_id,
    spendUsd: rec.spend.usd,
    ...(rec.sweep ? { sweep: sweepView(rec, abs) } : {}),
  };
}
