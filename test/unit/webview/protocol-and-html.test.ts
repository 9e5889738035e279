/**
 * The message protocol's version and type checks, the panel HTML's CSP (a fresh nonce on every
 * script and stylesheet, nothing remote, no inline handlers, escaped title), and a scan of the
 * webview sources for the HTML sinks they must never use.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  hostMessage,
  parseHostMessage,
  parseWebviewMessage,
  PROTOCOL_VERSION,
  ProtocolError,
  webviewMessage,
} from "../../../src/extension/webview/protocol";
import { contentSecurityPolicy, escapeHtml, makeNonce, panelHtml } from "../../../src/extension/webview/webview-html";
import { PAYLOADS } from "./webview-dom";
import { checkInlineSafe } from "../../../webview/build.mjs";

describe("webview: protocol and HTML shell", () => {
  it("stamps the protocol version and accepts only known types of this version", () => {
    const m = webviewMessage({ type: "trace/select", episodeId: "x" });
    assert.deepEqual(m, { v: PROTOCOL_VERSION, type: "trace/select", episodeId: "x" });
    assert.equal(parseWebviewMessage(m), m);
    assert.equal(hostMessage({ type: "error", message: "e" }).v, PROTOCOL_VERSION);
    assert.throws(
      () => parseWebviewMessage({ ...m, v: PROTOCOL_VERSION + 1 }),
      (e: Error) =>
        e instanceof ProtocolError &&
        new RegExp(`protocol version ${PROTOCOL_VERSION + 1}.*reload the window`).test(e.message),
    );
    assert.throws(() => parseWebviewMessage({ type: "ready" }), /protocol version undefined/);
    assert.throws(
      () => parseWebviewMessage({ v: PROTOCOL_VERSION, type: "trace/episode" }),
      /unknown message type "trace\/episode"/,
      "a host type is not a webview type",
    );
    assert.throws(() => parseHostMessage({ v: PROTOCOL_VERSION, type: "ready" }), /unknown message type "ready"/);
    assert.throws(() => parseHostMessage("ready"), /not an object/);
    assert.throws(() => parseHostMessage(null), /not an object/);
  });

  it("builds HTML with a strict CSP and a nonce on every script and stylesheet", () => {
    const nonce = makeNonce();
    // A stylesheet that tries to close its element: it stays inside it.
    const stylesheet = "body { color: red } </style><b>out</b>";
    // So does a script that tries to close its own (in any case).
    const script = 'console.log("</script><b>out</b>", "</SCRIPT >");';
    const html = panelHtml({
      kind: "trace",
      title: `Trace ${PAYLOADS[0]}`,
      cspSource: "https://file+.vscode-resource.vscode-cdn.net",
      script,
      stylesheet,
      nonce,
    });
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)![1].replace(/&#39;/g, "'");
    assert.equal(csp, contentSecurityPolicy("https://file+.vscode-resource.vscode-cdn.net", nonce));
    assert.match(csp, /^default-src 'none'; /);
    assert.match(csp, new RegExp(`script-src 'nonce-${nonce}'$`));
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:\/\/(?!file\+)/);
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)];
    assert.equal(scripts.length, 1);
    for (const [, attrs] of scripts) assert.match(attrs, new RegExp(`nonce="${nonce}"`));
    const styles = [...html.matchAll(/<style\b([^>]*)>/g)];
    assert.deepEqual(
      styles.map(([, attrs]) => attrs),
      [` nonce="${nonce}"`],
    );
    assert.equal(html.match(/<\/style/g)!.length, 1, "the stylesheet's own </style is escaped");
    assert.equal(html.match(/<\/script/gi)!.length, 1, "the script's own </script is escaped");
    assert.ok(
      html.includes(`<script nonce="${nonce}">console.log("<\\/script><b>out</b>", "<\\/SCRIPT >");</script>`),
      "the script is in the page, escaped only there",
    );
    assert.doesNotMatch(html, /\son[a-z]+=/i, "no inline event handlers");
    assert.doesNotMatch(html, /<script>window/, "the title payload is escaped");
    assert.match(html, /<title>Trace &lt;script&gt;window.__pwned = 1&lt;\/script&gt;<\/title>/);
    assert.notEqual(makeNonce(), makeNonce());
    assert.match(nonce, /^[A-Za-z0-9]{20,}$/);
  });

  it("says which bundle is missing and what to do, instead of a page that stays on Loading…", () => {
    const html = panelHtml({
      kind: "compare",
      title: "Compare",
      cspSource: "https://x",
      script: { missing: "dist/webview/compare.js" },
      stylesheet: "",
      nonce: makeNonce(),
    });
    assert.doesNotMatch(html, /<script/);
    assert.match(
      html,
      /<p class="error">Agent Lab's dist\/webview\/compare.js is missing: run npm run build in the extension's folder, then reopen the panel.<\/p>/,
    );
  });

  it("fails the build of a bundle holding what would keep the page's script element open", () => {
    const dir = mkdtempSync(join(tmpdir(), "agent-lab-inline-"));
    try {
      const file = join(dir, "trace.js");
      writeFileSync(file, 'const ok = "</script>";\nconst a = "<!--", b = "<SCRIPT>";\n');
      assert.throws(() => checkInlineSafe(file), {
        message: `${file}:2: holds "<!--", which would break the page's inline script; write it another way (e.g. "<" + "!--")`,
      });
      writeFileSync(file, 'const ok = "</script>";\n');
      checkInlineSafe(file); // the end tag alone is escaped in the page
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("escapes every HTML-significant character", () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });

  it("webview sources never use an HTML sink", () => {
    const root = join(__dirname, "..", "..", "..", "webview");
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name.endsWith(".ts")) files.push(p);
      }
    };
    walk(root);
    assert.ok(files.length >= 6);
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      assert.doesNotMatch(
        text,
        /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|new Function|\beval\(/,
        f,
      );
    }
  });
});
