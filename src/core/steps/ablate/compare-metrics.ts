/**
 * What the Compare panel calls the runs' numbers and which of its columns mean anything: the
 * labels of the declarations the report recorded, and whether the report's environment has tools
 * (searches per question) from the light catalog (the webview bundles this, so no fs and no
 * environment code). Where one right/wrong metric holds both roles it is shown once, from the
 * binary statistics (McNemar) — the same rule `agent-lab ablate` prints its table by (render.ts).
 */
import { environmentInfo } from "../../envs/catalog";
import { oneMetric, type AblationReport } from "./report-types";

export interface CompareMetrics {
  /** Labels of the report's primary and binary metric. */
  primary: string;
  binary: string;
  /** One right/wrong metric in both roles: show it once, from the binary statistics. */
  one: boolean;
  /** Whether searches per question is a column. */
  hasTools: boolean;
}

/** The labels and columns of `report`'s metrics. */
export function compareMetrics(report: Pick<AblationReport, "environment" | "metrics">): CompareMetrics {
  return {
    primary: report.metrics.primary.label,
    binary: report.metrics.binary.label,
    one: oneMetric(report),
    // An environment this build does not know keeps every column: nothing says which are empty.
    hasTools: environmentInfo(report.environment.name)?.hasTools ?? true,
  };
}

/** Before any report arrived (the panel draws nothing until one does). */
export const NO_REPORT_METRICS: CompareMetrics = Object.freeze({ primary: "", binary: "", one: false, hasTools: true });
