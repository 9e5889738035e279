/**
 * What an environment's episodes are scored on, as data: each environment's info.ts declares its
 * metrics (name, label, kind, test, format), records carry `metrics: { name: value }`, and every
 * consumer (summaries, ablate/Compare, the views, SFT selection) reads the declared roles — the
 * primary metric (what views sort and colour by, the paired bootstrap's subject) and the binary one
 * (fully right or not, what McNemar pairs) — instead of a metric by name. Here in base because the
 * record format and summaries (base/runs) need the type; harness/environment.ts re-exports it.
 */

export interface MetricDeclaration {
  /** The key in a record's and a summary's `metrics`. */
  name: string;
  /** How the views and reports label it ("EM", "accuracy"). */
  label: string;
  /** binary: 0 or 1 per episode; continuous: credit in [0, 1]. */
  kind: "binary" | "continuous";
  /** The one metric views sort and colour by (exactly one per environment). */
  primary?: true;
  /** The paired test ablate runs on it: McNemar's exact test for binary ones, the bootstrap otherwise. */
  test: "mcnemar" | "paired-bootstrap";
  /** How a mean of it is printed: a fraction with three decimals, or a percentage. */
  format: "0.000" | "0%";
}

/** The two roles consumers read; one declaration may hold both (a 0/1 grader verdict). */
export interface MetricRoles {
  primary: MetricDeclaration;
  binary: MetricDeclaration;
}

/**
 * The metrics of a record whose environment this build does not know: the two slots every v1 record
 * had (a record-format compatibility constant, see episode-v1.ts), so such runs still show numbers.
 */
export const UNKNOWN_ENV_METRICS: readonly MetricDeclaration[] = Object.freeze([
  { name: "em", label: "EM", kind: "binary", test: "mcnemar", format: "0.000" },
  { name: "f1", label: "F1", kind: "continuous", primary: true, test: "paired-bootstrap", format: "0.000" },
] as const satisfies readonly MetricDeclaration[]);

/**
 * The declared metrics of the environment called `environment` (envs/catalog.ts's
 * environmentMetrics; an unknown one's: UNKNOWN_ENV_METRICS): what readers of a run's files name a
 * format-1 episode record's or summary's slots by (episode-v1.ts). `environment` is the name the
 * run's files record, undefined when they record none: which environment that means is the
 * catalog's too. Passed in by the caller, because base does not know the environments.
 */
export type MetricsOf = (environment: string | undefined) => readonly MetricDeclaration[];

/** The primary and the binary declaration; refuses a declaration list that lacks either (checked at registry load). */
export function metricRoles(metrics: readonly MetricDeclaration[]): MetricRoles {
  const primary = metrics.find((m) => m.primary);
  const binary = metrics.find((m) => m.kind === "binary");
  if (!primary || !binary || metrics.filter((m) => m.primary).length !== 1) {
    throw new Error(
      `metric declarations need exactly one primary and at least one binary metric: ${metrics.map((m) => m.name).join(", ")}`,
    );
  }
  return { primary, binary };
}

/** True when the primary metric is the binary one (no partial credit): views show it once. */
export function hasOneMetric(roles: MetricRoles): boolean {
  return roles.primary.name === roles.binary.name;
}

/** A record's (or summary's) value of `metric`; 0 when it lacks it (a reader that needs it checks first). */
export function metricValue(
  holder: { metrics: Readonly<Record<string, number>> },
  metric: MetricDeclaration | string,
): number {
  return holder.metrics[typeof metric === "string" ? metric : metric.name] ?? 0;
}

/** A record's values of the two roles. */
export interface RoleValues {
  primary: number;
  binary: number;
}

/**
 * A record's primary and binary values; `metrics` are the run's environment's declarations (absent:
 * an unknown environment's). Where one declaration holds both roles, both are its value.
 */
export function roleValues(
  holder: { metrics: Readonly<Record<string, number>> },
  metrics: readonly MetricDeclaration[] = UNKNOWN_ENV_METRICS,
): RoleValues {
  const roles = metricRoles(metrics);
  return { primary: metricValue(holder, roles.primary), binary: metricValue(holder, roles.binary) };
}
