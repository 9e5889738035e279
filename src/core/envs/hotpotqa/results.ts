/** The text the harness sends back after a search: what the model reads in the next user turn. */
import type { SearchHit } from "../../base/search/searcher";

export const NO_RESULTS = "No results. Try other keywords.";
export const EMPTY_QUERY = "Empty query. Put the words to look up inside <search></search>.";
export const LAST_SEARCH = "That was your last search. Reply with <answer></answer> now.";

/** Wraps a body in the result block the system prompt promises. */
export function resultBlock(body: string): string {
  return `<result>\n${body}\n</result>`;
}

/**
 * `[Title] text` per hit, blank line between hits. Paragraph text is passed through verbatim, even
 * when it contains tag-like text such as "</result>" or "<answer>": only the model's reply is ever
 * parsed for actions, and changing Wikipedia's text would make the environment less faithful.
 */
export function formatResults(hits: readonly Pick<SearchHit, "title" | "text">[]): string {
  if (hits.length === 0) return resultBlock(NO_RESULTS);
  return resultBlock(hits.map((h) => `[${h.title}] ${h.text}`).join("\n\n"));
}
