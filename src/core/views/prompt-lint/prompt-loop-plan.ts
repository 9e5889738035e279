/**
 * The vscode-free half of the prompt loop (edit the workspace prompt → rerun eval on val → compare):
 * seeding the workspace prompt from the shipped default, naming the rerun, and picking the run to
 * compare it with. src/extension/commands/prompt-loop.ts does the editor and job parts.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { applyEdits, modify, parseTree, type ParseError } from "jsonc-parser/lib/esm/main";
import { CONFIG_FILE } from "../../base/config";
import { FileFormatError } from "../../base/errors";
import { isPlaygroundRun } from "../../base/runs/manifest";

/** Where "Edit System Prompt" puts the workspace's prompt when none is configured. */
export const WORKSPACE_PROMPT_FILE = "prompts/system.md";

export interface SeededPrompt {
  /** Absolute path of the workspace prompt. */
  file: string;
  /** As recorded in agent-lab.json (workspace-relative unless the user configured an absolute path). */
  relative: string;
  /** The shipped default was copied (the file did not exist). */
  created: boolean;
  /** agent-lab.json gained `systemPromptFile`. */
  configUpdated: boolean;
}

/**
 * Makes sure the workspace has its own prompt file: the configured one, or prompts/system.md (then
 * recorded in agent-lab.json, keeping the rest of the file as written). An existing file is never
 * overwritten; a broken agent-lab.json is refused, not rewritten.
 */
export function seedWorkspacePrompt(options: {
  workspaceDir: string;
  configuredFile: string;
  defaultFile: string;
}): SeededPrompt {
  const relative = options.configuredFile.trim() || WORKSPACE_PROMPT_FILE;
  const file = resolve(options.workspaceDir, relative);
  let configUpdated = false;
  if (!options.configuredFile.trim()) configUpdated = setConfigKey(options.workspaceDir, "systemPromptFile", relative);
  let created = false;
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(options.defaultFile, file);
    created = true;
  }
  return { file, relative, created, configUpdated };
}

/** Sets one key of agent-lab.json, changing nothing else in the text; false when it already had that value. */
export function setConfigKey(workspaceDir: string, key: string, value: string): boolean {
  const path = resolve(workspaceDir, CONFIG_FILE);
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  if (text.trim()) {
    const errors: ParseError[] = [];
    const root = parseTree(text, errors, { disallowComments: true });
    if (errors.length > 0 || root?.type !== "object") {
      const line = errors.length > 0 ? text.slice(0, errors[0].offset).split("\n").length : 1;
      throw new FileFormatError(path, line, `not a valid JSON object; fix it before "${key}" can be added`);
    }
    const current = root.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1]?.value;
    if (current === value) return false;
  }
  const base = text.trim() ? text : "{}\n";
  const edits = modify(base, [key], value, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } });
  const out = applyEdits(base, edits);
  writeFileSync(path, out.endsWith("\n") ? out : out + "\n");
  return true;
}

/** `prompt-<file stem>-<first 8 hex of the prompt's sha256>`: the run's name says which prompt it ran. */
export function promptRunBaseName(promptFile: string, sha256: string): string {
  const stem = basename(promptFile, extname(promptFile)).replace(/\.prompt$/, "");
  return `prompt-${stem}-${sha256.slice(0, 8)}`;
}

/** The parts of a run row the choice needs (structurally the Runs view's RunRow). */
export interface RunCandidate {
  name: string;
  dir: string;
  kind: string;
  status: string;
  updatedMs: number;
  manifest?: {
    split: { name: string };
    system_prompt: { sha256: string };
    search?: { closed_book: boolean };
    policy: { checkpoint?: string };
    job: { limit?: number };
  };
}

/**
 * The run to compare a prompt's rerun with: the newest finished research (not closed-book) eval on
 * val whose prompt differs from this one. Undefined when there is none (nothing to compare yet).
 */
export function baselineForPrompt<R extends RunCandidate>(rows: readonly R[], promptSha256: string): R | undefined {
  return rows
    .filter((r) => r.kind === "eval" && r.status === "done" && r.manifest)
    .filter(
      (r) =>
        r.manifest!.split.name === "val" &&
        !isPlaygroundRun(r.manifest) &&
        !r.manifest!.search?.closed_book &&
        r.manifest!.system_prompt.sha256 !== promptSha256,
    )
    .sort((a, b) => b.updatedMs - a.updatedMs)[0];
}
