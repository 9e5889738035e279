/**
 * The Tinker API key: "Set Tinker API Key" and "Clear Tinker API Key" keep it in SecretStorage only.
 * Settings files stay byte-identical, and the key's text appears in no file of the workspace (run
 * folders, job records and logs) nor of VS Code's user data (settings, logs, output channels).
 * Runs after the job tests (file order) so that job logs exist to be searched.
 */
import * as assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import type { Lab } from "../../src/extension/register-commands";
import { activeExports, answerUi, workspaceDir } from "./helpers";

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? filesUnder(p) : d.isFile() ? [p] : [];
  });
}

function filesContaining(dirs: string[], needle: string): string[] {
  return dirs.flatMap(filesUnder).filter((f) => statSync(f).size < 64 << 20 && readFileSync(f).includes(needle));
}

function snapshot(files: string[]): Record<string, string | null> {
  return Object.fromEntries(files.map((f) => [f, existsSync(f) ? readFileSync(f, "utf8") : null]));
}

describe("Tinker API key in secret storage only", () => {
  const userData = process.env.AGENT_LAB_IT_USER_DATA;
  const settingsFiles = () => [
    join(workspaceDir(), ".vscode", "settings.json"),
    join(workspaceDir(), "agent-lab.json"),
    ...(userData ? [join(userData, "User", "settings.json")] : []),
  ];

  it("set stores the key without touching settings, files or logs; clear removes it", async () => {
    const lab = await activeExports<Lab>();
    const key = `tml-integration-${randomBytes(12).toString("hex")}`;
    const before = snapshot(settingsFiles());
    const ui = answerUi({ inputBox: (o) => (o.password ? key : undefined) });
    try {
      await vscode.commands.executeCommand("agentLab.setApiKey");
      assert.ok(
        ui.calls.some((c) => c.kind === "inputBox"),
        "the command asked for the key",
      );
      assert.equal(await lab.keys.get(), key, "the key is in secret storage");
      assert.deepEqual(snapshot(settingsFiles()), before, "settings files unchanged by set");
      // The workspace (runs, job records and logs) and VS Code's whole temp root: user data with
      // settings and every log (output channels included), and the server's own logs.
      const everything = [workspaceDir(), ...(userData ? [dirname(userData)] : [])];
      assert.deepEqual(filesContaining(everything, key), [], "the key's text is in no file");
      assert.ok(!ui.messages().some((m) => m.includes(key)), "no message shows the key");
      const inspected = vscode.workspace.getConfiguration("agentLab");
      assert.ok(!JSON.stringify(inspected).includes(key), "no agentLab setting holds the key");

      await vscode.commands.executeCommand("agentLab.clearApiKey");
      assert.equal(await lab.keys.get(), undefined, "cleared from secret storage");
      assert.deepEqual(snapshot(settingsFiles()), before, "settings files unchanged by clear");
      assert.deepEqual(filesContaining(everything, key), []);
    } finally {
      ui.restore();
    }
  });
});
