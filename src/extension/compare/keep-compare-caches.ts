/**
 * Runs an earlier build evaluated, or runs copied into the workspace, have no Compare cache (an
 * eval keeps one as it finishes): their first Compare at 10,000 questions drew 10^8 resamples
 * (about 1.6 s to its intervals). A while after the window opens, a worker thread gives each such
 * run the cache its eval would have kept, so that first Compare reads the cache instead. Once per
 * window; a trusted workspace only (it writes into the run folders).
 */
import * as vscode from "vscode";
import type { LabWorkspace } from "../workspace/lab-workspace";

/** Long enough for the window's start (activation, the views' first reads) to have settled. */
const DELAY_MS = 10_000;

/** Starts keepCompareCaches after DELAY_MS; disposing it before then cancels it. */
export function keepCompareCachesSoon(workspace: LabWorkspace): vscode.Disposable {
  const timer = setTimeout(() => void keepCompareCaches(workspace), DELAY_MS);
  return { dispose: () => clearTimeout(timer) };
}

/**
 * Gives the runs folder's finished eval runs the Compare caches they miss; resolves to their names.
 * `minBytes`: the smallest episodes.jsonl given one (default: what keepMissingCachesOffThread
 * takes; a test gives 0).
 */
export async function keepCompareCaches(workspace: LabWorkspace, minBytes?: number): Promise<string[]> {
  if (!vscode.workspace.isTrusted) return [];
  let runsDir: string;
  try {
    runsDir = workspace.runsDir();
  } catch {
    return []; // no folder or bad settings: the commands report them
  }
  const { keepMissingCachesOffThread } = await import("../../core/steps/ablate/compare-off-thread");
  try {
    return await keepMissingCachesOffThread(runsDir, minBytes);
  } catch (e) {
    console.error(`Agent Lab: keeping Compare caches in ${runsDir} failed: ${(e as Error).message}`);
    return [];
  }
}
