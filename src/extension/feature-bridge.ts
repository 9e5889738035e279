/**
 * The one place where the shell calls features other engineers are building: the webview panels
 * (`./panels/index.ts`: openTrace, openCompare, openDashboard) and the prompt loop
 * (`./prompt-loop.ts`). The panels have landed; the prompt loop has not: until it does, its two
 * entries return false and the shell's own fallback (commands.ts) does the job. Swapping a stub for
 * the real call is a one-line change per function.
 */
import type * as vscode from "vscode";
import type { Lab } from "./commands/commands";
import * as panels from "./panels";

/** The trace viewer on one run (an episode, or the run's first). */
export async function openTracePanel(context: vscode.ExtensionContext, runDir: string, episodeId?: string): Promise<void> {
  await panels.openTrace(context, runDir, episodeId);
}

/** The compare panel; the first run is the baseline. */
export async function openComparePanel(context: vscode.ExtensionContext, runDirs: string[]): Promise<void> {
  await panels.openCompare(context, runDirs);
}

/** The training dashboard of a training run folder. */
export async function openDashboardPanel(context: vscode.ExtensionContext, runDir: string): Promise<void> {
  await panels.openDashboard(context, runDir);
}

/** Panels restore themselves after a reload, and the episodes.jsonl code lens. Called from activate(). */
export function registerPanelFeatures(context: vscode.ExtensionContext): void {
  panels.registerPanelSerializers(context);
  panels.registerEpisodeCodeLens(context);
}

/**
 * Edit System Prompt; returns false when the prompt loop has not landed (the shell then does it).
 * `lab` gives the prompt loop the shell's parts: `lab.jobs.start({title, command, runDir})` runs a
 * CLI job (progress, output channel, notifications), `lab.workspace.config()` the settings.
 */
export async function editSystemPromptFeature(_lab: Lab): Promise<boolean> {
  return false;
}

/** Rerun Eval With Current Prompt; returns false when the prompt loop has not landed. */
export async function rerunEvalWithPromptFeature(_lab: Lab, _promptFile?: string): Promise<boolean> {
  return false;
}
