/**
 * A panel whose page never says "ready" (as a linked script request that raced VS Code's resource
 * worker once did, with ERR_NAME_NOT_RESOLVED) gets its page again with a fresh nonce while
 * visible, a bounded number of times; once ready, never again; a hidden panel waits until it is
 * shown; the page holds the bundle as it is on disk; options are not set again on a created
 * panel; a panel's first data goes out before "ready", and again only to a page loaded since.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";

installFakeVscode();

const nonceOf = (html: string) => /nonce="([^"]+)"/.exec(html)?.[1];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("extension: a panel reloads a page whose script never came up", () => {
  // Loaded after the stand-in vscode is installed.
  let Panel: typeof import("../../../src/extension/webview/panel-base").Panel;
  let MAX_LOADS: number;
  before(async () => {
    ({ Panel, MAX_LOADS } = await import("../../../src/extension/webview/panel-base"));
  });

  // An extension folder with a built compare bundle (the fake one at /ext has none).
  let extension: string;
  const bundle = () => join(extension, "dist", "webview", "compare.js");
  before(() => {
    extension = mkdtempSync(join(tmpdir(), "agent-lab-ext-"));
    mkdirSync(dirname(bundle()), { recursive: true });
  });
  after(() => rmSync(extension, { recursive: true, force: true }));

  function make(
    visible: boolean,
    timeoutMs = 40,
    context: { extensionUri: { fsPath: string } } = { extensionUri: { fsPath: extension } },
  ) {
    const f = fakePanel(visible);
    class TestPanel extends Panel {
      protected static override loadTimeoutMs = timeoutMs;
      protected async onMessage(): Promise<void> {}
    }
    const p = new TestPanel(f.panel as never, context as never, { kind: "compare", runDirs: ["/a", "/b"] }, "Compare");
    const ready = () => f.fromPage({ type: "ready" });
    return { ...f, p, ready };
  }

  it("sets the page again with a fresh nonce until ready, at most MAX_LOADS times", async () => {
    writeFileSync(bundle(), 'document.title = "one";');
    const t = make(true);
    assert.equal(t.state.optionsSet, 0, "options come from createWebviewPanel, not set again");
    assert.equal(t.state.html.length, 1);
    await sleep(300);
    assert.equal(t.state.html.length, MAX_LOADS, "retried, then left alone");
    assert.equal(new Set(t.state.html.map(nonceOf)).size, MAX_LOADS, "a fresh nonce each time");
    assert.match(
      t.state.html[0],
      /<script nonce="[^"]+">document.title = "one";<\/script>/,
      "the bundle is in the page",
    );
    assert.equal(t.p.hostTimings.loads, MAX_LOADS);
    t.p.dispose();
  });

  it("puts a rebuilt bundle in the next page, and says which bundle is missing without one", async () => {
    writeFileSync(bundle(), 'document.title = "one";');
    const t = make(true, 1000);
    t.ready();
    writeFileSync(bundle(), 'document.title = "two, rebuilt";');
    const again = make(true, 1000);
    again.ready();
    assert.match(t.state.html[0], /"one"/);
    assert.match(again.state.html[0], /"two, rebuilt"/);
    const none = make(true, 1000, fakeContext);
    none.ready();
    assert.match(
      none.state.html[0],
      /<p class="error">Agent Lab's dist\/webview\/compare.js is missing: run npm run build in the extension's folder, then reopen the panel.<\/p>/,
    );
    for (const x of [t, again, none]) x.p.dispose();
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

  it("posts its first data before the page is ready, and again on ready only after a reload", async () => {
    const f = fakePanel(true);
    let sends = 0;
    class EarlyPanel extends Panel {
      protected static override loadTimeoutMs = 40;
      constructor() {
        super(f.panel as never, fakeContext as never, { kind: "compare", runDirs: ["/a", "/b"] }, "Compare");
        this.postFirstSoon(() => this.send());
      }
      private send(): void {
        sends++;
        this.post({ type: "error", message: `data ${sends}` });
      }
      protected async onMessage(m: { type: string }): Promise<void> {
        if (m.type === "ready") this.postFirst(() => this.send());
      }
    }
    const p = new EarlyPanel();
    assert.equal(sends, 0, "not inside the constructor: the HTML goes out first");
    await sleep(5);
    assert.equal(sends, 1, "posted before any ready (VS Code queues it for the page)");
    for (let i = 0; i < 100 && f.state.html.length < 2; i++) await sleep(5);
    assert.equal(f.state.html.length, 2, "the page never said ready: loaded again");
    f.fromPage({ type: "ready" });
    await sleep(5);
    assert.equal(sends, 2, "the reloaded page lost the queued message: posted again");
    f.fromPage({ type: "ready" });
    await sleep(5);
    assert.equal(sends, 2, "this page has it: not posted again");
    p.dispose();
  });

  it("posts the early data again when the loaded page says it has none; data posted after ready is not", async () => {
    const f = fakePanel(true);
    let sends = 0;
    class EarlyPanel extends Panel {
      constructor(early: boolean) {
        super(f.panel as never, fakeContext as never, { kind: "compare", runDirs: ["/a", "/b"] }, "Compare");
        if (early) this.postFirstSoon(() => sends++);
      }
      protected async onMessage(m: { type: string }): Promise<void> {
        if (m.type === "ready") this.postFirst(() => sends++);
      }
    }
    const p = new EarlyPanel(true);
    await sleep(5);
    f.fromPage({ type: "ready" });
    await sleep(5);
    assert.equal(sends, 1);
    f.fromPage({ type: "ready", again: true });
    await sleep(5);
    assert.equal(sends, 2, "the early post was lost: posted again");
    p.dispose();
    sends = 0;
    const late = new EarlyPanel(false);
    f.fromPage({ type: "ready" });
    f.fromPage({ type: "ready", again: true });
    await sleep(5);
    assert.equal(sends, 1, "posted in answer to ready: it is on its way, not posted twice");
    late.dispose();
  });
});
