/** The context keys the welcome views (package.json viewsWelcome) depend on. */
import * as vscode from "vscode";
import type { LabWorkspace } from "./lab-workspace";

/** Context keys the welcome views use: is there a data folder with splits, an index? */
export async function updateContextKeys(workspace: LabWorkspace): Promise<void> {
  let hasData = false;
  let hasIndex = false;
  try {
    const dataDir = vscode.Uri.file(workspace.dataDir());
    const stat = async (name: string) =>
      vscode.workspace.fs.stat(vscode.Uri.joinPath(dataDir, name)).then(
        () => true,
        () => false,
      );
    hasData = await stat("val.jsonl");
    hasIndex = await stat("bm25");
  } catch {
    // no folder, or unreadable settings: both stay false
  }
  await vscode.commands.executeCommand("setContext", "agentLab.hasData", hasData);
  await vscode.commands.executeCommand("setContext", "agentLab.hasIndex", hasIndex);
}
