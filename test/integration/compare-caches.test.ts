/**
 * Runs without Compare caches (an earlier build's, or copied in) are given them off the extension
 * host's thread, as the window does a while after it opens (keep-compare-caches.ts), here through
 * the bundled worker in the real VS Code: on a copy of the fixture's eval run with its cache
 * removed; a copy whose eval is still running is left alone.
 */
import * as assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentLabApi } from "../../src/extension/extension";
import { runFile } from "../../src/core/base/runs/run-folder";
import { activeExports, workspaceDir } from "./helpers";

describe("Compare caches for runs that miss them (real VS Code)", () => {
  it("a finished eval run without a cache gets one off the thread; a running one does not", async () => {
    const lab = await activeExports<AgentLabApi>();
    const runs = join(workspaceDir(), "runs");
    const copied = join(runs, "heuristic-no-cache");
    const running = join(runs, "heuristic-still-running");
    try {
      for (const copy of [copied, running]) {
        cpSync(join(runs, "heuristic"), copy, { recursive: true });
        rmSync(runFile(copy, "compareCache"), { force: true });
      }
      const summary = JSON.parse(readFileSync(runFile(running, "summary"), "utf8")) as { status: string };
      writeFileSync(runFile(running, "summary"), JSON.stringify({ ...summary, status: "running" }));

      const kept = await lab.keepCompareCaches(0); // 0: the fixture's runs are small
      assert.ok(kept.includes("heuristic-no-cache"), `kept: ${kept.join(", ")}`);
      assert.ok(!kept.includes("heuristic-still-running"), `kept: ${kept.join(", ")}`);
      assert.ok(existsSync(runFile(copied, "compareCache")), "the copy's cache written");
      assert.ok(!existsSync(runFile(running, "compareCache")), "nothing written for the running eval");
      assert.deepEqual(await lab.keepCompareCaches(0), [], "a second pass finds nothing missing");
    } finally {
      for (const copy of [copied, running]) rmSync(copy, { recursive: true, force: true });
    }
  });
});
