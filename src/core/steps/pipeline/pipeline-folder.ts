/**
 * The names a pipeline folder is known by, light enough for the language server: its marker and
 * the offline prompts it writes for its runs.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Marks a folder as a pipeline's, so a rerun may continue in it. */
export const PIPELINE_MARKER = ".agent-lab-pipeline";
export const OFFLINE_PROMPT = "prompts/offline-system.md";
export const OFFLINE_CLOSED_BOOK_PROMPT = "prompts/offline-closed-book.md";

/**
 * Whether `file` is one of the prompts a pipeline wrote into its folder for the local backend's
 * tiny model (which learns its actions from the scripted teacher, not from reading the prompt).
 */
export function isPipelinePrompt(file: string): boolean {
  const path = resolve(file);
  const folder = dirname(dirname(path));
  return (
    [OFFLINE_PROMPT, OFFLINE_CLOSED_BOOK_PROMPT].some((p) => resolve(folder, p) === path) &&
    existsSync(join(folder, PIPELINE_MARKER))
  );
}
