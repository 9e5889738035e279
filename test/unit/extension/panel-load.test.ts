/**
 * A panel whose page never says "ready" (its script request failed, as with the two
 * ERR_NAME_NOT_RESOLVED errors of a webview whose first load raced VS Code's resource worker) gets
 * its page again with a fresh nonce while visible, a bounded number of times; once ready, never
 * again; a hidden panel waits until it is shown; options are not set again on a created panel;
 * a panel's first data goes out before "ready", and again only to a page loaded since.
 */
import { strict as assert } from "node:assert";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";

installFakeVscode();

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
    const p = new TestPanel(f.panel as never, fakeContext as never, { kind: "compare", runDirs: ["/a", "/b"] }, "Compare");
    const ready = () => f.fromPage({ type: "ready" });
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
