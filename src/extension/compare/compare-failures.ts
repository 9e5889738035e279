/**
 * The Compare panel's failure-label table: the runs' labels (core/views/failures) compared with
 * the CLI's resamples and seed, the environment's data read from the open workspace.
 */
import * as vscode from "vscode";
import { basename } from "node:path";
import { CONFIG_FILE, mergeConfig, readWorkspaceConfig } from "../../core/base/config";
import { readRun } from "../../core/base/runs/run-files";
import { workspaceDataDir } from "../../core/envs/data-dirs";
import { compareRunFailures, type FailureComparison } from "../../core/views/failures/compare-failures";
import { existsSync } from "node:fs";
import { join } from "node:path";

function dataDir(): string | undefined {
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!ws || !existsSync(join(ws, CONFIG_FILE))) return undefined;
  try {
    return workspaceDataDir(ws, mergeConfig(readWorkspaceConfig(ws)));
  } catch {
    return undefined; // a config that does not read: labels go without the environment's data
  }
}

/** `names`: the report's run names (so the table's columns match the ablation table's). */
export function compareFailuresOfDirs(
  runDirs: readonly string[],
  names: readonly string[],
): Promise<FailureComparison | undefined> {
  const runs = runDirs.map((dir, i) => {
    const { manifest, episodes } = readRun(dir);
    return { name: names[i] ?? basename(dir), manifest, episodes };
  });
  return compareRunFailures(runs, { dataDir: dataDir() });
}
