/** Diagnostics for system prompt files and agent-lab.json (vscode-free; the language server maps them to LSP). */
export type { LintIssue, IssueSeverity } from "./issues";
export {
  lintPrompt,
  classifyTagContent,
  actionPairs,
  hasConcreteExample,
  isClosedBookPromptFile,
  ACTION_TAGS,
  type PromptLintOptions,
} from "./prompt-rules";
export {
  promptTokenizer,
  promptText,
  countPromptTokens,
  tokenLimitIssue,
  estimatePromptPrefill,
  promptHoverMarkdown,
  promptLensSummary,
  TYPICAL_TURNS,
  DEFAULT_PROMPT_TOKEN_LIMIT,
  type PromptTokens,
  type PrefillEstimate,
} from "./prompt-tokens";
export { lintConfigText } from "./config-lint";
export {
  seedWorkspacePrompt,
  setConfigKey,
  promptRunBaseName,
  baselineForPrompt,
  WORKSPACE_PROMPT_FILE,
  type SeededPrompt,
  type RunCandidate,
} from "./prompt-loop-plan";
