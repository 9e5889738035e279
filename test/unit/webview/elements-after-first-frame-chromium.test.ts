/// <reference lib="dom" />
/**
 * The panels define their @vscode-elements controls after the first frame with data (host.ts's
 * loadElements): the data is drawn with the tags still plain elements, the filters read the state
 * they were made with, and the controls upgrade in place. Real episodes of the synthetic world.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { offlineTokenizer } from "../../../src/core/base/chat/offline-tokenizer";
import { generateSyntheticHotpot } from "../../../src/core/envs/hotpotqa/synthetic-world";
import type { EpisodeRecord } from "../../../src/core/base/runs/run-files";
import { hostMessage } from "../../../src/extension/webview/protocol";
import { episodeRows } from "../../../src/extension/trace/trace-panel-rows";
import { realEpisode, type HotpotRow } from "../core/views/trace/real-episodes";
import { cspViolations, launch, openPanelPage, type PanelPage } from "./chromium-page";

const defined = (p: PanelPage) =>
  p.page.evaluate(() => ["vscode-button", "vscode-checkbox"].map((tag) => customElements.get(tag) !== undefined));

async function definedWithin(p: PanelPage, ms: number): Promise<boolean> {
  for (const start = Date.now(); Date.now() - start < ms; await new Promise((r) => setTimeout(r, 20))) {
    if ((await defined(p)).every(Boolean)) return true;
  }
  return false;
}

describe("webview: controls defined after the first frame (Chromium)", function () {
  this.timeout(60_000);
  let browser: Browser;
  let episodes: EpisodeRecord[];

  before(async function () {
    browser = await launch(this);
    const tok = await offlineTokenizer("qwen3");
    const rows = generateSyntheticHotpot({ seed: 5, train: 0, dev: 3 }).dev as unknown as HotpotRow[];
    // One right, one wrong, one with no answer: three outcomes for the filters.
    episodes = [
      await realEpisode(tok, rows[0], [`<answer>${rows[0].answer}</answer>`]),
      await realEpisode(tok, rows[1], ["<answer>nobody</answer>"]),
      await realEpisode(tok, rows[2], ["I cannot say."]),
    ];
  });
  after(async () => {
    await browser?.close();
  });

  it("draws the list with plain tags, keeps every outcome the filters were made with, then upgrades them in place", async () => {
    const p = await openPanelPage(browser, "trace");
    assert.deepEqual(await defined(p), [false, false], "nothing defined before the first data");
    await p.postTimed(
      hostMessage({
        type: "trace/run",
        run: { runDir: "/r", name: "three", rows: episodeRows(episodes), total: 3, gold: null },
      }),
    );
    assert.equal(await p.page.evaluate(() => document.getElementById("count")!.textContent), "3 of 3 episodes");
    assert.ok(await definedWithin(p, 2000), "the controls are defined after the frame");
    const upgraded = await p.page.evaluate(() =>
      Array.from(document.querySelectorAll(".outcome-filter")).map(
        (b) => (b as unknown as { checked: boolean }).checked === true && b.shadowRoot !== null,
      ),
    );
    assert.ok(upgraded.length > 0 && upgraded.every(Boolean), "each filter upgraded, still checked");
    // An upgraded filter works: "wrong" off leaves two.
    await p.page.click(".outcome-filter.outcome-wrong");
    assert.equal(await p.page.evaluate(() => document.getElementById("count")!.textContent), "2 of 3 episodes");
    assert.deepEqual(p.errors, []);
    assert.deepEqual(await cspViolations(p), []);
  });

  it("a page that gets no data still gets its controls", async () => {
    const p = await openPanelPage(browser, "dashboard");
    assert.ok(await definedWithin(p, 3000));
    assert.deepEqual(p.errors, []);
  });
});
