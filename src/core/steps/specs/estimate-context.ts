/**
 * The facts an estimate needs, read from the workspace the same way for `--dry-run` and for the
 * extension's confirmation (so both print the same number): how many questions the split holds,
 * how many examples the SFT data has, and the $/episode earlier paid runs of the model measured.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AgentLabConfig } from "../../base/config";
import { environmentDataDir } from "../../envs/data-dirs";
import { environmentMetrics } from "../../envs/catalog";
import { listRuns, readSummary } from "../../base/runs/run-files";
import { RUN_FILES } from "../../base/runs/run-folder";
import type { RunSummary } from "../../base/runs/summary";
import { measuredEpisodeUsd, type Estimate } from "./estimate";
import type { FlagSpecs, FlagValues } from "./flags";
import type { EstimateContext, StepSpec } from "./spec";

/** Non-blank lines of a file; 0 when it is absent. */
export function countRecords(file: string): number {
  if (!existsSync(file) || !statSync(file).isFile()) return 0;
  let n = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) if (line.trim()) n++;
  return n;
}

/** Every run under the workspace's runsDir with its summary (for the measured $/episode). */
function runSummaries(workspaceDir: string, config: AgentLabConfig): { name: string; summary?: RunSummary }[] {
  const runsDir = resolve(workspaceDir, config.runsDir);
  return listRuns(runsDir).map((name) => {
    try {
      return { name, summary: readSummary(join(runsDir, name), environmentMetrics) };
    } catch {
      return { name }; // a torn summary of a run being written: it just does not count
    }
  });
}

export function estimateContext(
  values: Record<string, unknown>,
  config: AgentLabConfig,
  workspaceDir: string,
  positionals: readonly string[] = [],
): EstimateContext {
  // The environment's own data folder (<dataDir>/<name> unless its info says dataInDataDir) holds the split being counted.
  const dataDir = environmentDataDir(
    typeof values.env === "string" ? values.env : config.env,
    resolve(workspaceDir, config.dataDir),
  );
  const split = typeof values.split === "string" ? values.split : "val";
  const data = typeof values.data === "string" ? resolve(workspaceDir, values.data) : undefined;
  const sftFile = data && existsSync(data) && statSync(data).isDirectory() ? join(data, RUN_FILES.sft) : data;
  const model = typeof values.model === "string" ? values.model : config.model;
  return {
    config,
    splitQuestions: countRecords(join(dataDir, `${split}.jsonl`)),
    ...(sftFile ? { sftExamples: countRecords(sftFile) } : {}),
    ...(typeof values.candidates === "string"
      ? { candidateCount: countRecords(resolve(workspaceDir, values.candidates)) }
      : {}),
    measuredEpisode: measuredEpisodeUsd(runSummaries(workspaceDir, config), model),
    positionals,
    workspaceDir,
  };
}

/** The step's estimate for these values, or undefined when they spend nothing. */
export function estimateStep<F extends FlagSpecs>(
  spec: StepSpec<F>,
  values: FlagValues<F>,
  config: AgentLabConfig,
  workspaceDir: string,
  positionals: readonly string[] = [],
): Estimate | undefined {
  if (!spec.spends?.(values, positionals, workspaceDir) || !spec.estimate) return undefined;
  return spec.estimate(values, estimateContext(values as Record<string, unknown>, config, workspaceDir, positionals));
}
