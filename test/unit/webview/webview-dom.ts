/**
 * Runs a panel's real webview bundle (built with the same esbuild config as dist/webview) in a
 * happy-dom window, with a stand-in for VS Code's acquireVsCodeApi that records what the webview
 * posts. Tests post host messages to it and inspect the DOM it builds.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Window } from "happy-dom";
import { hostMessage, type HostMessage, type WebviewMessage } from "../../../src/extension/webview/protocol";

let bundles: Map<string, string> | undefined;

/** Builds the three panel bundles once per test process. */
export async function webviewBundles(): Promise<Map<string, string>> {
  if (bundles) return bundles;
  const dir = mkdtempSync(join(tmpdir(), "agent-lab-webview-"));
  try {
    const mod = (await import("../../../webview/build.mjs")) as {
      buildWebviews: (out: string, o?: { minify?: boolean }) => Promise<void>;
      PANELS: { kind: string; bundle: string }[];
    };
    await mod.buildWebviews(dir, { minify: false });
    bundles = new Map(mod.PANELS.map((p) => [p.kind, readFileSync(join(dir, `${p.bundle}.js`), "utf8")]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return bundles;
}

export interface WebviewUnderTest {
  window: Window;
  document: Window["document"];
  sent: WebviewMessage[];
  state: unknown;
  post(body: Parameters<typeof hostMessage>[0]): void;
  postRaw(message: unknown): void;
  /** Lets queued timers and animation frames run. */
  settle(ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function openWebview(
  kind: "trace" | "compare" | "dashboard" | "experiment" | "playground",
  savedState?: unknown,
): Promise<WebviewUnderTest> {
  const code = (await webviewBundles()).get(kind)!;
  const window = new Window({
    url: "https://webview.test/",
    width: 1200,
    height: 800,
    settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true },
  });
  const w = window as unknown as Record<string, unknown> & { HTMLElement: { prototype: Record<string, unknown> } };
  // happy-dom has no ElementInternals; the form-associated vscode-elements need only these.
  w.HTMLElement.prototype.attachInternals = function () {
    return {
      setFormValue() {},
      setValidity() {},
      form: null,
      validity: {},
      checkValidity: () => true,
      reportValidity: () => true,
      states: new Set(),
    };
  };
  const sent: WebviewMessage[] = [];
  const t: WebviewUnderTest = {
    window,
    document: window.document,
    sent,
    state: savedState,
    post: (body) => t.postRaw(hostMessage(body)),
    postRaw: (message) => window.dispatchEvent(new window.MessageEvent("message", { data: message as HostMessage })),
    settle: async (ms = 20) => {
      await new Promise((r) => setTimeout(r, ms));
      await window.happyDOM.waitUntilComplete();
    },
    close: async () => {
      await window.happyDOM.abort();
      window.close();
    },
  };
  w.acquireVsCodeApi = () => ({
    postMessage: (m: WebviewMessage) => sent.push(JSON.parse(JSON.stringify(m)) as WebviewMessage),
    setState: (s: unknown) => (t.state = s),
    getState: () => t.state,
  });
  window.document.write(
    `<!DOCTYPE html><html><head></head><body class="vscode-dark"><div id="app"></div></body></html>`,
  );
  window.eval(code);
  return t;
}

/** Untrusted strings that would run code or break out of an element if inserted as HTML. */
export const PAYLOADS = [
  `<script>window.__pwned = 1</script>`,
  `<img src=x onerror="window.__pwned = 2">`,
  `</textarea><svg onload="window.__pwned = 3">`,
  `"><iframe srcdoc="<script>parent.__pwned=4</script>">`,
  `</pre></details></div><b onmouseover="window.__pwned=5">bold</b>`,
  `{{constructor.constructor('window.__pwned=6')()}} \${alert(7)} javascript:alert(8)`,
];

/** Asserts the DOM holds nothing a payload could have created, and no payload ran. */
export function assertInert(t: WebviewUnderTest): void {
  const doc = t.document;
  for (const tag of ["script", "img", "iframe", "textarea", "b"]) {
    const found = doc.querySelectorAll(tag).length;
    if (found) throw new Error(`a <${tag}> element appeared in the webview (${found})`);
  }
  // The inline <svg> charts are ours; no element may carry an event-handler or code-loading attribute.
  for (const el of Array.from(doc.querySelectorAll("*"))) {
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on") || name === "srcdoc" || name === "src" || name === "href")
        throw new Error(`<${el.tagName.toLowerCase()}> has attribute ${name}="${attr.value}"`);
    }
  }
  if ((t.window as unknown as { __pwned?: unknown }).__pwned !== undefined) throw new Error("a payload ran");
}
