/**
 * What the Compare panel calls the runs' numbers and which of its columns mean anything, from the
 * report's environment via the light catalog (the webview bundles this, so no fs and no
 * environment code): HotpotQA's F1 and EM with searches; GSM8K's accuracy once (its `em` and `f1`
 * are the same 0/1 score, so the EM statistics — McNemar — are the ones shown) and no searches.
 * The same rule `agent-lab ablate` prints its table by (render.ts).
 */
import { environmentInfo, hasOneMetric, HOTPOTQA_INFO, metricLabels } from "../../envs/catalog";
import type { EnvironmentId } from "../../harness/environment";

export interface CompareMetrics {
  /** Labels of the record's `em` and `f1` here. */
  em: string;
  f1: string;
  /** One right/wrong metric: show it once, from the EM statistics. */
  one: boolean;
  /** Whether searches per question is a column. */
  hasTools: boolean;
}

/** The metrics of runs of `env`; a report written before reports named it is HotpotQA's. */
export function compareMetrics(env: EnvironmentId | undefined): CompareMetrics {
  const name = (env ?? HOTPOTQA_INFO).name;
  const labels = metricLabels(name);
  // An environment this build does not know keeps every column: nothing says which are empty.
  return { ...labels, one: hasOneMetric(labels), hasTools: environmentInfo(name)?.hasTools ?? true };
}
