/**
 * The registered environments as everything outside their folders names them, built from each
 * folder's info.ts (pure data: name, version, summary, metrics, tools, SFT sources, report text), so
 * the extension can list the environments at activation and the step specs can offer them as
 * choices without loading an environment's code. registry.ts checks at load that it registers
 * exactly these.
 */
import type { EnvironmentInfo, SftSource } from "../harness/environment";
import { GSM8K_INFO, GSM8K_NAME } from "./gsm8k/info";
import { HOTPOTQA_INFO, HOTPOTQA_NAME } from "./hotpotqa/info";

export { GSM8K_NAME, HOTPOTQA_NAME, HOTPOTQA_INFO };
export type { EnvironmentInfo, SftSource };

export const ENVIRONMENT_INFO: readonly EnvironmentInfo[] = Object.freeze([HOTPOTQA_INFO, GSM8K_INFO]);

export const ENVIRONMENT_NAMES: readonly string[] = Object.freeze(ENVIRONMENT_INFO.map((e) => e.name));

/** Environments `agent-lab grade` has a reply grader for (their info says `gradesReplies`). */
export const GRADED_ENVIRONMENTS: readonly string[] = Object.freeze(ENVIRONMENT_INFO.filter((e) => e.gradesReplies).map((e) => e.name));

/** The environment called `name`; undefined when this build does not know it. */
export function environmentInfo(name: string): EnvironmentInfo | undefined {
  return ENVIRONMENT_INFO.find((e) => e.name === name);
}

/** An environment's metric labels; an unknown one's are the record fields' own names. */
export function metricLabels(name: string): { em: string; f1: string } {
  return environmentInfo(name)?.metrics ?? { em: "EM", f1: "F1" };
}

/** Whether `sft-data` takes `source` for the environment called `name`; an unknown one is given the benefit of the doubt (its own code decides). */
export function takesSftSource(name: string, source: SftSource): boolean {
  return environmentInfo(name)?.sftSources.includes(source) ?? true;
}

/** True when `em` and `f1` are one metric (no partial credit): views show it once. */
export function hasOneMetric(metrics: { em: string; f1: string }): boolean {
  return metrics.em === metrics.f1;
}

