/**
 * The Compare panel's first Compare of large runs outlasts the page's "ready, again" (sent when no
 * data came 2 s after its load): the request still computing answers that page, table first and
 * then the whole report, instead of being dropped and started over (which doubled the wait).
 */
import { strict as assert } from "node:assert";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";
import { largeCompareRuns } from "./large-compare-runs";
import { ON_THREAD_MAX_BYTES } from "../../../src/core/steps/ablate/compare-off-thread";
import type { HostMessage } from "../../../src/extension/webview/protocol";

installFakeVscode();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("extension: the Compare panel answers a page that asked again with the request under way", function () {
  this.timeout(120_000);
  let root: string;
  let dirs: string[];

  before(function () {
    ({ root, dirs } = largeCompareRuns(this, "agent-lab-compare-again-"));
  });
  after(() => root && rmSync(root, { recursive: true, force: true }));

  it("posts the table, then the whole report, of its one request", async () => {
    const bytes = dirs.reduce((n, d) => n + statSync(join(d, "episodes.jsonl")).size, 0);
    assert.ok(bytes > ON_THREAD_MAX_BYTES, `large enough for the worker (${bytes} bytes)`);
    const { ComparePanel } = await import("../../../src/extension/compare/compare-panel");
    const f = fakePanel(true);
    const panel = new ComparePanel(f.panel as never, fakeContext as never, dirs, "runs", undefined, async () => {});
    try {
      await sleep(20);
      f.fromPage({ type: "ready" });
      f.fromPage({ type: "ready", again: true });
      const reports = () =>
        f.state.posted.filter(
          (m): m is Extract<HostMessage, { type: "compare/report" }> => m.type === "compare/report",
        );
      for (let i = 0; i < 1200 && !reports().some((m) => !m.intervalsPending); i++) await sleep(50);
      assert.deepEqual(
        reports().map((m) => m.intervalsPending === true),
        [true, false],
        "the table before its intervals, then the whole report",
      );
      assert.deepEqual(
        f.state.posted.filter((m) => m.type === "error"),
        [],
      );
    } finally {
      panel.dispose();
    }
  });
});
