/**
 * The document `agent-lab ablate --json` writes and the compare panel renders. snake_case like
 * every other file in a run folder, so a notebook reads it as is. Bump ABLATION_FORMAT on any
 * change a reader would notice.
 */
import type { EnvironmentId } from "../../harness/environment";
import type { FieldDifference } from "../../base/runs/manifest";
import type { Interval } from "../../base/stats/bootstrap";

export type { Interval };

export const ABLATION_FORMAT = 1;

/** A mean over the shared questions and its percentile bootstrap interval. */
export interface Estimate {
  mean: number;
  ci: Interval;
}

export type Verdict = "better" | "worse" | "not distinguishable";
export type Flip = "improved" | "regressed" | "unchanged";

export interface FlipCounts {
  improved: number;
  regressed: number;
  unchanged: number;
}

export interface AblationRun {
  /** Short label (the folder's name). */
  name: string;
  /** The folder as given on the command line (or resolved under runsDir). */
  dir: string;
  /** Distinct episodes in the run. */
  episodes: number;
  /** Episodes left out because some other run lacks their question. */
  dropped: number;
  f1: Estimate;
  em: Estimate;
  searches_per_q: number;
  /** Share of shared questions that ended with an <answer>. */
  answered: number;
  usd_per_q: number;
  /** Spend over every episode of the run, shared or not (what the run cost). */
  usd_total: number;
  /** From manifest.json; null when the run has none. */
  split: { name: string; file: string; sha256: string } | null;
  /** Search settings from the manifest (null when closed-book or no manifest). */
  search: { closed_book: boolean; top_k: number; max_searches: number; documents?: number } | null;
}

/** One Δ (run − first run) with its paired interval, test and verdict. */
export interface DeltaResult {
  delta: number;
  /** Paired percentile bootstrap interval of the Δ. */
  ci: Interval;
  /** Raw two-sided p-value of the metric's test. */
  p: number;
  /** Holm-adjusted over every test in the table (2 per comparison). */
  p_holm: number;
  verdict: Verdict;
}

export interface AblationComparison {
  /** Index into `runs` (≥ 1; runs[0] is the baseline). */
  run: number;
  name: string;
  f1: DeltaResult & {
    test: "paired sign-flip permutation";
    /** SD of the per-question F1 differences. */
    sd: number;
    /** Minimum detectable Δ F1 at 80% power, α = 0.05 two-sided, normal approximation, this n. */
    mde: number;
  };
  em: DeltaResult & {
    test: "McNemar exact";
    /** Questions the baseline got right and this run wrong (b), and the reverse (c). */
    baseline_only: number;
    run_only: number;
  };
  flips: { f1: FlipCounts; em: FlipCounts };
  /** Fingerprint fields that differ from the baseline's and were not named by --expect. */
  unexpected_differences: FieldDifference[];
  /** Fingerprint fields that differ, as --expect said they would. */
  expected_differences: FieldDifference[];
}

/** Per question, for the compare panel's flip list. Arrays index `runs`; `flips` indexes `comparisons`. */
export interface QuestionRow {
  id: string;
  question: string;
  answers: string[];
  prediction: string[];
  f1: number[];
  em: number[];
  flips: { f1: Flip; em: Flip }[];
}

export interface AblationSettings {
  resamples: number;
  seed: number;
  /** 0.95. */
  level: number;
  /** 0.05: the family-wise error rate the Holm-adjusted tests control. */
  alpha: number;
  /** 0.8: the power the MDE is computed for. */
  power: number;
  interval: "percentile bootstrap";
  correction: "holm";
  expect: string[];
}

export interface AblationReport {
  format: typeof ABLATION_FORMAT;
  kind: "agent-lab.ablation";
  created: string;
  /** The runs' environment (ablate refuses to pair runs of different ones): it decides the metric labels. */
  environment: EnvironmentId;
  settings: AblationSettings;
  /** Questions every run answered (the paired sample). */
  shared: number;
  runs: AblationRun[];
  comparisons: AblationComparison[];
  /** The rule that turns a test and an interval into a verdict, in words. */
  verdict_rule: string;
  /** Comparability problems: fingerprint differences, missing manifests, dropped questions. */
  warnings: string[];
  questions: QuestionRow[];
}
