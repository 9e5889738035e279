/**
 * The one atomic write: the target is replaced only by the rename, the temp file lives beside it,
 * and every call gets its own temp name.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { atomicTempPath, writeFileAtomic, writeJsonAtomic } from "../../../../../src/core/base/util/atomic-write";

// The module calls fs.renameSync through the CommonJS module object, so swapping it here is seen there.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require("node:fs") as typeof import("node:fs");

/** Runs `body` with renameSync replaced by `fake`, restoring it whatever happens. */
function withRename(fake: (from: string, to: string) => void, body: () => void): void {
  const real = fs.renameSync;
  fs.renameSync = ((from: string, to: string) => fake(from, to)) as typeof fs.renameSync;
  try {
    body();
  } finally {
    fs.renameSync = real;
  }
}

describe("util/atomic-write", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-atomic-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes text and bytes exactly as given, and JSON with a trailing newline", () => {
    writeFileAtomic(join(dir, "a.txt"), "héllo");
    assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "héllo");
    writeFileAtomic(join(dir, "b.bin"), new Uint8Array([0, 255, 7]));
    assert.deepEqual([...readFileSync(join(dir, "b.bin"))], [0, 255, 7]);
    writeJsonAtomic(join(dir, "c.json"), { a: [1] });
    assert.equal(readFileSync(join(dir, "c.json"), "utf8"), '{\n  "a": [\n    1\n  ]\n}\n');
    writeJsonAtomic(join(dir, "d.json"), { a: [1] }, 0);
    assert.equal(readFileSync(join(dir, "d.json"), "utf8"), '{"a":[1]}\n');
    assert.deepEqual(readdirSync(dir).sort(), ["a.txt", "b.bin", "c.json", "d.json"], "no temp file left");
  });

  it("a crash between the write and the rename leaves the old file whole", () => {
    const target = join(dir, "summary.json");
    writeFileSync(target, "old\n");
    let seen: { from: string; tempText: string; targetText: string } | undefined;
    withRename(
      (from) => {
        seen = { from, tempText: readFileSync(from, "utf8"), targetText: readFileSync(target, "utf8") };
        throw new Error("killed before the rename");
      },
      () => assert.throws(() => writeFileAtomic(target, "new, complete\n"), /killed before the rename/),
    );
    assert.ok(seen, "the write went through a rename");
    assert.equal(dirname(seen.from), dir, "the temp file sits in the target's folder (same filesystem)");
    assert.equal(seen.tempText, "new, complete\n", "the temp file holds the whole new text before the rename");
    assert.equal(seen.targetText, "old\n", "the target is untouched until the rename");
    assert.equal(readFileSync(target, "utf8"), "old\n");
    assert.equal(existsSync(seen.from), false, "the failed temp file is removed");
  });

  it("gives every write its own temp name, so two writers never share one", () => {
    const target = join(dir, "progress.json");
    const temps: string[] = [];
    const real = fs.renameSync;
    withRename(
      (from, to) => {
        temps.push(from);
        real(from, to);
      },
      () => {
        writeFileAtomic(target, "1");
        writeFileAtomic(target, "2");
      },
    );
    assert.equal(temps.length, 2);
    assert.notEqual(temps[0], temps[1]);
    assert.ok(
      temps.every((t) => t.includes(String(process.pid))),
      "the pid keeps processes apart",
    );
    assert.notEqual(atomicTempPath(target), atomicTempPath(target));
    assert.equal(readFileSync(target, "utf8"), "2");
  });
});
