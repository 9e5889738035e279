/**
 * What the Agent Lab language client and server agree on (no vscode, no LSP library: both sides
 * import it, and the extension bundle stays small).
 */
import type { AgentLabConfig } from "../core/base/config";
import type { BackendName } from "../core/steps/eval/backend-model";

/** Settings the server needs from VS Code: sent as initializationOptions and again on change. */
export interface PromptServerSettings {
  /** Prompt token count above which the prompt gets a warning (`agentLab.promptTokenLimit`). */
  promptTokenLimit?: number;
  /** agentLab.* settings the user set (they override agent-lab.json, as for jobs). */
  overrides?: Partial<AgentLabConfig>;
  /** The backend the workspace's jobs run on (`agentLab.backend`): the code lens prices the prompt on its model. */
  backend?: BackendName;
}

/** Client → server notification carrying new PromptServerSettings. */
export const SETTINGS_NOTIFICATION = "agentLab/settings";

/** The code lens on a prompt file runs this command with the prompt's absolute path. */
export const RERUN_COMMAND = "agentLab.rerunEvalWithPrompt";
export const RERUN_LENS_TITLE = "$(debug-rerun) Rerun eval on val with this prompt";

/** Diagnostics' `source`. */
export const DIAGNOSTIC_SOURCE = "agent-lab";

/** The settings file is linted as config; every other document the client sends is a prompt. */
export function isConfigFile(fileOrUri: string): boolean {
  return /(^|[\\/])agent-lab\.json$/.test(fileOrUri);
}

/**
 * The client's document selector, as glob patterns ("/" separators): agent-lab.json, prompts/*.md
 * (where Edit System Prompt puts the workspace prompt), *.prompt.md, and the configured
 * systemPromptFile when it is a relative path.
 */
export function promptDocumentPatterns(systemPromptFile: string | undefined): string[] {
  const patterns = ["**/agent-lab.json", "**/prompts/*.md", "**/*.prompt.md"];
  const rel = systemPromptFile?.trim().replace(/\\/g, "/").replace(/^\.\//, "");
  if (rel && !rel.startsWith("/") && !/^[A-Za-z]:/.test(rel)) patterns.push(`**/${rel}`);
  return patterns;
}
