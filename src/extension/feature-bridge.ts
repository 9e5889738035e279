/**
 * The one place where the shell calls features other engineers are building: the webview panels
 * (`./panels/index.ts`: openTrace, openCompare, openDashboard) and the prompt loop
 * (`./prompt-loop.ts`). Until a feature lands, its entry shows "coming soon" here, and nowhere else;
 * swapping a stub for the real call is a one-line change per function.
 */
import * as vscode from "vscode";

function comingSoon(what: string): void {
  void vscode.window.showInformationMessage(`Agent Lab: ${what} is coming soon.`);
}

/** The trace viewer on one run (an episode, or the run's first). */
export async function openTracePanel(_context: vscode.ExtensionContext, runDir: string, episodeId?: string): Promise<void> {
  comingSoon(`the trace viewer (${episodeId ? `episode ${episodeId} of ` : ""}${runDir})`);
}

/** The compare panel; the first run is the baseline. */
export async function openComparePanel(_context: vscode.ExtensionContext, runDirs: string[]): Promise<void> {
  comingSoon(`the compare panel (${runDirs.length} runs)`);
}

/** The training dashboard of a training run folder. */
export async function openDashboardPanel(_context: vscode.ExtensionContext, runDir: string): Promise<void> {
  comingSoon(`the training dashboard (${runDir})`);
}

/** Panels restore themselves after a reload, and the episodes.jsonl code lens. Called from activate(). */
export function registerPanelFeatures(_context: vscode.ExtensionContext): void {}

/** Edit System Prompt; returns false when the prompt loop has not landed (the shell then opens the file itself). */
export async function editSystemPromptFeature(_context: vscode.ExtensionContext): Promise<boolean> {
  return false;
}

/** Rerun Eval With Current Prompt; returns false when the prompt loop has not landed. */
export async function rerunEvalWithPromptFeature(_context: vscode.ExtensionContext, _promptFile?: string): Promise<boolean> {
  return false;
}
