/**
 * The webview panels' public face for the extension shell: open a trace, a comparison or a training
 * dashboard, restore them after a reload, and the code lens on episodes.jsonl lines. The shell calls
 * these; everything else in this folder is private to the panels.
 *
 * Webviews never read files: each panel reads the run folder through src/core and posts typed
 * messages (protocol.ts) to its webview.
 */
import type * as vscode from "vscode";
import type { CompareOrigin } from "../../core/steps/ablate/compare-setup";
import { PanelHost, PANEL_VIEW_TYPES } from "./panel-host";
import { warmTokenizer } from "../trace/trace-run";
import type { PlaygroundState, StartPlayground } from "../playground/playground-panel";

export { PANEL_VIEW_TYPES } from "./panel-host";

/** Opens (or reveals) the trace viewer on a run, showing `episodeId` or the run's first episode. */
export async function openTrace(context: vscode.ExtensionContext, runDir: string, episodeId?: string): Promise<void> {
  await PanelHost.for(context).openTrace(runDir, episodeId);
}

/**
 * Opens the compare panel on two or more runs (the first is the baseline). `origin` says what is
 * compared on purpose (checkpoints, prompts, search settings…) and presets the expected differences.
 */
export async function openCompare(
  context: vscode.ExtensionContext,
  runDirs: string[],
  origin: CompareOrigin = "runs",
): Promise<void> {
  await PanelHost.for(context).openCompare(runDirs, origin);
}

/** Opens the training dashboard on a training run folder; it follows the run's logs live. */
export async function openDashboard(context: vscode.ExtensionContext, runDir: string): Promise<void> {
  await PanelHost.for(context).openDashboard(runDir);
}

/** Opens the experiment panel on an experiment's record folder (runs/<name>, holding experiment.json). */
export async function openExperiment(context: vscode.ExtensionContext, recordDir: string): Promise<void> {
  await PanelHost.for(context).openExperiment(recordDir);
}

/** Opens a Chat with Model panel (its process started by the starter `setPlaygroundStarter` gave). */
export function openPlayground(context: vscode.ExtensionContext, state: PlaygroundState): void {
  PanelHost.for(context).openPlayground(state);
}

/** How Chat with Model panels start their process, and what a saved episode refreshes. Call once from activate(). */
export function setPlaygroundStarter(
  context: vscode.ExtensionContext,
  start: StartPlayground,
  onSaved: (runDir: string) => void,
): void {
  PanelHost.for(context).setPlaygroundStarter(start, onSaved);
}

/**
 * Loads the tokenizer `name` in the background for the trace viewer (the first trace of a window
 * then skips its load), in the trace worker. Not at activation: it takes a core for a second or two.
 */
export function warmTraceTokenizer(name: string): void {
  void warmTokenizer(name); // never rejects: a problem is kept and shown by the trace that needs it
}

/** Restores open panels after a window reload. Call once from activate(). */
export function registerPanelSerializers(context: vscode.ExtensionContext): void {
  PanelHost.for(context).registerSerializers();
}

/**
 * "Open trace" code lens on every line of an episodes.jsonl, running `agentLab.openTraceAt`
 * (registered here too). Call once from activate().
 */
export function registerEpisodeCodeLens(context: vscode.ExtensionContext): void {
  PanelHost.for(context).registerEpisodeCodeLens();
}

void PANEL_VIEW_TYPES;
