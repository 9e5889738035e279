/**
 * The metric an experiment compares arms on, as its spec names it: one of the evaluated
 * environment's declared metrics by name, or by role ("primary", "binary"). Specs written before
 * metrics were declared named a metric by its label where the label was not a name (a grader's
 * verdict as "accuracy"): a declared label is accepted too (any case), so those specs and their
 * records mean what they meant.
 * The one place a spec's or a record's `metric` becomes a declaration.
 */
import { environmentMetrics } from "../../envs/catalog";
import { metricRoles, type MetricDeclaration } from "../../base/runs/metrics";

export const METRIC_ROLES = ["primary", "binary"] as const;

/** The declaration `metric` names for the environment called `env`; undefined when it names none of its. */
export function experimentMetric(env: string, metric: string): MetricDeclaration | undefined {
  const declared = environmentMetrics(env);
  if (metric === "primary" || metric === "binary") return metricRoles(declared)[metric];
  const lower = metric.toLowerCase();
  return (
    declared.find((m) => m.name === metric) ??
    // A label is a choice only where no name reads the same (a name's upper-case label is not a second spelling).
    (declared.some((m) => m.name.toLowerCase() === lower)
      ? undefined
      : declared.find((m) => m.label.toLowerCase() === lower))
  );
}

/** What a spec may write as `metric` for the environment called `env` (names, roles, then the labels that are not names). */
export function metricChoices(env: string): string[] {
  const declared = environmentMetrics(env);
  const names = declared.map((m) => m.name);
  const labels = declared.map((m) => m.label).filter((l) => !names.some((n) => n.toLowerCase() === l.toLowerCase()));
  return [...names, ...METRIC_ROLES, ...labels];
}
