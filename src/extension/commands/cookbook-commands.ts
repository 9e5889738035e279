/**
 * tinker-cookbook runs in Agent Lab's views:
 *
 *   agentLab.addCookbookRun           pick a cookbook log_path folder (anywhere) → Runs and Checkpoints views
 *   agentLab.openCookbookTranscript   (logtree file, title) → its conversations as text, in the markdown preview
 *
 * Folders inside the workspace need neither: they are found by themselves.
 */
import * as vscode from "vscode";
import { readLogtreeTranscripts, transcriptsMarkdown } from "../../core/views/interop/cookbook";
import { OPEN_TRANSCRIPT_COMMAND } from "../runs/runs-provider";
import type { CommandTable, Lab } from "./lab";

async function addCookbookRun(lab: Lab, arg: unknown): Promise<void> {
  let dir = arg instanceof vscode.Uri ? arg.fsPath : typeof arg === "string" ? arg : undefined;
  if (!dir) {
    const picked = await vscode.window.showOpenDialog({
      title: "Agent Lab: Add tinker-cookbook Run Folder",
      openLabel: "Add Run Folder",
      canSelectFolders: true,
      canSelectFiles: false,
      canSelectMany: false,
    });
    dir = picked?.[0]?.fsPath;
  }
  if (!dir) return;
  await lab.cookbook.add(dir);
  lab.runs.refresh();
  lab.checkpoints.refresh();
  void vscode.window.setStatusBarMessage(`Agent Lab: added the tinker-cookbook run ${dir}`, 4000);
}

async function openTranscript(file: unknown, title: unknown): Promise<void> {
  if (typeof file !== "string") return;
  const heading = typeof title === "string" ? title : file;
  const doc = await vscode.workspace.openTextDocument({
    language: "markdown",
    content: transcriptsMarkdown(readLogtreeTranscripts(file), heading),
  });
  await vscode.commands.executeCommand("markdown.showPreview", doc.uri);
}

export function cookbookCommands(lab: Lab): CommandTable {
  return {
    "agentLab.addCookbookRun": (a) => addCookbookRun(lab, a),
    [OPEN_TRANSCRIPT_COMMAND]: (file, title) => openTranscript(file, title),
  };
}
