/**
 * File watchers on the workspace: run files (summary, episodes, manifest, metrics, progress), the
 * checkpoint registry, job records and the data folder. Patterns follow the runsDir/dataDir
 * settings, and work in an empty folder that a job (the pipeline) lays out as it goes. The
 * registry is also polled (folder-watch.ts): it is the only thing that refreshes the Checkpoints
 * view, so a file system that drops events must not leave it stale.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { REGISTRY_FILE } from "../core/base/checkpoints/registry";
import { RUN_FILES } from "../core/base/runs/run-folder";
import { EXPERIMENT_FILES } from "../core/steps/experiments/record";
import { VALIDATION_FILE } from "../core/steps/experiments/validation-file";
import { JOBS_DIR } from "./jobs/job-store";
import type { LabWorkspace } from "./workspace/lab-workspace";
import { watchRunFiles } from "./webview/folder-watch";

export interface WatchHandlers {
  runs: () => void;
  checkpoints: () => void;
  jobs: () => void;
  data: () => void;
  /** An experiment started, finished or was validated anywhere in the folder (experiments/<name>/runs/… by default). */
  experiments: () => void;
}

/** Files whose change means a run's row changed (metrics.jsonl: a training run's last step). */
const WATCHED = [
  RUN_FILES.summary,
  RUN_FILES.episodes,
  RUN_FILES.manifest,
  RUN_FILES.metrics,
  RUN_FILES.sft,
  RUN_FILES.progress,
];

/**
 * `jobMoved`: fires when a job's progress changes. A stage that just finished may have registered
 * a checkpoint, so the registry is looked at then too: its row shows while the job still runs even
 * where file events come late and the next poll would come after the job ended.
 */
export function watchWorkspace(
  workspace: LabWorkspace,
  on: WatchHandlers,
  jobMoved: vscode.Event<void>,
): vscode.Disposable[] {
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
  const rel = (p: string) =>
    path.relative(folder.uri.fsPath, path.resolve(folder.uri.fsPath, p)).split(path.sep).join("/") || ".";
  const watch = (glob: string, handler: () => void): vscode.Disposable[] => {
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, glob));
    return [w, w.onDidCreate(handler), w.onDidChange(handler), w.onDidDelete(handler)];
  };
  const registryPoll = watchRunFiles(path.resolve(folder.uri.fsPath, runsRel), [REGISTRY_FILE], on.checkpoints);
  return [
    ...watch(`${rel(runsRel)}/*/{${WATCHED.join(",")}}`, on.runs),
    ...watch(`${rel(runsRel)}/*`, on.runs),
    ...watch(`${rel(runsRel)}/${REGISTRY_FILE}`, on.checkpoints),
    { dispose: () => registryPoll.dispose() },
    jobMoved(() => registryPoll.check()),
    ...watch(`${JOBS_DIR.split(path.sep).join("/")}/*.json`, on.jobs),
    ...watch(`${rel(dataRel)}/{val.jsonl,bm25}`, on.data),
    ...watch(`**/*/{${EXPERIMENT_FILES.record},${VALIDATION_FILE},${RUN_FILES.manifest}}`, on.experiments),
  ];
}
