/**
 * The GSM8K prompt as tinker-cookbook's `math_rl` recipe builds it, so accuracy is comparable with
 * cookbook runs: no system message; the few-shot "strawberry" exchange as an earlier user/assistant
 * turn; then the question followed by QUESTION_SUFFIX. Single turn, no tools. Thinking is off by
 * default (the generation prompt gets Qwen's empty think block); `thinking: true` lets the model think.
 */
import type { ChatMessage } from "../../base/chat";

export const QUESTION_SUFFIX = " Write your answer in \\boxed{} format.";

/** The cookbook's standard few-shot prefix (one solved example, answer boxed). */
export const FEWSHOT_PREFIX: readonly ChatMessage[] = [
  { role: "user", content: `How many r's are in strawberry?${QUESTION_SUFFIX}` },
  {
    role: "assistant",
    content:
      "Let's spell the word out and number all the letters: 1) s 2) t 3) r 4) a 5) w 6) b 7) e 8) r 9) r 10) y. " +
      "We have r's at positions 3, 8, and 9. \\boxed{3}",
  },
];

export interface Gsm8kPrompt {
  messages: ChatMessage[];
  /** Render the generation prompt with thinking enabled (false: Qwen's empty think block). */
  thinking: boolean;
}

export function gsm8kPrompt(question: string, options: { thinking?: boolean; fewShot?: boolean } = {}): Gsm8kPrompt {
  const prefix = options.fewShot === false ? [] : FEWSHOT_PREFIX.map((m) => ({ ...m }));
  return {
    messages: [...prefix, { role: "user", content: question + QUESTION_SUFFIX }],
    thinking: options.thinking ?? false,
  };
}
