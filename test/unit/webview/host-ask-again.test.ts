/**
 * A page that has loaded and got no data asks for it again (a message the extension posted before
 * the page was up did not reach it), once; a page that got its data does not.
 */
import assert from "node:assert/strict";
import { openWebview, webviewBundles, type WebviewUnderTest } from "./webview-dom";

describe("webview: a page without data asks again", function () {
  this.timeout(30_000);
  let t: WebviewUnderTest | undefined;
  before(async () => {
    await webviewBundles();
  });
  afterEach(async () => {
    await t?.close();
  });

  // Real time: happy-dom's settle() would run the page's pending timers at once.
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const readies = (w: WebviewUnderTest) =>
    w.sent.filter((m) => m.type === "ready").map((m) => (m.type === "ready" && m.again ? "again" : "ready"));

  it("asks again once, a while after its load, when nothing came", async () => {
    t = await openWebview("dashboard");
    t.window.dispatchEvent(new t.window.Event("load"));
    await sleep(500);
    assert.deepEqual(readies(t), ["ready"], "not at once: the queued data may still be on its way");
    await sleep(2000);
    assert.deepEqual(readies(t), ["ready", "again"]);
  });

  it("does not ask again when its data came", async () => {
    t = await openWebview("compare");
    t.window.dispatchEvent(new t.window.Event("load"));
    t.post({ type: "retarget", state: { kind: "compare", runDirs: ["/a", "/b"] } });
    await sleep(2500);
    assert.deepEqual(readies(t), ["ready"]);
  });
});
