export * from "./collect-sft";
export * from "./held-out";
export * from "./lineage";
export * from "./select";
export * from "./sft-files";
export { exportChat, parseChatText, toChatLine, type ChatLine, type ChatMessageOut } from "./export-chat";
export { sftFromRuns, type FromRunsOptions, type FromRunsResult, type SkippedRun, type SourceRun } from "./from-runs";
