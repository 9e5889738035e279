/**
 * Starts the prompt language client after activation. The client itself (src/extension/language-client/client.ts,
 * with vscode-languageclient) is a separate bundle, dist/language-client.js, required here at run
 * time: the extension bundle stays small and activate() never waits for it.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import * as vscode from "vscode";
import type { AgentLabConfig } from "../../core/base/config";

type ClientModule = typeof import("./client");

export function startPromptLanguageClient(
  context: vscode.ExtensionContext,
  workspace: { config(): AgentLabConfig },
): void {
  const file = context.asAbsolutePath(path.join("dist", "language-client.js"));
  let client: ClientModule;
  try {
    // A run-time require of the built file (esbuild leaves createRequire calls alone).
    client = createRequire(__filename)(file) as ClientModule;
  } catch (e) {
    void vscode.window.showWarningMessage(
      `Agent Lab: prompt diagnostics are off: ${file} did not load (${(e as Error).message}). Run "npm run build".`,
    );
    return;
  }
  client.startPromptLanguageClient(context, workspace);
}
