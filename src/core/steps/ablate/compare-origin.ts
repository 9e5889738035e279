/**
 * How a comparison was opened and what that compares on purpose: pure (no Node), so the Compare
 * webview, the panel, the pipeline and the CLI read the same lists.
 */

/** How a comparison was opened; each names the fingerprint fields it compares on purpose. */
export type CompareOrigin = "runs" | "checkpoint" | "prompt" | "search" | "pipeline";

/** Dotted fingerprint fields (a prefix covers its sub-fields) each origin compares on purpose. */
export const ORIGIN_EXPECT: Readonly<Record<CompareOrigin, readonly string[]>> = {
  runs: [],
  checkpoint: ["policy.checkpoint"],
  prompt: ["system_prompt"],
  search: ["search.top_k", "search.max_searches", "search.closed_book", "search.searcher"],
  // The pipeline compares base, closed-book, SFT and GRPO: the checkpoint, or search itself.
  pipeline: ["policy.checkpoint", "search", "system_prompt"],
};

export const ORIGIN_LABELS: Readonly<Record<CompareOrigin, string>> = {
  runs: "runs picked by hand",
  checkpoint: "checkpoints",
  prompt: "system prompts",
  search: "search settings",
  pipeline: "the pipeline's stages",
};

/** Advice in the panel's warnings where the CLI says "--expect FIELD". */
export const PANEL_EXPECT_ADVICE = "tick it under “Expected to differ” above";
