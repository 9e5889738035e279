/**
 * The system prompt a step sends for an environment, and how its manifest records it: `--prompt
 * FILE` always; else the config's systemPromptFile or the environment's shipped file, for
 * environments whose prompt has a system message; else none (a few-shot prompt that is all user turns), recorded as
 * `(none)` with the hash of the empty text so a later `--prompt` shows up as a fingerprint change.
 */
import { basename } from "node:path";
import type { AgentLabConfig } from "../base/config";
import { loadSystemPrompt, promptSha256 } from "../harness/prompts";
import type { EnvItem, Environment } from "../harness/environment";

export const NO_SYSTEM_PROMPT = "(none)";

export interface EnvironmentPrompt {
  text: string | undefined;
  manifest: { file: string; sha256: string };
}

export function environmentPrompt(
  env: Environment<EnvItem>,
  o: { promptFile?: string; config: AgentLabConfig; workspaceDir: string; closedBook?: boolean },
): EnvironmentPrompt {
  const shipped = env.defaultPromptFile({ closedBook: o.closedBook ?? false });
  const file = o.promptFile || (shipped !== undefined ? o.config.systemPromptFile || shipped : undefined);
  if (file === undefined) return { text: undefined, manifest: { file: NO_SYSTEM_PROMPT, sha256: promptSha256("") } };
  const p = loadSystemPrompt(file, { workspaceDir: o.workspaceDir, closedBook: o.closedBook });
  return { text: p.text, manifest: { file: basename(p.file), sha256: p.sha256 } };
}
