/**
 * Episode records before metrics were declared (format 1: no `format` field) carried two fixed
 * top-level slots, `em` and `f1`. Every reader goes through checkEpisodeRecord, which calls
 * `normaliseEpisode` here first, so a v1 run opens and reads back with the same numbers as the
 * current format: `{…, "prediction", "em", "f1", "reward", …}` becomes `{format: 2, …, "prediction",
 * "metrics": {…}, "reward", …}` (the same key order, `metrics` where `em` was).
 *
 * Which metric each v1 slot held depends on the environment that wrote it; only the environments
 * that existed before format 2 wrote v1 records, so that is a closed, frozen table.
 *
 * summary.json had the same two slots until its own format 2 (summary.ts normaliseSummary reads it
 * through `replaceV1Slots` here); every environment wrote those, always the means of its binary and
 * primary metric, so a summary's slots are named by the run's environment's declarations instead.
 */
import { IMPLIED_ENVIRONMENT } from "./manifest-environment";
import type { MetricRoles } from "./metrics";

/** The record format this build writes (`format` in every episodes.jsonl line). */
export const EPISODE_FORMAT = 2;

/** A v1 slot's metric name, per environment that wrote v1 records; a slot not named is dropped. */
export interface V1Slots {
  em?: string;
  f1?: string;
}

// Record-format compatibility constants (allow-listed in the no-environment-names test): the implied
// environment stored its two metrics under their own names; the second environment stored its one
// grader verdict in both slots, which is its declared `correct` (its name is the key: a frozen fact).
const V1_SLOTS: Readonly<Record<string, V1Slots>> = Object.freeze({
  [IMPLIED_ENVIRONMENT.name]: { em: "em", f1: "f1" },
  gsm8k: { em: "correct" },
});
/** An environment this build does not know: the slots keep their names (base/runs/metrics.ts's UNKNOWN_ENV_METRICS). */
const UNKNOWN_SLOTS: V1Slots = { em: "em", f1: "f1" };

/** The top-level keys normaliseEpisode reads besides the current format's fields: the format, and a v1 record's slots. */
export const V1_RECORD_KEYS: readonly string[] = ["format", "em", "f1"] satisfies ("format" | keyof V1Slots)[];

/** Whether a parsed record is in format 1 (it names no format). */
export function isV1Record(row: Record<string, unknown>): boolean {
  return !("format" in row);
}

/**
 * The record in the current format. `envName` is the environment of the run that wrote it (its
 * manifest's); a current-format record is returned as it is.
 */
export function normaliseEpisode(row: Record<string, unknown>, envName: string): Record<string, unknown> {
  if (!isV1Record(row)) return row;
  // A v1 line without either slot (a head-only fixture) gets no metrics: a reader that needs them is refused by the check.
  return replaceV1Slots(row, V1_SLOTS[envName] ?? UNKNOWN_SLOTS, EPISODE_FORMAT);
}

/**
 * What a format-1 summary.json's two slots held, for every environment (each wrote them until
 * summaries gained a format): `em` the mean of its binary metric, `f1` the mean of its primary one
 * (for an environment whose two are one metric, the same number twice).
 */
export function summarySlots(roles: MetricRoles): V1Slots {
  return { em: roles.binary.name, f1: roles.primary.name };
}

/**
 * A v1 row in format `format`: `{…, "em", "f1", …}` becomes `{format, …, "metrics": {…}, …}` (the
 * same key order, `metrics` where the first slot was), each slot's value under the metric `slots`
 * names for it; a slot named nothing is dropped. Episode records and summaries share this layout.
 */
export function replaceV1Slots(row: Record<string, unknown>, slots: V1Slots, format: number): Record<string, unknown> {
  const metrics: Record<string, unknown> = {};
  if (slots.em && "em" in row) metrics[slots.em] = row.em;
  if (slots.f1 && "f1" in row) metrics[slots.f1] = row.f1;
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
