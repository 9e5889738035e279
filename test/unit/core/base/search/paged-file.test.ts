/**
 * PagedFile on a small file of its own (no index to build): typed reads and copies that cross
 * pages, a file whose last page is partial, the same page twice (the last-page shortcut) and from
 * the cache, fresh reads of whole blocks, and the refusals (a changed block, a file cut short, a
 * closed file), each naming the file.
 */
import { strict as assert } from "node:assert";
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { BlockCrcs } from "../../../../../src/core/base/search/block-crc";
import { PageCache, PagedFile } from "../../../../../src/core/base/search/paged-file";

/** 64-byte pages: a 1,000-byte file is 15 whole pages and a partial one of 40 bytes. */
const SHIFT = 6;
const SIZE = 1000;

class Damaged extends UserError {}
class CutShort extends UserError {}

describe("search: a paged file", () => {
  let dir: string;
  let bytes: Uint8Array;
  let crcs: Uint32Array;
  const fds: number[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-paged-file-"));
    bytes = Uint8Array.from({ length: SIZE }, (_, i) => (i * 37 + 11) & 255);
    const table = new BlockCrcs(SHIFT);
    table.update(bytes);
    crcs = table.finish();
  });
  after(() => {
    // splice: a runner that reruns the suite in one process (Stryker) must not close them twice.
    for (const fd of fds.splice(0)) closeSync(fd);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A PagedFile over `content` (the CRC table is always the original bytes'). */
  function open(name: string, content: Uint8Array, cache = new PageCache(1 << 20), id = 0): PagedFile {
    const path = join(dir, name);
    writeFileSync(path, content);
    const fd = openSync(path, "r");
    fds.push(fd);
    return new PagedFile(
      cache,
      id,
      fd,
      path,
      SIZE,
      SHIFT,
      crcs,
      (p) => new Damaged(`${p} is damaged`),
      (p) => new CutShort(`${p} ends early`),
    );
  }

  it("reads u32, f32 and f64 at every position, across page ends and in the partial last page", () => {
    const file = open("typed", bytes);
    const view = new DataView(bytes.buffer);
    for (let i = 0; 4 * i + 4 <= SIZE; i++) {
      assert.equal(file.u32(i), view.getUint32(4 * i, true), `u32 ${i}`);
      assert.ok(Object.is(file.f32(i), view.getFloat32(4 * i, true)), `f32 ${i}`);
    }
    for (let i = 0; 8 * i + 8 <= SIZE; i++) assert.ok(Object.is(file.f64(i), view.getFloat64(8 * i, true)), `f64 ${i}`);
  });

  it("copies any range into any place of the output, across pages, and reads each page from disk once", () => {
    const cache = new PageCache(1 << 20);
    const file = open("copy", bytes, cache);
    for (const [from, to] of [
      [0, SIZE],
      [0, 1],
      [63, 65],
      [64, 128],
      [10, 300],
      [959, 1000],
      [999, 1000],
      [500, 500],
    ]) {
      const out = new Uint8Array(SIZE + 7).fill(9);
      file.copy(from, to, out, 7);
      assert.deepEqual(out.subarray(7, 7 + to - from), bytes.subarray(from, to), `[${from}, ${to})`);
      assert.ok(
        out.subarray(0, 7).every((b) => b === 9) && out.subarray(7 + to - from).every((b) => b === 9),
        `[${from}, ${to}) writes nothing else`,
      );
    }
    assert.equal(cache.misses, 16, "16 pages, each read once");
    assert.equal(cache.bytesRead, SIZE, "the last page is read partial");
    assert.equal(cache.bytes, SIZE);
  });

  it("keeps the files of one cache apart, and rereads a page the cache evicted", () => {
    const cache = new PageCache(64);
    const other = Uint8Array.from(bytes, (b) => b ^ 0xff);
    const table = new BlockCrcs(SHIFT);
    table.update(other);
    const a = open("a", bytes, cache, 1);
    const path = join(dir, "b");
    writeFileSync(path, other);
    const fd = openSync(path, "r");
    fds.push(fd);
    const refuse = (p: string) => new Damaged(p);
    const b = new PagedFile(cache, 2, fd, path, SIZE, SHIFT, table.finish(), refuse, refuse);
    const view = new DataView(bytes.buffer);
    const otherView = new DataView(other.buffer);
    for (const i of [0, 1, 20, 0, 20, 1]) {
      assert.equal(a.u32(i), view.getUint32(4 * i, true));
      assert.equal(b.u32(i), otherView.getUint32(4 * i, true));
    }
    assert.ok(cache.bytes <= 64, "one page held");
  });

  it("reads whole checked blocks fresh: from the block holding `from` to the one holding `to`, at most the file", () => {
    const file = open("fresh", bytes);
    for (const [from, to, start, end] of [
      [0, 1, 0, 64],
      [64, 64, 64, 128],
      [70, 128, 64, 128],
      [70, 129, 64, 192],
      [990, 1000, 960, 1000],
      [0, 1000, 0, 1000],
    ]) {
      const got = file.readFresh(from, to);
      assert.equal(got.offset, start, `[${from}, ${to})`);
      assert.deepEqual(got.bytes, bytes.subarray(start, end), `[${from}, ${to})`);
    }
  });

  it("refuses a changed block, a file cut short and a closed file, naming the file; the other pages read", () => {
    const changed = bytes.slice();
    changed[200] ^= 1; // page 3
    const file = open("changed", changed);
    assert.equal(file.u32(0), new DataView(bytes.buffer).getUint32(0, true));
    assert.throws(
      () => file.u32(50),
      (e: unknown) => e instanceof Damaged && e.message === `${file.path} is damaged`,
    );
    assert.throws(() => file.readFresh(190, 200), Damaged);
    assert.equal(file.u32(100), new DataView(bytes.buffer).getUint32(400, true));

    const cut = open("cut", bytes);
    truncateSync(cut.path, 900);
    assert.equal(cut.u32(0), new DataView(bytes.buffer).getUint32(0, true));
    assert.throws(
      () => cut.u32(240),
      (e: unknown) => e instanceof CutShort && e.message === `${cut.path} ends early`,
    );

    const closed = open("closed", bytes);
    closed.u32(0);
    closed.close();
    const fd = fds.pop()!;
    assert.throws(() => fstatSync(fd), { code: "EBADF" }, "its descriptor is given back");
    closed.close();
    // A page it has not read (the index's close empties the cache it shares).
    assert.throws(() => closed.u32(100), /closed/);
    assert.throws(() => closed.readFresh(0, 10), /closed/);
  });
});

describe("search: a page cache", () => {
  it("holds pages up to its budget exactly, evicts the least recently used (a hit counts as a use), and empties on clear", () => {
    const cache = new PageCache(300);
    for (const key of [1, 2, 3]) cache.put(key, new Uint8Array(100));
    assert.equal(cache.bytes, 300, "a full budget evicts nothing");
    assert.ok(cache.get(1) && cache.get(2) && cache.get(3));
    assert.ok(cache.get(1), "1 is now the most recently used");
    cache.put(4, new Uint8Array(100));
    assert.equal(cache.get(2), undefined, "2 went");
    assert.deepEqual(
      [1, 3, 4].map((key) => cache.get(key) !== undefined),
      [true, true, true],
    );
    const big = cache.put(5, new Uint8Array(400));
    assert.equal(cache.get(5), big, "a page over the budget is kept alone");
    assert.equal(cache.bytes, 400);
    assert.equal(cache.misses, 5);
    assert.equal(cache.bytesRead, 800);
    cache.clear();
    assert.equal(cache.bytes, 0);
    assert.equal(cache.get(5), undefined);
  });
});
