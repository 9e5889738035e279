/**
 * A Compare panel whose runs cannot be compared (e.g. two environments) gets an error instead of a
 * report: the page shows it once, in place of "Loading…", and does not ask again for data (which
 * had the extension post the same error a second time).
 */
import assert from "node:assert/strict";
import { openWebview, webviewBundles, type WebviewUnderTest } from "./webview-dom";

describe("webview: an error instead of the first data", function () {
  this.timeout(30_000);
  let t: WebviewUnderTest | undefined;
  before(async () => {
    await webviewBundles();
  });
  afterEach(async () => {
    await t?.close();
  });

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const message = "cannot pair a (gsm8k v1) with b (hotpotqa v1): runs of different environments are not comparable";

  it("replaces Loading…, is shown once, and the page does not ask again", async () => {
    t = await openWebview("compare");
    t.window.dispatchEvent(new t.window.Event("load"));
    t.post({ type: "error", message });
    await sleep(2500);
    assert.deepEqual(
      t.sent.filter((m) => m.type === "ready").map((m) => m.type === "ready" && (m.again ?? false)),
      [false],
      "no second ready: the error was the answer",
    );
    assert.deepEqual(
      Array.from(t.document.querySelectorAll("#errors .error")).map((e) => e.textContent),
      [message],
    );
    assert.equal(t.document.querySelector(".loading"), null, "not stuck on Loading…");
  });

  it("after a retarget to runs that cannot be compared: the new Loading… goes too", async () => {
    t = await openWebview("compare");
    t.post({ type: "retarget", state: { kind: "compare", runDirs: ["/a", "/b"] } });
    assert.ok(t.document.querySelector("#app > .loading"));
    t.post({ type: "error", message });
    assert.equal(t.document.querySelector(".loading"), null);
    assert.equal(t.document.querySelectorAll("#errors .error").length, 1);
  });
});
