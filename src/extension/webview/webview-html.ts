/**
 * The HTML shell every panel loads: no content of its own (all data arrives as messages and is
 * inserted as text), the panel's bundled script and the panels' stylesheet inside the page, and a
 * strict Content-Security-Policy — nothing remote, the script and the style element only with this
 * page's nonce, no inline handlers, images only from the extension, data: or blob: (chart PNG export).
 *
 * The script is in the page, not linked: a linked bundle was one more fetch through VS Code's
 * webview service worker before the panel's first line could run (bench/panels/README.md has the
 * A/B). webview/build.mjs checks that no bundle holds text that would end a script element early.
 */
import { randomBytes } from "node:crypto";
import type { PanelKind } from "./protocol";
import type { ViewKind } from "./views";

export function makeNonce(): string {
  return randomBytes(18).toString("base64").replace(/[+/=]/g, "");
}

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

export interface PanelPage {
  /** An editor panel's kind, or a sidebar view's (views.json). */
  kind: PanelKind | ViewKind;
  title: string;
  /** webview.cspSource */
  cspSource: string;
  /** The panel's bundle (dist/webview/<kind>.js), or the path of the one that is missing. */
  script: string | { missing: string };
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

/** Text put inside a <script> or <style> element, with any closing tag of it made inert. */
function insideElement(text: string, element: "script" | "style"): string {
  return text.replace(new RegExp(`</(${element})`, "gi"), "<\\/$1"); // the name's case kept: it may be a string's text
}

/** The page's content: the loading line and the script, or what to do about a missing bundle. */
function pageBody(p: PanelPage): string {
  if (typeof p.script !== "string") {
    return `<div id="app" role="main"><p class="error">Agent Lab's ${escapeHtml(p.script.missing)} is missing: run npm run build in the extension's folder, then reopen the panel.</p></div>`;
  }
  return `<div id="app" role="main"><p class="loading">Loading…</p></div>
<script nonce="${p.nonce}">${insideElement(p.script, "script")}</script>`;
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
<style nonce="${p.nonce}">${insideElement(p.stylesheet, "style")}</style>
</head>
<body data-panel="${p.kind}">
${pageBody(p)}
</body>
</html>`;
}
