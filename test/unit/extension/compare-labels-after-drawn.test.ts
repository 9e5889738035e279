/**
 * The Compare panel's failure labels wait for the page to draw the report: labelling two
 * 10,000-episode runs decodes every episode's text (2.5-5 s of CPU), and from the report on it ran
 * beside VS Code's start of a new webview and the page's first frame, on the same cores. The page
 * says "compare/drawn" after the frame with a whole report (not after a table whose intervals are
 * still running); the host starts the labels then.
 */
import { strict as assert } from "node:assert";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";
import { largeCompareRuns } from "./large-compare-runs";
import { ON_THREAD_MAX_BYTES } from "../../../src/core/steps/ablate/compare-off-thread";
import { compareView } from "../../../src/core/steps/ablate/compare-setup";
import { ResampleMemo } from "../../../src/core/base/stats/resample-memo";
import type { HostMessage } from "../../../src/extension/webview/protocol";
import { fakeManifest, fakeRecord } from "../core/base/runs/fakes";
import { openWebview, webviewBundles } from "../webview/webview-dom";

installFakeVscode();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("extension: the Compare panel's failure labels start once the page has drawn the report", function () {
  this.timeout(120_000);
  let root: string;
  let dirs: string[];

  before(function () {
    ({ root, dirs } = largeCompareRuns(this, "agent-lab-compare-drawn-"));
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("host: no labeller until the page's compare/drawn, then the labels", async () => {
    const bytes = dirs.reduce((n, d) => n + statSync(join(d, "episodes.jsonl")).size, 0);
    assert.ok(bytes > ON_THREAD_MAX_BYTES, `large enough for the workers (${bytes} bytes)`);
    const { ComparePanel } = await import("../../../src/extension/compare/compare-panel");
    const f = fakePanel(true);
    const panel = new ComparePanel(f.panel as never, fakeContext as never, dirs, "runs", undefined, async () => {});
    try {
      await sleep(20);
      f.fromPage({ type: "ready" });
      const whole = () =>
        f.state.posted.some((m) => m.type === "compare/report" && !(m as { intervalsPending?: true }).intervalsPending);
      for (let i = 0; i < 1200 && !whole(); i++) await sleep(50);
      assert.ok(whole(), "the whole report");
      await sleep(1500);
      const labels = () =>
        f.state.posted.filter(
          (m: HostMessage) =>
            m.type === "compare/failures" || (m.type === "error" && m.message.startsWith("failure labels")),
        );
      assert.equal(panel.hostTimings.labelsMs, undefined, "no labeller started before the page drew the report");
      assert.deepEqual(labels(), []);
      f.fromPage({ type: "compare/drawn" });
      for (let i = 0; i < 1200 && labels().length === 0; i++) await sleep(50);
      assert.ok(panel.hostTimings.labelsMs !== undefined, "the labeller started");
      assert.deepEqual(
        labels().map((m) => m.type),
        ["compare/failures"],
      );
    } finally {
      panel.dispose();
    }
  });

  it("page: compare/drawn after the frame with a whole report, not after a table whose intervals are running", async () => {
    await webviewBundles();
    const runs = ["a", "b"].map((name, k) => ({
      name,
      dir: `/runs/${name}`,
      manifest: fakeManifest(),
      episodes: Array.from({ length: 30 }, (_, i) => fakeRecord(`q${i}`, { em: (i + k) % 2, f1: (i + k) % 2 })),
    }));
    const table = compareView(runs, "runs", undefined, [], new ResampleMemo().rememberedOnly());
    const whole = compareView(runs, "runs", undefined, []);
    const t = await openWebview("compare");
    try {
      const drawn = () => t.sent.filter((m) => m.type === "compare/drawn").length;
      t.post({ type: "compare/report", ...table, intervalsPending: true });
      await t.settle(100);
      assert.equal(drawn(), 0, "not after the table without intervals");
      t.post({ type: "compare/report", ...whole });
      await t.settle(100);
      assert.equal(drawn(), 1, "after the whole report's frame");
    } finally {
      await t.close();
    }
  });
});
