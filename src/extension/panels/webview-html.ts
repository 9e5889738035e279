/**
 * The HTML shell every panel loads: no content of its own (all data arrives as messages and is
 * inserted as text), one bundled script from the extension's own folder and the panels' stylesheet
 * inside the page, and a strict Content-Security-Policy — nothing remote, scripts and the style
 * element only with this page's nonce, no inline handlers, images only from the extension, data: or
 * blob: (chart PNG export).
 */
import { randomBytes } from "node:crypto";
import type { PanelKind } from "./protocol";

export function makeNonce(): string {
  return randomBytes(18).toString("base64").replace(/[+/=]/g, "");
}

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

export interface PanelPage {
  kind: PanelKind;
  title: string;
  /** webview.cspSource */
  cspSource: string;
  scriptUri: string;
  /**
   * The text of panels.css, put in the page: a stylesheet link was one more fetch through the
   * webview's service worker that the script waited for (bench/panels/README.md has the A/B).
   */
  stylesheet: string;
  nonce: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data: blob:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
}

export function panelHtml(p: PanelPage): string {
  const csp = contentSecurityPolicy(p.cspSource, p.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(p.title)}</title>
<style nonce="${p.nonce}">${p.stylesheet.replaceAll("</style", "<\\/style")}</style>
</head>
<body data-panel="${p.kind}">
<div id="app" role="main"><p class="loading">Loading…</p></div>
<script nonce="${p.nonce}" src="${escapeHtml(p.scriptUri)}"></script>
</body>
</html>`;
}
