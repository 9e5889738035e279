/**
 * The Compare panel's failure-label table: the runs' labels (core/views/failures) compared with
 * the CLI's resamples and seed, the environment's data read from the open workspace.
 */
import * as vscode from "vscode";
import { CONFIG_FILE, readWorkspaceConfig } from "../../core/base/config";
import { mergeConfig } from "../../core/envs/config";
import { workspaceDataDir } from "../../core/envs/data-dirs";
import type { FailuresRequest } from "../../core/views/failures/failures-off-thread";

export { failuresWorker } from "../../core/views/failures/failures-off-thread";
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

/** The request for the failure labels (`names`: the report's run names, so the table's columns match the ablation table's), with the workspace's data folder. */
export function failuresRequest(runDirs: readonly string[], names: readonly string[]): FailuresRequest {
  return { runDirs: [...runDirs], names: [...names], dataDir: dataDir() };
}
