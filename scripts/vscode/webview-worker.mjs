// Which service-worker URL the test host's webviews register. VS Code 1.100's web build (the one in
// code-server 4.100.3, the newest that runs on Node 20) puts each webview's id in that URL
// (webview/browser/pre/index.html). code-server serves every webview from one origin, so each
// webview after the window's first registers a new worker over the last one and waits for it to
// take control: about a second per new panel on this machine, whatever the page holds (bench/panels
// README). Later VS Code releases register the worker without the id (code-server 4.139's page), and
// desktop VS Code gives each webview an origin of its own, so neither waits.
//
// "fixed" (the default) makes that one change in the installed page, and recomputes the hash its
// Content-Security-Policy allows the page's inline script by; "as-shipped" puts the page back as
// installed (kept beside it as index.html.shipped). The integration suite and the screenshots run
// on "fixed"; bench/panels measures both.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export const WEBVIEW_WORKER_MODES = ["fixed", "as-shipped"];

const PAGE = ["lib", "vscode", "out", "vs", "workbench", "contrib", "webview", "browser", "pre", "index.html"];
const WITH_ID = "&id=${ID}&remoteAuthority=";
const WITHOUT_ID = "&remoteAuthority=";
const INLINE_SCRIPT = /<script async type="module">([\s\S]*?)<\/script>/;
const SCRIPT_HASH = /script-src 'sha256-[A-Za-z0-9+/=]+'/;

/** The installed webview page, and where its bytes as shipped are kept once it has been changed. */
export function webviewPage(codeServerDir) {
  const page = path.join(codeServerDir, ...PAGE);
  return { page, shipped: `${page}.shipped` };
}

/** Writes the webview page for `mode` into the code-server install at `codeServerDir`. */
export function useWebviewWorker(codeServerDir, mode) {
  if (!WEBVIEW_WORKER_MODES.includes(mode))
    throw new Error(`webview worker mode "${mode}": use one of ${WEBVIEW_WORKER_MODES.join(", ")}`);
  const { page, shipped } = webviewPage(codeServerDir);
  if (!existsSync(shipped)) copyFileSync(page, shipped);
  const original = readFileSync(shipped, "utf8");
  writeFileSync(page, mode === "as-shipped" ? original : withoutWebviewId(original, shipped));
}

/** The page with the id taken out of the worker's URL and the inline script's hash made anew. */
export function withoutWebviewId(html, where = "the webview page") {
  const script = INLINE_SCRIPT.exec(html);
  // The hash found must be the inline script's own: then the one recomputed below is the one VS Code would ship.
  if (html.split(WITH_ID).length !== 2 || !script || SCRIPT_HASH.exec(html)?.[0] !== cspFor(script[1])) {
    throw new Error(
      `${where}: not the VS Code 1.100 page this change is for (one "${WITH_ID}" and the inline module script's hash in its CSP); update scripts/vscode/webview-worker.mjs`,
    );
  }
  const fixed = html.replace(WITH_ID, WITHOUT_ID);
  return fixed.replace(SCRIPT_HASH, cspFor(INLINE_SCRIPT.exec(fixed)[1]));
}

const cspFor = (script) => `script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`;
