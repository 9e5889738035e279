/**
 * Extension entry point: only wires features together. The views, commands and panels arrive with
 * their own modules; the recipe itself lives in src/core and runs as CLI jobs, never in this host.
 */
import type * as vscode from "vscode";

export function activate(_context: vscode.ExtensionContext): void {
  // Features register here as they land.
}

export function deactivate(): void {}
