/**
 * The formats `export-chat --format` writes: one contract, imported by the step catalog and by the exporter.
 * - openai: `{"messages": [...]}` with `weight` 1/0 on assistant messages (OpenAI fine-tuning, TRL).
 * - cookbook: tinker-cookbook's conversation files (its `Message` type: `role`, `content`, `trainable` on
 *   every message), which its `FromConversationFileBuilder` reads and `train_on_what=customized` trains on.
 */
export const CHAT_EXPORT_FORMATS = ["openai", "cookbook"] as const;
export type ChatExportFormat = (typeof CHAT_EXPORT_FORMATS)[number];
export const DEFAULT_CHAT_EXPORT_FORMAT: ChatExportFormat = "openai";
