/** Tokenizers, chat templates and hand-stitched turns (see turns.ts for why stitching). */
export type { ChatMessage, ChatTokenizer } from "./tokenizer";
export { loadTokenizer, type LoadTokenizerOptions } from "./hf-tokenizer";
export {
  offlineTokenizer,
  qwen3TokenizerFolder,
  sharedQwen35TemplatePath,
  type OfflineTemplate,
} from "./offline-tokenizer";
export {
  chatPrompt,
  userTurn,
  replyTokens,
  userTurnText,
  assertQwenStitching,
  EMPTY_THINK,
  END_OF_TURN,
} from "./turns";
export { loadTokenizerSource } from "./tokenizer-source";
export { STAND_IN_TOKENIZER } from "./stand-in-tokenizer";
