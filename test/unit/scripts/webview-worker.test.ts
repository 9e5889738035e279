import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
// @ts-expect-error: a plain .mjs script of the test harness, without types
import { useWebviewWorker, webviewPage, withoutWebviewId } from "../../../scripts/vscode/webview-worker.mjs";

const sha = (s: string) => createHash("sha256").update(s).digest("base64");
/** A page shaped like VS Code 1.100's webview host page: its CSP allows its inline script by hash. */
function page(script: string, hash = sha(script)): string {
  return `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-${hash}' 'self';">\n<script async type="module">${script}</script>\n`;
}
const SCRIPT =
  "const swPath = encodeURI(`service-worker.js?v=4&vscode-resource-base-authority=x&id=${ID}&remoteAuthority=${r}`);";

describe("scripts/vscode/webview-worker: the test host's webview service-worker URL", () => {
  it("takes the webview's id out of the worker's URL and allows the changed script by its new hash", () => {
    const fixed: string = withoutWebviewId(page(SCRIPT));
    const script = SCRIPT.replace("&id=${ID}", "");
    assert.equal(fixed, page(script));
  });

  it("refuses a page it was not written for, naming the file: no id in the URL, or a hash that is not the script's", () => {
    const message =
      /^Error: x\/index\.html: not the VS Code 1\.100 page this change is for .*update scripts\/vscode\/webview-worker\.mjs$/;
    assert.throws(() => withoutWebviewId(withoutWebviewId(page(SCRIPT)), "x/index.html"), message);
    assert.throws(() => withoutWebviewId(page(SCRIPT, sha("another script")), "x/index.html"), message);
  });

  const installed = webviewPage(join(__dirname, "..", "..", "..", "vscode-host", "node_modules", "code-server")) as {
    page: string;
    shipped: string;
  };
  it("switches an installed code-server's page between fixed and as shipped, the shipped bytes kept", function () {
    if (!existsSync(installed.page)) return this.skip(); // VS Code not installed here (npm run setup:vscode)
    const copy = mkdtempSync(join(tmpdir(), "agent-lab-webview-"));
    try {
      // Until a VS Code run has changed it, the installed page is still as shipped.
      const shipped = readFileSync(existsSync(installed.shipped) ? installed.shipped : installed.page, "utf8");
      const page = webviewPage(copy).page as string;
      mkdirSync(dirname(page), { recursive: true });
      writeFileSync(page, shipped);
      useWebviewWorker(copy, "fixed");
      const fixed = readFileSync(page, "utf8");
      assert.ok(shipped.includes("&id=${ID}&remoteAuthority=") && !fixed.includes("&id=${ID}"));
      useWebviewWorker(copy, "as-shipped");
      assert.equal(readFileSync(page, "utf8"), shipped);
      assert.throws(
        () => useWebviewWorker(copy, "patched"),
        /^Error: webview worker mode "patched": use one of fixed, as-shipped$/,
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
