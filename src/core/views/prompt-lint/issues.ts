/**
 * What the prompt and config linters report: plain offsets into the text, so the logic is tested
 * in plain Node and the language server only maps offsets to LSP ranges.
 */

export type IssueSeverity = "error" | "warning" | "information";

export interface LintIssue {
  /** Stable id of the rule (shown as the diagnostic's code, used by tests). */
  code: string;
  severity: IssueSeverity;
  message: string;
  /** Offset of the first character of the offending text. */
  start: number;
  /** Offset just past it. */
  end: number;
}
