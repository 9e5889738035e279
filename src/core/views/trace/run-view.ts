/**
 * What the views show for a run's environment, from its declaration (envs/<name>/info.ts) and
 * nothing else: the labels of its primary and binary metrics, and which trace controls it offers
 * (searches, gold-in-results). The trace viewer's header, list and filters, `show`'s text and the
 * dashboard read this, so an environment without a search tool never shows searches or "gold
 * answer in search results", and a metric is named as its environment names it.
 */
import { environmentInfo } from "../../envs/catalog";
import { hasOneMetric, metricRoles, UNKNOWN_ENV_METRICS } from "../../base/runs/metrics";
import type { TraceControl } from "../../harness/environment";

export interface RunViewSpec {
  /** The environment's name; undefined when the run names one this build does not know. */
  environment?: string;
  /** The metric views sort and colour by, and its label ("accuracy"). */
  primary: { name: string; label: string };
  /** The fully-right-or-not metric (what the outcome and McNemar read). */
  binary: { name: string; label: string };
  /** The two are one metric (no partial credit): shown once. */
  oneMetric: boolean;
  /** Search counts and the searches filter mean something (the model has a search tool). */
  searches: boolean;
  /** Whether a gold answer came back in the search results is worth checking. */
  goldInResults: boolean;
}

/** Every control: what a run of an environment this build does not know is shown (as before environments). */
const ALL_CONTROLS: readonly TraceControl[] = ["searches", "gold-in-results"];

/** The view of a run of environment `name` (undefined or unknown: the record format's own slots, every control). */
export function runViewSpec(name: string | undefined): RunViewSpec {
  const info = name === undefined ? undefined : environmentInfo(name);
  const roles = metricRoles(info?.metrics ?? UNKNOWN_ENV_METRICS);
  const controls = info ? (info.traceControls ?? []) : ALL_CONTROLS;
  return {
    ...(info ? { environment: info.name } : {}),
    primary: { name: roles.primary.name, label: roles.primary.label },
    binary: { name: roles.binary.name, label: roles.binary.label },
    oneMetric: hasOneMetric(roles),
    searches: controls.includes("searches"),
    goldInResults: controls.includes("gold-in-results"),
  };
}

/** The view of a run whose environment is not known (a host that sent none): every control, the record's slots. */
export const UNKNOWN_ENV_VIEW: RunViewSpec = Object.freeze(runViewSpec(undefined));
