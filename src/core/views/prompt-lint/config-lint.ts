/**
 * Diagnostics for `agent-lab.json` as the user types: the same rules the CLI applies when it loads
 * the file (`validateOverrides` in ../config.ts, called once per setting so every mistake shows at
 * once), placed on the offending key or value instead of a line number.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
// The ESM build: esbuild cannot follow the UMD build's run-time requires.
import { parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser/lib/esm/main";
import { SETTING_NAMES, validateOverrides } from "../../base/config";
import { UserError } from "../../base/errors";
import type { LintIssue } from "./issues";

export function lintConfigText(text: string, options: { workspaceDir?: string } = {}): LintIssue[] {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  if (errors.length > 0) {
    // The CLI reads the file with JSON.parse: comments and trailing commas are errors there too.
    return errors.map((e) => ({
      code: "invalid-json",
      severity: "error",
      message: `Not valid JSON: ${printParseErrorCode(e.error)} (the CLI reads this file with JSON.parse).`,
      start: e.offset,
      end: e.offset + Math.max(1, e.length),
    }));
  }
  if (!root) return [];
  const issues: LintIssue[] = [];
  const problem = (e: unknown) => (e instanceof UserError ? e.message.replace(/^[^:]*: /, "") : String(e));
  if (root.type !== "object") {
    try {
      validateOverrides(JSON.parse(text), "agent-lab.json");
    } catch (e) {
      issues.push({
        code: "invalid-setting",
        severity: "error",
        message: problem(e),
        start: root.offset,
        end: root.offset + root.length,
      });
    }
    return issues;
  }
  const known = new Set<string>(SETTING_NAMES);
  const seen = new Set<string>();
  for (const prop of root.children ?? []) {
    const [keyNode, valueNode] = prop.children ?? [];
    if (!keyNode || typeof keyNode.value !== "string") continue;
    const key = keyNode.value;
    if (seen.has(key)) {
      issues.push(at(keyNode, "duplicate-setting", "warning", `"${key}" appears twice; the last one wins.`));
    }
    seen.add(key);
    if (!valueNode) continue;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(valueNode.offset, valueNode.offset + valueNode.length));
    } catch {
      continue; // parseTree accepted it, so JSON.parse will too; kept defensive
    }
    try {
      validateOverrides({ [key]: value }, "agent-lab.json");
    } catch (e) {
      const onKey = key !== "$schema" && !known.has(key);
      issues.push(at(onKey ? keyNode : valueNode, onKey ? "unknown-setting" : "invalid-setting", "error", problem(e)));
      continue;
    }
    if (key === "systemPromptFile" && typeof value === "string" && value && options.workspaceDir) {
      const file = resolve(options.workspaceDir, value);
      if (!existsSync(file)) {
        issues.push(
          at(
            valueNode,
            "missing-prompt-file",
            "warning",
            `No file at ${value} (relative to the workspace folder): eval will refuse to start. Run "Agent Lab: Edit System Prompt" to create it from the default.`,
          ),
        );
      }
    }
  }
  return issues;
}

function at(node: Node, code: string, severity: LintIssue["severity"], message: string): LintIssue {
  return { code, severity, message, start: node.offset, end: node.offset + node.length };
}
