/**
 * The Compare panel's first Compare of large runs outlasts the page's "ready, again" (sent when no
 * data came 2 s after its load): the request still computing answers that page, table first and
 * then the whole report, instead of being dropped and started over (which doubled the wait).
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeContext, fakePanel } from "./fake-panel";
import { installFakeVscode } from "./fake-vscode";
import { ON_THREAD_MAX_BYTES } from "../../../src/core/steps/ablate/compare-off-thread";
import { appendEpisode, ensureRunDir } from "../../../src/core/base/runs/run-files";
import { writeJsonAtomic } from "../../../src/core/base/util/atomic-write";
import type { HostMessage } from "../../../src/extension/webview/protocol";
import { requireSharedData } from "../../helpers/shared-data";
import { manifest, readDev, simulatedRun } from "../core/steps/ablate/fixtures";

installFakeVscode();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("extension: the Compare panel answers a page that asked again with the request under way", function () {
  this.timeout(120_000);
  let root: string;
  let dirs: string[];

  before(function () {
    const source = readDev(requireSharedData(this, "hotpotqa", "hotpotqa_distractor_dev_partial.jsonl"));
    const dev = Array.from({ length: 4000 }, (_, i) => ({
      ...source[i % source.length],
      id: `${source[i % source.length].id}-${i}`,
    }));
    root = mkdtempSync(join(tmpdir(), "agent-lab-compare-again-"));
    dirs = [join(root, "base"), join(root, "other")];
    dirs.forEach((dir, k) => {
      ensureRunDir(dir);
      for (const e of simulatedRun(dev, k === 0 ? [0.4, 0.2, 0.3] : [0.5, 0.2, 0.2], 7 + k)) appendEpisode(dir, e);
      writeJsonAtomic(join(dir, "manifest.json"), manifest({ topK: k === 0 ? 5 : 10 }));
    });
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
