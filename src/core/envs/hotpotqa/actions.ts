/**
 * Reads the one action out of a model reply. Only the model's own reply is ever parsed, never the
 * harness's inserted text, so a Wikipedia paragraph that contains "<answer>" cannot end an episode.
 *
 * Decisions (the recipe's behaviour unless noted):
 * - An `<answer>` anywhere in the reply wins over any `<search>` (even one written before it).
 * - Repeated tags: the first complete pair counts; later ones are ignored.
 * - Nested opening tags (`<answer>a<answer>b</answer>`): the innermost opening before the first
 *   closing tag counts, so the answer is "b", not "a<answer>b" (the recipe's regex would keep the
 *   stray tag in the prediction, where it only hurts F1).
 * - Tags are case-sensitive and must be complete: `<answer>Par` cut off by the token limit is no
 *   action (the harness ends such a turn as "length" before parsing anyway).
 * - Contents are trimmed; an empty `<answer></answer>` is an answer (scoring 0), an empty
 *   `<search></search>` is a search with an empty query (see episode.ts for how it is answered).
 */

export type Action = { kind: "answer"; text: string } | { kind: "search"; query: string } | { kind: "none" };

/** Text inside the first complete `<tag>…</tag>` pair, innermost opening; undefined when none. */
export function firstTagged(reply: string, tag: string): string | undefined {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  let from = 0;
  for (;;) {
    const end = reply.indexOf(close, from);
    if (end < 0) return undefined;
    const start = reply.lastIndexOf(open, end - open.length);
    if (start >= 0 && start + open.length <= end) return reply.slice(start + open.length, end);
    from = end + close.length; // a closing tag with no opening before it: look further
  }
}

export function parseAction(reply: string): Action {
  const answer = firstTagged(reply, "answer");
  if (answer !== undefined) return { kind: "answer", text: answer.trim() };
  const query = firstTagged(reply, "search");
  if (query !== undefined) return { kind: "search", query: query.trim() };
  return { kind: "none" };
}
