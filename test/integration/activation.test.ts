import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { agentLabExtension, activeExports, contributedCommands, waitFor, workspaceDir } from "./helpers";

describe("extension activation (real VS Code)", () => {
  it("activates on the fixture workspace without being asked (workspaceContains)", async () => {
    const ext = agentLabExtension();
    // The workspace has runs/ and agent-lab.json: VS Code activates the extension by itself.
    await waitFor("the extension to activate on its own", () => ext.isActive, 20_000);
    assert.ok(workspaceDir().length > 0);
    console.log(`      vscode ${vscode.version}, uiKind ${vscode.UIKind[vscode.env.uiKind]}, remote ${vscode.env.remoteName ?? "none"}`);
  });

  it("registers every command its package.json contributes", async () => {
    await activeExports();
    const contributed = contributedCommands();
    assert.ok(contributed.length > 0, "package.json contributes no commands");
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(", ")}`);
  });
});
