export * from "./collect-sft";
export * from "./held-out";
export * from "./lineage";
export * from "./select";
export * from "./sft-files";
export {
  exportChat,
  parseChatText,
  toChatLine,
  toCookbookLine,
  type ChatLine,
  type ChatMessageOut,
  type CookbookLine,
  type CookbookMessage,
} from "./export-chat";
export { CHAT_EXPORT_FORMATS, DEFAULT_CHAT_EXPORT_FORMAT, type ChatExportFormat } from "./chat-formats";
export { sftFromRuns, type FromRunsOptions, type FromRunsResult, type SkippedRun, type SourceRun } from "./from-runs";
