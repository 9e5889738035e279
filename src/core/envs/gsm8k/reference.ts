/**
 * The two texts a GSM8K verdict compares: the reference answer (after the solution's last `####`)
 * and the part of the model's reply the cookbook grades (its think blocks removed).
 */
import { pyStrip } from "./python-number";

// Python's str.splitlines() boundaries.
// eslint-disable-next-line no-control-regex -- \x1c-\x1e are among them
const PY_LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/**
 * The final answer of a GSM8K solution, as the cookbook's `extract_gsm8k_final_answer` reads it:
 * the text after `####` on the last line that starts with it (a leading ":" dropped, commas removed);
 * failing that, what follows the last `####` anywhere; undefined when there is none.
 */
export function referenceAnswer(solution: string): string | undefined {
  const lines = solution.split(PY_LINE_BREAK);
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = pyStrip(lines[i]);
    if (!line.startsWith("####")) continue;
    let content = pyStrip(line.slice(4));
    if (content.startsWith(":")) content = pyStrip(content.slice(1));
    return pyStrip(content.replace(/,/g, ""));
  }
  const all = [...solution.matchAll(/####\s*([^\n]+)/g)];
  return all.length ? pyStrip(all[all.length - 1][1]) : undefined;
}

/**
 * The reply text the cookbook grades: with a clean stop its Qwen renderers parse `<think>…</think>`
 * blocks out of the message (restoring the `<think>` the generation prompt prefilled when only the
 * closing tag was sampled), and `get_text_content` keeps the rest. A reply cut off by the token
 * limit is graded as raw text there; pass `stopped: false` for that.
 */
export function gradedReplyText(reply: string, options: { stopped?: boolean } = {}): string {
  if (options.stopped === false) return reply;
  let text = reply;
  if (!text.startsWith("<think>") && text.includes("</think>")) text = `<think>\n${text}`;
  if (!text.includes("<think>") && !text.includes("<tool_call>")) return text;
  return text.replace(/<think>[\s\S]*?<\/think>|<tool_call>[\s\S]*?<\/tool_call>/g, "");
}
