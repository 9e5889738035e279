/**
 * System prompts live in files so a researcher can edit one and rerun eval. The shipped defaults
 * are data/prompts/system.md (research agent) and data/prompts/closed-book.md (no search: the
 * floor). A run's manifest records the sha256 of the exact text the model saw.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { FileFormatError, UserError } from "../base/errors";
import { projectFile } from "../base/chat/package-files";

export interface SystemPrompt {
  /** The text sent as the system message (the file with its trailing whitespace removed). */
  text: string;
  /** sha256 (hex) of `text`: the prompt's identity in manifests. */
  sha256: string;
  /** The file it was read from. */
  file: string;
}

export function defaultSystemPromptFile(closedBook = false): string {
  return projectFile("data", "prompts", closedBook ? "closed-book.md" : "system.md");
}

export function promptSha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** What a prompt file's content sends: no byte-order mark, no trailing whitespace (see below). */
export function promptText(fileContent: string): string {
  return fileContent.replace(/^\uFEFF/, "").trimEnd();
}

/**
 * A user's prompt file (relative paths resolve against `workspaceDir`), or the shipped default when
 * `file` is empty or absent. Trailing whitespace is dropped: editors add a final newline that the
 * researcher never meant to send (and Qwen3.5's template would strip anyway, Qwen3's would not).
 */
export function loadSystemPrompt(
  file?: string,
  options: { workspaceDir?: string; closedBook?: boolean } = {},
): SystemPrompt {
  const path = file
    ? resolve(options.workspaceDir ?? process.cwd(), file)
    : defaultSystemPromptFile(options.closedBook);
  if (!existsSync(path)) throw new UserError(`system prompt file not found: ${path}`);
  if (statSync(path).isDirectory())
    throw new UserError(
      `system prompt ${path} is a folder: give --prompt (or the setting systemPromptFile) a text file`,
    );
  const text = promptText(readFileSync(path, "utf8"));
  if (!text.trim()) throw new FileFormatError(path, 1, "the system prompt is empty");
  return { text, sha256: promptSha256(text), file: path };
}
