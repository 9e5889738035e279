/**
 * Episode records before metrics were declared (format 1: no `format` field) carried two fixed
 * top-level slots, `em` and `f1`. Every reader goes through checkEpisodeRecord, which calls
 * `normaliseEpisode` here first, so a v1 run opens and reads back with the same numbers as the
 * current format: `{…, "prediction", "em", "f1", "reward", …}` becomes `{format: 2, …, "prediction",
 * "metrics": {…}, "reward", …}` (the same key order, `metrics` where `em` was).
 *
 * What each slot held follows from the declarations of the environment that wrote it (v1Slots):
 * `em` its binary metric, `f1` its primary one. Every environment that wrote v1 records stored them
 * so (one with partial credit: its two metrics under their own names; one whose binary metric is its
 * primary: its one verdict in both slots), and an environment this build does not know reads with
 * UNKNOWN_ENV_METRICS (base/runs/metrics.ts), whose names are the slots'. So a reader is given the
 * run's declared metrics, never an environment's name.
 *
 * summary.json had the same two slots until its own format 2 (summary.ts normaliseSummary reads it
 * through `replaceV1Slots` here): the means of the same two metrics, named the same way.
 */
import { metricRoles, type MetricDeclaration, type MetricRoles } from "./metrics";

/** The record format this build writes (`format` in every episodes.jsonl line). */
export const EPISODE_FORMAT = 2;

/** A v1 slot's metric name; a slot not named is dropped. */
export interface V1Slots {
  em?: string;
  f1?: string;
}

/** The top-level keys normaliseEpisode reads besides the current format's fields: the format, and a v1 record's slots. */
export const V1_RECORD_KEYS: readonly string[] = ["format", "em", "f1"] satisfies ("format" | keyof V1Slots)[];

/** Whether a parsed record is in format 1 (it names no format). */
export function isV1Record(row: Record<string, unknown>): boolean {
  return !("format" in row);
}

/**
 * The record in the current format. `metrics` are the declarations of the environment of the run
 * that wrote it (its manifest's; see base/runs/metrics.ts MetricsOf); a current-format record is
 * returned as it is.
 */
export function normaliseEpisode(
  row: Record<string, unknown>,
  metrics: readonly MetricDeclaration[],
): Record<string, unknown> {
  if (!isV1Record(row)) return row;
  // A v1 line without either slot (a head-only fixture) gets no metrics: a reader that needs them is refused by the check.
  return replaceV1Slots(row, v1Slots(metricRoles(metrics)), EPISODE_FORMAT);
}

/**
 * What the two v1 slots held, in episode records and summaries alike: `em` the binary metric (in a
 * summary, its mean), `f1` the primary one. Where one metric holds both roles, both slots name it.
 */
export function v1Slots(roles: MetricRoles): V1Slots {
  return { em: roles.binary.name, f1: roles.primary.name };
}

/**
 * A v1 row in format `format`: `{…, "em", "f1", …}` becomes `{format, …, "metrics": {…}, …}` (the
 * same key order, `metrics` where the first slot was), each slot's value under the metric `slots`
 * names for it; a slot named nothing is dropped. Where both slots name one metric, `em`'s value is
 * taken (such writers stored one value twice; `em` is the slot those records were always read by).
 * Episode records and summaries share this layout.
 */
export function replaceV1Slots(row: Record<string, unknown>, slots: V1Slots, format: number): Record<string, unknown> {
  const metrics: Record<string, unknown> = {};
  if (slots.em && "em" in row) metrics[slots.em] = row.em;
  if (slots.f1 && "f1" in row && !(slots.f1 in metrics)) metrics[slots.f1] = row.f1;
  const out: Record<string, unknown> = { format };
  let placed = false;
  for (const [k, v] of Object.entries(row)) {
    if (k === "em" || k === "f1") {
      if (!placed) out.metrics = metrics;
      placed = true;
    } else out[k] = v;
  }
  return out;
}
