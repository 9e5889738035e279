/**
 * experiment.json: what an experiment found and everything a reviewer needs to trust it. Written by
 * `runExperiment`, checked by `validateExperiment`; the file names of an experiment folder.
 */
import { readFileSync } from "node:fs";
import { FileFormatError } from "../../base/errors";
import type { Interval } from "../../base/stats/bootstrap";
import type { AblationReport } from "../ablate/report-types";
import type { RewardTrend } from "../pipeline/reward-trend";
import type { GenTasksAudit } from "../tasks/gen-tasks";
import type { ExperimentNumbers, VerdictRecord } from "./analysis";
import type { EvaluatorIdentity } from "./evaluator";
import type { ExperimentSpec } from "./spec";
import type { SweepNumbers } from "./sweep-analysis";

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
  /** sha256 of the run's episodes.jsonl when the record was built (absent in records of earlier builds). */
  episodes_sha256?: string;
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
  /** A sweep's ranking against its baseline (absent in records of experiments without a sweep, and of earlier builds). */
  sweep?: SweepNumbers;
  created: string;
  /** Filled in last by the validator; the one field validate does not check. */
  validation?: { passed: string[]; failed: string[]; unverifiable: string[]; checks: CheckResult[] };
}

/**
 * Reads experiment.json, refusing one that is not an experiment record in one line naming the file
 * and the first field that is wrong (`[]`, `scores: null`, an arm without its run), so nothing
 * downstream meets a shape it cannot read.
 */
export function readExperimentRecord(file: string): ExperimentRecord {
  const text = readFileSync(file, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new FileFormatError(file, undefined, `not valid JSON (${(e as Error).message})`);
  }
  const sweep = (raw as { sweep?: unknown } | null)?.sweep;
  const problem = shapeProblem(raw) ?? (sweep === undefined ? undefined : shapeProblem(sweep, SWEEP_SHAPE, "sweep"));
  if (problem)
    throw new FileFormatError(file, undefined, `not an experiment record: ${problem} (rerun agent-lab experiment run)`);
  return raw as ExperimentRecord;
}

/** A leaf's type, an object's fields, or every entry of a list ("list") or of an object keyed by name ("map"). */
type Shape = "string" | "number" | "object" | "array" | { [field: string]: Shape } | ["list" | "map", Shape];

const INTERVAL: Shape = { lo: "number", hi: "number" };
const RECORD_SHAPE: { [field: string]: Shape } = {
  name: "string",
  record_dir: "string",
  metric: "string",
  spec_sha256: "string",
  evaluation: {
    env: "string",
    n: "number",
    evaluator: "object",
    evaluator_id: "string",
    items_file: "string",
    items_sha256: "string",
    scores_file: "string",
    scores_sha256: "string",
  },
  scores: ["map", { run: "string", evaluator_id: "string", mean: "number", ci: INTERVAL }],
  numbers: { scores: "object", minus_base: "object", arm_minus_reference: "object" },
  resamples: "number",
  seed: "number",
  verdict: { verdict: "string", supported: "array", refuted: "array" },
  arms: [
    "list",
    {
      name: "string",
      run: "string",
      data: { kind: "string", env: "string", source: "string", sha256: "string" },
      adaptation: { batches: "array", sha256: "string", source: "string" },
      initialisation: "object",
    },
  ],
  init: { runs: "array" },
  base_model: "string",
  phases: ["map", { runs: "array" }],
  spend: { usd: "number", budget_usd: "number" },
  ablation: "object",
};

/** A sweep's section, when a record has one (records of experiments without a sweep have none). */
const SWEEP_SHAPE: Shape = {
  version: "number",
  baseline: "string",
  params: "array",
  n: "number",
  arms: ["list", { name: "string", values: "object", rank: "number", mean: "number", ci: INTERVAL }],
  best_reason: "string",
};

/** The first field of `v` (by path) that does not have its shape, described; undefined when all do. */
function shapeProblem(v: unknown, shape: Shape = RECORD_SHAPE, path = ""): string | undefined {
  const what = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "a list" : typeof x);
  const at = path || "the file";
  if (typeof shape === "string") {
    const ok =
      shape === "array"
        ? Array.isArray(v)
        : shape === "object"
          ? typeof v === "object" && v !== null && !Array.isArray(v)
          : shape === "number"
            ? typeof v === "number" && Number.isFinite(v)
            : typeof v === shape;
    return ok ? undefined : `${at} is ${what(v)}, not ${shape === "array" ? "a list" : `a ${shape}`}`;
  }
  if (Array.isArray(shape)) {
    const list = shape[0] === "list";
    if (typeof v !== "object" || v === null || Array.isArray(v) !== list)
      return `${at} is ${what(v)}, not ${list ? "a list" : "an object"}`;
    for (const [k, x] of Object.entries(v)) {
      const p = shapeProblem(x, shape[1], Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return `${at} is ${what(v)}, not an object`;
  for (const [k, s] of Object.entries(shape)) {
    const p = shapeProblem((v as Record<string, unknown>)[k], s, path ? `${path}.${k}` : k);
    if (p) return p;
  }
  return undefined;
}
