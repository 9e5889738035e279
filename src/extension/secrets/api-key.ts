/**
 * The Tinker API key lives in VS Code's SecretStorage only. It reaches a job through the child's
 * environment (TINKER_API_KEY) — never a file, a setting, an argument, a log or an output channel.
 */
import * as vscode from "vscode";

const SECRET_ID = "agentLab.tinkerApiKey";

/** Same shape check as the Tinker client (src/core/base/tinker/key.ts), without echoing the value. */
export function keyProblem(key: string): string | undefined {
  const k = key.trim();
  if (!k) return "The key is empty.";
  if (!k.startsWith("tml-") && !k.startsWith("eyJ"))
    return `A Tinker key starts with "tml-" (this one has ${k.length} characters and does not).`;
  return undefined;
}

export class ApiKeyStore {
  private cached: string | undefined;

  constructor(private readonly secrets: vscode.SecretStorage) {
    // Another window may set or clear the key.
    secrets.onDidChange((e) => {
      if (e.key === SECRET_ID) this.cached = undefined;
    });
  }

  async get(): Promise<string | undefined> {
    this.cached ??= (await this.secrets.get(SECRET_ID)) || undefined;
    return this.cached;
  }

  /** Asks for the key in a password box; true when one was stored. */
  async promptAndStore(): Promise<boolean> {
    const key = await vscode.window.showInputBox({
      title: "Agent Lab: Tinker API Key",
      prompt: "Stored in VS Code's secret storage and passed only to Agent Lab jobs (environment TINKER_API_KEY).",
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => keyProblem(v),
    });
    if (key === undefined) return false;
    await this.secrets.store(SECRET_ID, key.trim());
    this.cached = key.trim();
    void vscode.window.showInformationMessage("Agent Lab: Tinker API key saved in secret storage.");
    return true;
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_ID);
    this.cached = undefined;
    void vscode.window.showInformationMessage("Agent Lab: Tinker API key removed from secret storage.");
  }

  /** The key, asking for it when missing; undefined when the user declines. */
  async require(): Promise<string | undefined> {
    const key = await this.get();
    if (key) return key;
    const choice = await vscode.window.showWarningMessage(
      "Agent Lab: this step runs on Tinker and needs your API key.",
      "Set Tinker API Key",
    );
    if (choice !== "Set Tinker API Key") return undefined;
    return (await this.promptAndStore()) ? this.get() : undefined;
  }
}
