/**
 * watchRunFiles without its poll (set to a minute): what fs.watch alone reports, in the two cases
 * where a job's views used to wait for the poll — a folder made after the watch began (the
 * pipeline lays out an empty workspace), and a file written faster than the events were coalesced.
 */
import { strict as assert } from "node:assert";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REGISTRY_FILE } from "../../../src/core/base/checkpoints/registry";
import { RUN_FILES } from "../../../src/core/base/runs/run-folder";
import { watchRunFiles } from "../../../src/extension/webview/folder-watch";

const NO_POLL_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `calls()` reaches `n`, or rejects after `ms`. */
async function until(calls: () => number, n: number, ms: number, what: string): Promise<void> {
  const start = Date.now();
  while (calls() < n) {
    if (Date.now() - start > ms) throw new Error(`${what}: ${calls()} call(s) in ${ms} ms`);
    await sleep(10);
  }
}

describe("extension: folder watch", () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), "agent-lab-folder-watch-"))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("a folder made after the watch began is watched from the first check that finds it", async () => {
    const dir = join(root, "runs");
    let calls = 0;
    const w = watchRunFiles(dir, [REGISTRY_FILE], () => calls++, NO_POLL_MS);
    try {
      mkdirSync(dir);
      w.check(); // a job moved on: the folder is there now, nothing in it yet
      assert.equal(calls, 0);
      appendFileSync(join(dir, REGISTRY_FILE), '{"name":"sft-e1"}\n');
      await until(() => calls, 1, 1000, "the first registration, with no check or poll after it");
      appendFileSync(join(dir, REGISTRY_FILE), '{"name":"grpo-s1"}\n');
      await until(() => calls, 2, 1000, "the second");
    } finally {
      w.dispose();
    }
  });

  it("a file written every 30 ms is reported while the writes go on, not only after they stop", async () => {
    let calls = 0;
    const w = watchRunFiles(root, [RUN_FILES.progress], () => calls++, NO_POLL_MS);
    try {
      for (let i = 0; i < 30; i++) {
        appendFileSync(join(root, RUN_FILES.progress), `${i}\n`);
        await sleep(30);
      }
      // 0.9 s of writes, looked at 150 ms after each burst began: several times (about 5) before they stopped.
      assert.ok(calls >= 2, `reported ${calls} time(s) during 0.9 s of writes`);
    } finally {
      w.dispose();
    }
  });

  it("a deleted and remade folder is watched again", async () => {
    const dir = join(root, "runs");
    mkdirSync(dir);
    let calls = 0;
    const w = watchRunFiles(dir, [REGISTRY_FILE], () => calls++, NO_POLL_MS);
    try {
      rmSync(dir, { recursive: true });
      await sleep(200); // the watch hears the folder go
      w.check();
      mkdirSync(dir);
      w.check();
      appendFileSync(join(dir, REGISTRY_FILE), '{"name":"sft-e1"}\n');
      await until(() => calls, 1, 1000, "a registration in the remade folder");
    } finally {
      w.dispose();
    }
  });
});
