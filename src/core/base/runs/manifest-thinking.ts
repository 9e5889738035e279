/**
 * The thinking setting a run's prompts were rendered with: the chat template's `enable_thinking`
 * for every generation prompt (off: Qwen's empty `<think>\n\n</think>\n\n` block; on: the model
 * thinks first). Every eval manifest records it as `thinking`, whatever the environment, so a reader
 * (the drift check, a person) can tell which rendering the episodes were made with.
 *
 * Runs from before the field: a manifest without it is read as `ASSUMED_THINKING` (off) — the only
 * setting the multi-turn harness stitches (chat/turns.ts) and the config's default — unless the
 * environment's own fingerprint recorded it in a `prompt` block (`prompt.thinking`), which is read
 * instead. Resume and compare read stored manifests through `withThinking`, so an older run still
 * resumes under the same setting and is not reported as differing in it.
 */

/** The manifest field. */
export const THINKING_FIELD = "thinking";

/** What a manifest without the field (and without an environment's `prompt.thinking`) was made with. */
export const ASSUMED_THINKING = false;

/** The run's setting, and whether its manifest recorded it (false: assumed). */
export function manifestThinking(manifest: unknown): { thinking: boolean; recorded: boolean } {
  if (typeof manifest !== "object" || manifest === null) return { thinking: ASSUMED_THINKING, recorded: false };
  const m = manifest as { [THINKING_FIELD]?: unknown; prompt?: { thinking?: unknown } };
  if (typeof m[THINKING_FIELD] === "boolean") return { thinking: m[THINKING_FIELD], recorded: true };
  if (typeof m.prompt?.thinking === "boolean") return { thinking: m.prompt.thinking, recorded: true };
  return { thinking: ASSUMED_THINKING, recorded: false };
}

/** The manifest with the field filled in as it is read (for comparing an older manifest with a new one). */
export function withThinking<M extends object>(manifest: M): M & { [THINKING_FIELD]: boolean } {
  return { ...manifest, [THINKING_FIELD]: manifestThinking(manifest).thinking };
}
