/**
 * Helpers for tests that run inside the real extension host. The fixture workspace (made by
 * scripts/vscode/fixture.mjs before VS Code starts) is the open folder; its path also arrives in
 * env AGENT_LAB_IT_WORKSPACE.
 */
import * as vscode from "vscode";

export const EXTENSION_ID = "agent-lab.agent-lab";

/** The open workspace folder (the fixture). */
export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error("the integration suite needs a workspace folder (the fixture)");
  return folder.uri.fsPath;
}

export function agentLabExtension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded (extensionDevelopmentPath wrong?)`);
  return ext;
}

/** Activates the extension (a no-op when the workspace already did) and returns its exports. */
export async function activeExports<T = Record<string, unknown>>(): Promise<T> {
  const ext = agentLabExtension();
  const api = await ext.activate();
  return (api ?? {}) as T;
}

/** Polls `probe` until it returns a truthy value or `timeoutMs` passes; returns the value. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The commands contributed in the extension's own package.json. */
export function contributedCommands(): string[] {
  const pkg = agentLabExtension().packageJSON as { contributes?: { commands?: { command: string }[] } };
  return (pkg.contributes?.commands ?? []).map((c) => c.command);
}
