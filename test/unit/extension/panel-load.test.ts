/**
 * A panel whose page never says "ready" (its script request failed, as with the two
 * ERR_NAME_NOT_RESOLVED errors of a webview whose first load raced VS Code's resource worker) gets
 * its page again with a fresh nonce while visible, a bounded number of times; once ready, never
 * again; a hidden panel waits until it is shown; options are not set again on a created panel.
 */
import { strict as assert } from "node:assert";
import { installFakeVscode } from "./fake-vscode";

installFakeVscode();

type Listener = (e: unknown) => void;

function fakePanel(visible: boolean) {
  const listeners = { message: [] as Listener[], dispose: [] as Listener[], view: [] as Listener[] };
  const state = { html: [] as string[], optionsSet: 0, visible };
  const webview = {
    cspSource: "https://webview.test",
    asWebviewUri: (u: { fsPath: string }) => ({ toString: () => `https://webview.test${u.fsPath}` }),
    postMessage: async () => true,
    onDidReceiveMessage: (l: Listener) => (listeners.message.push(l), { dispose() {} }),
    set html(v: string) {
      state.html.push(v);
    },
    set options(_v: unknown) {
      state.optionsSet++;
    },
  };
  const panel = {
    webview,
    title: "",
    get visible() {
      return state.visible;
    },
    onDidDispose: (l: Listener) => (listeners.dispose.push(l), { dispose() {} }),
    onDidChangeViewState: (l: Listener) => (listeners.view.push(l), { dispose() {} }),
    reveal() {},
    dispose() {},
  };
  return { panel, state, listeners };
}

const nonceOf = (html: string) => /nonce="([^"]+)"/.exec(html)?.[1];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("extension: a panel reloads a page whose script never came up", () => {
  // Loaded after the stand-in vscode is installed.
  let Panel: typeof import("../../../src/extension/panels/panel-base").Panel;
  let MAX_LOADS: number;
  before(async () => {
    ({ Panel, MAX_LOADS } = await import("../../../src/extension/panels/panel-base"));
  });

  function make(visible: boolean, timeoutMs = 40) {
    const f = fakePanel(visible);
    class TestPanel extends Panel {
      protected static override loadTimeoutMs = timeoutMs;
      protected async onMessage(): Promise<void> {}
    }
    const context = { extensionUri: { fsPath: "/ext" } };
    const p = new TestPanel(f.panel as never, context as never, { kind: "compare", runDirs: ["/a", "/b"] }, "Compare");
    const ready = () => f.listeners.message.forEach((l) => l({ v: 1, type: "ready" }));
    return { ...f, p, ready };
  }

  it("sets the page again with a fresh nonce until ready, at most MAX_LOADS times", async () => {
    const t = make(true);
    assert.equal(t.state.optionsSet, 0, "options come from createWebviewPanel, not set again");
    assert.equal(t.state.html.length, 1);
    await sleep(300);
    assert.equal(t.state.html.length, MAX_LOADS, "retried, then left alone");
    assert.equal(new Set(t.state.html.map(nonceOf)).size, MAX_LOADS, "a fresh nonce each time");
    assert.match(t.state.html[0], /<script nonce="[^"]+" src="https:\/\/webview\.test\/ext\/dist\/webview\/compare\.js"><\/script>/);
    assert.equal(t.p.hostTimings.loads, MAX_LOADS);
    t.p.dispose();
  });

  it("stops checking once the page is ready", async () => {
    const t = make(true);
    t.ready();
    await sleep(150);
    assert.equal(t.state.html.length, 1);
    t.p.dispose();
  });

  it("a hidden panel is not reloaded until it is shown", async () => {
    const t = make(false, 250);
    await sleep(400);
    assert.equal(t.state.html.length, 1, "hidden: the webview need not load yet");
    t.state.visible = true;
    t.listeners.view.forEach((l) => l({}));
    for (let i = 0; i < 200 && t.state.html.length < 2; i++) await sleep(10);
    assert.equal(t.state.html.length, 2, "shown and still not ready: loaded again");
    t.ready();
    await sleep(400);
    assert.equal(t.state.html.length, 2, "ready: no further load");
    t.p.dispose();
  });
});
