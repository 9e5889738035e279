/**
 * experiment.json: what an experiment found and everything a reviewer needs to trust it. Written by
 * `runExperiment`, checked by `validateExperiment`; the file names of an experiment folder.
 */
import type { Interval } from "../../base/stats/bootstrap";
import type { AblationReport } from "../ablate/report-types";
import type { RewardTrend } from "../pipeline/reward-trend";
import type { GenTasksAudit } from "../tasks/gen-tasks";
import type { ExperimentNumbers, VerdictRecord } from "./analysis";
import type { EvaluatorIdentity } from "./evaluator";
import type { ExperimentSpec } from "./spec";

export const EXPERIMENT_RECORD_FORMAT = "agent-lab.experiment-record/1";
export const EXPERIMENT_FILES = Object.freeze({
  record: "experiment.json",
  /** The spec as run (its hash is in the record). */
  spec: "spec.json",
  /** The evaluation's item ids, sorted, one per line. */
  items: "items.txt",
  /** Per-item scores of every arm, in items.txt order (what the numbers are recomputed from). */
  scores: "item-scores.json",
  phases: "phases.json",
});

export type CheckStatus = "passed" | "failed" | "unverifiable";
export interface CheckResult {
  check: string;
  status: CheckStatus;
  reason: string;
}

export interface ScoredRun {
  /** Run folder, relative to the experiment's workspace. */
  run: string;
  evaluator_id: string;
  mean: number;
  ci: Interval;
}

export interface AdaptationBatch {
  step: number;
  /** Row numbers (0-based) of the arm's training list, in the order the step consumed them. */
  rows: number[];
  ids_sha256: string;
}

export interface ArmRecord {
  name: string;
  run: string;
  /** The run of the arm's own SFT phase, when it has one (`run` is then its GRPO run, or this one for an SFT-only arm). */
  sft_run: string | null;
  /** GRPO's training list (kind env-train | tasks), or for an SFT-only arm its SFT data (kind sft). */
  data: { kind: string; env: string; source: string; sha256: string; rows: number };
  /** The SFT data the arm's SFT phase trained on (its sft.jsonl), when it has one. */
  sft_data: { source: string; sha256: string; rows: number } | null;
  initialisation: {
    base_model: string;
    init_state: string | null;
    lora_rank: number | null;
    optimiser: Record<string, unknown>;
  };
  adaptation: { batches: AdaptationBatch[]; sha256: string; source: string };
  generation_audit:
    | (Pick<
        GenTasksAudit,
        "accepted" | "rejected" | "yield" | "counts" | "solve_rate" | "hashes" | "generation" | "eval_overlap"
      > & { run: string; audit_sha256: string; tasks_sha256: string })
    | null;
  train_reward: RewardTrend | null;
}

export interface PhaseRecord {
  seconds: number;
  usd: number;
  runs: string[];
  finished: string;
}

export interface ExperimentRecord {
  format: string;
  name: string;
  title: string;
  hypothesis: string;
  spec_sha256: string;
  /** This record's folder relative to the experiment's workspace (every other path is relative to the workspace). */
  record_dir: string;
  metric: string;
  evaluation: {
    env: string;
    split: string;
    n: number;
    evaluator: EvaluatorIdentity;
    evaluator_id: string;
    items_file: string;
    items_sha256: string;
    scores_file: string;
    scores_sha256: string;
  };
  /** base first. */
  scores: Record<string, ScoredRun>;
  numbers: ExperimentNumbers;
  resamples: number;
  seed: number;
  verdict: VerdictRecord;
  /** The criterion's treatment and reference arms (recovery is treatment vs reference). */
  criterion_arms: { treatment: string; reference: string };
  arms: ArmRecord[];
  init: { kind: string; state: string | null; sampler: string | null; runs: string[] };
  phases: Record<string, PhaseRecord>;
  /** What the experiment spent (the phases' ledgers), its cap over all phases, and the estimate it started with. */
  spend: { usd: number; budget_usd: number; estimate_usd?: number };
  ablation: AblationReport;
  backend: ExperimentSpec["backend"];
  base_model: string;
  created: string;
  /** Filled in last by the validator; the one field validate does not check. */
  validation?: { passed: string[]; failed: string[]; unverifiable: string[]; checks: CheckResult[] };
}
