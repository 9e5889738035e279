/**
 * The language client. Bundled on its own as dist/language-client.js and loaded by
 * src/extension/language-client/load-client.ts after activation, so vscode-languageclient (~800 KB) is not in
 * the extension bundle nor on the activation path. It starts the language server
 * (dist/language-server.js, its own process: the tokenizer it loads never weighs on the extension
 * host) and keeps it told about the settings it needs.
 *
 * Documents it serves (the server treats agent-lab.json as config, everything else as a prompt):
 *   **∕agent-lab.json            settings, checked with the CLI's rules
 *   **∕prompts/*.md              where "Edit System Prompt" puts the workspace prompt (and the shipped data/prompts)
 *   **∕*.prompt.md               any other prompt file, by naming convention
 *   the configured systemPromptFile (agent-lab.json or agentLab.systemPromptFile), wherever it is
 *     (when it changes, the client restarts with the new selector)
 * Files whose name contains "closed-book" are linted as closed-book prompts (no <search> expected).
 */
import * as vscode from "vscode";
import {
  LanguageClient,
  TransportKind,
  type DocumentSelector,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import type { AgentLabConfig } from "../../core/base/config";
import { jobBackend, SETTINGS_SECTION, settingsOverrides } from "../settings/settings-overrides";
import {
  promptDocumentPatterns,
  SETTINGS_NOTIFICATION,
  type PromptServerSettings,
} from "../../language-server/protocol";

/** What the server needs from VS Code's settings; a setting VS Code cannot parse is left out (the commands report it). */
export function promptServerSettings(): PromptServerSettings {
  const section = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  let overrides: Partial<AgentLabConfig> = {};
  try {
    overrides = settingsOverrides((key) => section.inspect(key));
  } catch {
    overrides = {};
  }
  return {
    promptTokenLimit: section.get<number>("promptTokenLimit"),
    overrides,
    backend: jobBackend(section.get("backend")),
  };
}

/**
 * Starts the client (its disposal, in context.subscriptions, stops the server). Never throws: without the server,
 * prompt files just get no diagnostics, and a warning says so.
 */
export function startPromptLanguageClient(
  context: vscode.ExtensionContext,
  workspace: { config(): AgentLabConfig },
): void {
  const configuredPrompt = () => {
    try {
      return workspace.config().systemPromptFile;
    } catch {
      return undefined; // no folder, or a broken agent-lab.json: the server's diagnostics say why
    }
  };
  let patterns = promptDocumentPatterns(configuredPrompt());
  let client: vscode.Disposable | undefined;
  const start = () => {
    try {
      client = createClient(context, patterns);
    } catch (e) {
      client = undefined;
      void vscode.window.showWarningMessage(
        `Agent Lab: the prompt language server did not start (${(e as Error).message}); prompt diagnostics are off.`,
      );
    }
  };
  // A document selector is fixed when the client starts: when systemPromptFile moves outside the
  // fixed patterns, start a client with the new selector.
  const restartIfPromptMoved = () => {
    const next = promptDocumentPatterns(configuredPrompt());
    if (next.join("\n") === patterns.join("\n")) return;
    patterns = next;
    client?.dispose();
    start();
  };
  start();
  const watcher = vscode.workspace.createFileSystemWatcher("**/agent-lab.json");
  context.subscriptions.push(
    watcher,
    watcher.onDidChange(restartIfPromptMoved),
    watcher.onDidCreate(restartIfPromptMoved),
    watcher.onDidDelete(restartIfPromptMoved),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(`${SETTINGS_SECTION}.systemPromptFile`)) restartIfPromptMoved();
    }),
    { dispose: () => client?.dispose() },
  );
}

function createClient(context: vscode.ExtensionContext, patterns: readonly string[]): vscode.Disposable {
  const module = context.asAbsolutePath("dist/language-server.js");
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ["--nolazy", "--inspect=6019"] } },
  };
  const documentSelector: DocumentSelector = patterns.map((pattern) => ({ scheme: "file", pattern }));
  const clientOptions: LanguageClientOptions = {
    documentSelector,
    initializationOptions: promptServerSettings(),
    diagnosticCollectionName: "agent-lab",
  };
  const client = new LanguageClient("agentLab.prompts", "Agent Lab Prompts", serverOptions, clientOptions);
  const subscriptions: vscode.Disposable[] = [
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION) && client.isRunning())
        void client.sendNotification(SETTINGS_NOTIFICATION, promptServerSettings());
    }),
  ];
  client.start().catch((e: unknown) => {
    void vscode.window.showWarningMessage(
      `Agent Lab: the prompt language server did not start (${(e as Error).message}); prompt diagnostics are off.`,
    );
  });
  return new vscode.Disposable(() => {
    subscriptions.forEach((d) => d.dispose());
    void client.stop().catch(() => undefined);
  });
}
