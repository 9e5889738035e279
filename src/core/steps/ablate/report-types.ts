/**
 * The document `agent-lab ablate --json` writes and the compare panel renders. snake_case like
 * every other file in a run folder, so a notebook reads it as is. Bump ABLATION_FORMAT on any
 * change a reader would notice, and teach report-read.ts to normalise the older format.
 *
 * Every number is keyed by the role its metric plays (metrics.ts): `primary` (bootstrapped,
 * sign-flip tested, what views sort by) and `binary` (McNemar's subject); `metrics` records the
 * two declarations the report used, so a reader labels and formats them without a registry. One
 * declaration may hold both roles (a right/wrong environment): its numbers then appear twice.
 * Format 1 keyed the same numbers `f1` (primary) and `em` (binary): report-v1.ts.
 */
import type { EnvironmentId } from "../../harness/environment";
import type { FieldDifference } from "../../base/runs/manifest";
import type { MetricDeclaration, MetricRoles } from "../../base/runs/metrics";
import type { Interval } from "../../base/stats/bootstrap";

export type { Interval };

export const ABLATION_FORMAT = 2;

/** The two roles a report keys its numbers by. */
export type MetricRole = "primary" | "binary";

/** Per role, e.g. the runs' estimates or a question's scores. */
export type ByRole<T> = Record<MetricRole, T>;

/** A declaration as the report records it (what labels, formats and tests it; `primary` is the role's key). */
export type ReportMetric = Pick<MetricDeclaration, "name" | "label" | "kind" | "test" | "format">;

/** The report's `metrics`: both roles' declarations, without the role flag (the key says the role). */
export function reportMetrics(roles: MetricRoles): ByRole<ReportMetric> {
  const recorded = ({ name, label, kind, test, format }: MetricDeclaration): ReportMetric => ({
    name,
    label,
    kind,
    test,
    format,
  });
  return { primary: recorded(roles.primary), binary: recorded(roles.binary) };
}

/** True when one declaration holds both roles (no partial credit): reports show it once. */
export function oneMetric(report: Pick<AblationReport, "metrics">): boolean {
  return report.metrics.primary.name === report.metrics.binary.name;
}

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
  primary: Estimate;
  binary: Estimate;
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

/** The primary metric's Δ: sign-flip tested, with the power numbers. */
export type PrimaryDelta = DeltaResult & {
  test: "paired sign-flip permutation";
  /** SD of the per-question differences of the primary metric. */
  sd: number;
  /** Minimum detectable Δ at 80% power, α = 0.05 two-sided, normal approximation, this n. */
  mde: number;
};

/** The binary metric's Δ: McNemar's exact test on the discordant pairs. */
export type BinaryDelta = DeltaResult & {
  test: "McNemar exact";
  /** Questions the baseline got right and this run wrong (b), and the reverse (c). */
  baseline_only: number;
  run_only: number;
};

export interface AblationComparison {
  /** Index into `runs` (≥ 1; runs[0] is the baseline). */
  run: number;
  name: string;
  primary: PrimaryDelta;
  binary: BinaryDelta;
  flips: ByRole<FlipCounts>;
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
  primary: number[];
  binary: number[];
  flips: ByRole<Flip>[];
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
  /** The runs' environment (ablate refuses to pair runs of different ones). */
  environment: EnvironmentId;
  /** The declarations of the environment's two roles, as the report used them (labels, tests, formats). */
  metrics: ByRole<ReportMetric>;
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
