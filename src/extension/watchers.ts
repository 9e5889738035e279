/**
 * File watchers on the workspace: run files (summary, episodes, manifest, metrics), the checkpoint
 * registry, job records and the data folder. Patterns follow the runsDir/dataDir settings.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { LabWorkspace } from "./lab-workspace";

export interface WatchHandlers {
  runs: () => void;
  checkpoints: () => void;
  jobs: () => void;
  data: () => void;
}

export function watchWorkspace(workspace: LabWorkspace, on: WatchHandlers): vscode.Disposable[] {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return [];
  let runsRel = "runs";
  let dataRel = "data";
  try {
    const config = workspace.config();
    runsRel = config.runsDir;
    dataRel = config.dataDir;
  } catch {
    // bad settings: watch the defaults; the commands report the problem
  }
  const rel = (p: string) => path.relative(folder.uri.fsPath, path.resolve(folder.uri.fsPath, p)).split(path.sep).join("/") || ".";
  const watch = (glob: string, handler: () => void): vscode.Disposable[] => {
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, glob));
    return [w, w.onDidCreate(handler), w.onDidChange(handler), w.onDidDelete(handler)];
  };
  return [
    ...watch(`${rel(runsRel)}/*/{summary.json,episodes.jsonl,manifest.json,metrics.jsonl,sft.jsonl}`, on.runs),
    ...watch(`${rel(runsRel)}/*`, on.runs),
    ...watch(`${rel(runsRel)}/checkpoints.jsonl`, on.checkpoints),
    ...watch(`${rel(runsRel)}/.jobs/*.json`, on.jobs),
    ...watch(`${rel(dataRel)}/{val.jsonl,bm25}`, on.data),
  ];
}
