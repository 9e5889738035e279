/**
 * VS Code's floor under a new panel, for the panel bench: a webview made as the panels are made
 * (the same options and column, the same Content-Security-Policy) whose page is one inline script
 * that posts when it starts and at its first frame — no bundle, no stylesheet, no data. Its times
 * are what VS Code spends creating a webview, which no panel code can shorten.
 */
import * as vscode from "vscode";
import { webviewOptions } from "./panel-base";
import { contentSecurityPolicy, escapeHtml, makeNonce } from "./webview-html";

/** Wall-clock times (Date.now() in the page) of the page's script start and of its first frame. */
export interface ReferenceTimes {
  scriptAt: number;
  frameAt: number;
}

const TIMEOUT_MS = 60_000;

function referenceHtml(cspSource: string, nonce: string): string {
  const csp = contentSecurityPolicy(cspSource, nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="UTF-8"><meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}"></head>
<body><script nonce="${nonce}">
const api = acquireVsCodeApi();
const scriptAt = Date.now();
api.postMessage({ scriptAt });
requestAnimationFrame(() => api.postMessage({ scriptAt, frameAt: Date.now() }));
</script></body>
</html>`;
}

/** Opens the reference webview, waits for its first frame, closes it. */
export function openReferencePanel(context: vscode.ExtensionContext): Promise<ReferenceTimes> {
  const panel = vscode.window.createWebviewPanel(
    "agentLab.reference",
    "Reference",
    vscode.ViewColumn.Active,
    webviewOptions(context),
  );
  return new Promise<ReferenceTimes>((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`the reference webview drew no frame within ${TIMEOUT_MS} ms`)),
      TIMEOUT_MS,
    );
    const listener = panel.webview.onDidReceiveMessage((m: Partial<ReferenceTimes>) => {
      if (typeof m.scriptAt === "number" && typeof m.frameAt === "number")
        done(undefined, { scriptAt: m.scriptAt, frameAt: m.frameAt });
    });
    function done(error: Error | undefined, times?: ReferenceTimes): void {
      clearTimeout(timer);
      listener.dispose();
      panel.dispose();
      if (error) reject(error);
      else resolve(times!);
    }
    panel.webview.html = referenceHtml(panel.webview.cspSource, makeNonce());
  });
}
