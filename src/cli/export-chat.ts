/**
 * `agent-lab export-chat RUN_OR_SFT_DATA --out FILE [--format openai|cookbook]`: a run's episodes or an
 * sft-data run's rows as chat JSONL (see src/core/steps/sft/export-chat.ts for the formats).
 */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { UserError } from "../core/base/errors";
import { exportChat } from "../core/steps/sft/export-chat";
import type { ChatExportFormat } from "../core/steps/sft/chat-formats";
import { EXPORT_CHAT_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(EXPORT_CHAT_STEP, argv);
  if (!args) return;
  const { values, positionals, config, workspaceDir } = args;
  if (positionals.length !== 1) throw new UserError("give exactly one run folder (or run name) or sft.jsonl to export");
  const named = join(isAbsolute(config.runsDir) ? config.runsDir : join(workspaceDir, config.runsDir), positionals[0]);
  const input = existsSync(positionals[0]) ? positionals[0] : named;
  const result = await exportChat(input, values.out, values.format as ChatExportFormat);
  console.log(`wrote ${result.lines} conversations from ${result.source} to ${values.out}`);
}
