/**
 * The one place where the shell calls features other engineers are building: the webview panels
 * (`./panels/index.ts`: openTrace, openCompare, openDashboard) and the prompt loop
 * (`./prompt-loop.ts`). Both have landed. The rerun entry returns false unless it is given a prompt
 * file (the code lens): from the palette or the Runs view the shell's own flow picks the eval to rerun.
 */
import type * as vscode from "vscode";
import type { Lab } from "./commands/commands";
import * as panels from "./panels";
import * as promptLoop from "./prompt-loop";

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
export async function editSystemPromptFeature(lab: Lab): Promise<boolean> {
  await promptLoop.editSystemPrompt(lab);
  return true;
}

/** Rerun Eval With Current Prompt; returns false when the prompt loop has not landed. */
export async function rerunEvalWithPromptFeature(lab: Lab, promptFile?: string): Promise<boolean> {
  // Palette, Runs view, or a run name: the shell asks which eval to rerun (commands.ts).
  if (!promptFile || !promptLoop.isPromptFileArg(lab, promptFile)) return false;
  await promptLoop.rerunEvalWithPrompt(lab, promptFile);
  return true;
}
