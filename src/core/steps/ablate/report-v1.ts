/**
 * Report-format compatibility: format-1 ablation reports (written before role keys) keyed every
 * number by the record slots of the first environment, `f1` for the primary metric's and `em` for
 * the binary one's, and recorded no declarations (the registry named them). This module alone knows
 * that shape; report-read.ts calls it, and the numbers come back unchanged under the role keys.
 */
import { IMPLIED_ENVIRONMENT } from "../../envs/manifest-environment";
import { environmentRoles } from "../../envs/catalog";
import {
  reportMetrics,
  type AblationComparison,
  type AblationReport,
  type AblationRun,
  type BinaryDelta,
  type ByRole,
  type PrimaryDelta,
  type QuestionRow,
} from "./report-types";

/** A format-1 report's fields that differ from format 2's (the rest is the same). */
type V1Slots<T> = { f1: T; em: T };
type V1Run = Omit<AblationRun, "primary" | "binary"> & V1Slots<AblationRun["primary"]>;
type V1Comparison = Omit<AblationComparison, "primary" | "binary" | "flips"> & {
  f1: PrimaryDelta;
  em: BinaryDelta;
  flips: V1Slots<AblationComparison["flips"]["primary"]>;
};
type V1Question = Omit<QuestionRow, "primary" | "binary" | "flips"> & {
  f1: number[];
  em: number[];
  flips: V1Slots<QuestionRow["flips"][number]["primary"]>[];
};
export type AblationReportV1 = Omit<
  AblationReport,
  "format" | "environment" | "metrics" | "runs" | "comparisons" | "questions"
> & {
  format: 1;
  /** Absent in reports written before reports named their environment: the implied one's. */
  environment?: AblationReport["environment"];
  runs: V1Run[];
  comparisons: V1Comparison[];
  questions: V1Question[];
};

const roles = <T>(v: V1Slots<T>): ByRole<T> => ({ primary: v.f1, binary: v.em });

/** A format-1 report in format 2's shape, with the same numbers; its declarations from the light catalog. */
export function fromFormat1(v1: AblationReportV1, format: AblationReport["format"]): AblationReport {
  const { runs, comparisons, questions, environment, ...rest } = v1;
  const env = environment ?? IMPLIED_ENVIRONMENT;
  return {
    ...rest,
    format,
    environment: { name: env.name, version: env.version },
    metrics: reportMetrics(environmentRoles(env.name)),
    runs: runs.map(({ f1, em, ...run }) => ({ ...run, primary: f1, binary: em })),
    comparisons: comparisons.map(({ f1, em, flips, ...c }) => ({ ...c, primary: f1, binary: em, flips: roles(flips) })),
    questions: questions.map(({ f1, em, flips, ...q }) => ({ ...q, primary: f1, binary: em, flips: flips.map(roles) })),
  };
}
