/**
 * PagedFile on a small file of its own (no index to build): typed reads and copies that cross
 * pages, a file whose last page is partial, the same page twice (the last-page shortcut) and from
 * the cache, fresh reads of whole blocks, and the refusals (a changed block, a file cut short, a
 * closed file), each naming the file.
 */
import { strict as assert } from "node:assert";
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { BlockCrcs } from "../../../../../src/core/base/search/block-crc";
import { fileMapper } from "../../../../../src/core/base/search/file-map";
import { PageCache, PagedFile, RUN_PAGES } from "../../../../../src/core/base/search/paged-file";

/** node:fs itself (not an import's copy of its bindings), so a test can count the module's reads. */
const nodeFs = createRequire(__filename)("node:fs") as typeof import("node:fs");

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

  /** A PagedFile over `content` (the CRC table is always the original bytes'), of 64-byte blocks in pages of 2^pageShift bytes. */
  function open(
    name: string,
    content: Uint8Array,
    cache = new PageCache(1 << 20),
    id = 0,
    pageShift = SHIFT,
  ): PagedFile {
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
      pageShift,
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
    const b = new PagedFile(cache, 2, fd, path, SIZE, SHIFT, SHIFT, table.finish(), refuse, refuse);
    const view = new DataView(bytes.buffer);
    const otherView = new DataView(other.buffer);
    for (const i of [0, 1, 20, 0, 20, 1]) {
      assert.equal(a.u32(i), view.getUint32(4 * i, true));
      assert.equal(b.u32(i), otherView.getUint32(4 * i, true));
    }
    assert.ok(cache.bytes <= 64, "one page held");
  });

  it("checks a page's blocks as they are used: a changed block refuses the reads that use it, the page's other blocks read", () => {
    const changed = bytes.slice();
    changed[2 * 64 + 5] ^= 1; // block 2, in page 0 of 256-byte pages
    const cache = new PageCache(1 << 20);
    const file = open("blocks", changed, cache, 0, SHIFT + 2);
    const damaged = `${file.path} is damaged`;
    const view = new DataView(bytes.buffer);
    const refused = (read: () => unknown) =>
      assert.throws(read, (e: unknown) => e instanceof Damaged && e.message === damaged);
    for (const i of [0, 15, 16, 31, 48, 63]) assert.equal(file.u32(i), view.getUint32(4 * i, true), `u32 ${i}`);
    refused(() => file.u32(32));
    refused(() => file.f64(20));
    const out = new Uint8Array(SIZE);
    refused(() => file.copy(100, 140, out, 0)); // blocks 1 and 2
    file.copy(192, 700, out, 0); // blocks 3 to 10: page 0's last block and pages 1 and 2
    assert.deepEqual(out.subarray(0, 508), bytes.subarray(192, 700));
    refused(() => file.copy(150, 200, out, 0));
    assert.equal(cache.misses, 3, "pages 0, 1 and 2, each read once");
  });

  it("mapped, checks the blocks a range of words covers: check() by bytes, checkWords() by 4-byte positions, nothing for an empty range", function () {
    const mapper = fileMapper();
    if (mapper === undefined) return this.skip(); // no mmap addon (`npm run build` builds it)
    const changed = bytes.slice();
    changed[2 * 64 + 5] ^= 1; // block 2: words 32 to 47
    const file = open("mapped", changed);
    assert.ok(file.map(mapper));
    const refused = (check: () => void) =>
      assert.throws(check, (e: unknown) => e instanceof Damaged && e.message === `${file.path} is damaged`);
    file.checkWords(0, 32); // blocks 0 and 1
    file.checkWords(32, 32);
    file.checkWords(48, 250); // blocks 3 to 15, the partial last one included
    file.check(100, 128);
    refused(() => file.checkWords(31, 33));
    refused(() => file.checkWords(47, 48));
    refused(() => file.check(191, 192));
    assert.equal(file.u32(31), new DataView(bytes.buffer).getUint32(124, true));
    refused(() => file.u32(40));
    file.close();
    fds.pop(); // closed with the file
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

  it("reads each run of missing pages of a copy with one call (at most RUN_PAGES), every page checked, a cut-short tail left to the page read", () => {
    const readv = nodeFs.readvSync;
    const read = nodeFs.readSync;
    const calls: string[] = []; // "readv first-byte pages" or "read first-byte"
    nodeFs.readvSync = (fd, buffers, position) => {
      calls.push(`readv ${position} ${buffers.length}`);
      return readv(fd, buffers, position);
    };
    nodeFs.readSync = ((fd: number, buffer: Uint8Array, offset: number, length: number, position: number) => {
      calls.push(`read ${position}`);
      return read(fd, buffer, offset, length, position);
    }) as typeof read;
    try {
      const cache = new PageCache(1 << 20);
      const file = open("runs", bytes, cache, 1);
      file.u32(5 * 16); // page 5 cached: the copy below reads pages 0–4 and 6–15
      const out = new Uint8Array(SIZE);
      file.copy(0, SIZE, out, 0);
      assert.deepEqual(out, bytes);
      assert.deepEqual(calls, ["read 320", "readv 0 5", "readv 384 10"]);
      assert.equal(cache.misses, 16, "each page read once");
      calls.length = 0;
      file.copy(1, SIZE - 1, out, 0); // all cached
      file.copy(64, 65, out, 0);
      assert.deepEqual(calls, []);

      // A run longer than RUN_PAGES is read in runs of RUN_PAGES; a missing page alone is read alone.
      const pages = RUN_PAGES + 40;
      const long = Uint8Array.from({ length: 64 * pages }, (_, i) => (i * 7 + 3) & 255);
      const longTable = new BlockCrcs(SHIFT);
      longTable.update(long);
      const longPath = join(dir, "runs-long");
      writeFileSync(longPath, long);
      const fd = openSync(longPath, "r");
      fds.push(fd);
      const longCache = new PageCache(1 << 20);
      const longFile = new PagedFile(
        longCache,
        2,
        fd,
        longPath,
        long.length,
        SHIFT,
        SHIFT,
        longTable.finish(),
        () => new Damaged("damaged"),
        () => new CutShort("cut"),
      );
      longFile.u32(16); // page 1 cached: page 0 is a missing page alone
      calls.length = 0;
      const whole = new Uint8Array(long.length);
      longFile.copy(0, long.length, whole, 0);
      assert.deepEqual(whole, long);
      assert.deepEqual(calls, [`readv 128 ${RUN_PAGES}`, `readv ${64 * (RUN_PAGES + 2)} 38`, "read 0"]);
      assert.equal(longCache.misses, pages);

      const changed = bytes.slice();
      changed[200] ^= 1; // page 3
      const damagedCache = new PageCache(1 << 20);
      const damaged = open("runs-changed", changed, damagedCache);
      assert.throws(
        () => damaged.copy(0, 400, out, 0),
        (e: unknown) => e instanceof Damaged && e.message === `${damaged.path} is damaged`,
      );
      assert.equal(damagedCache.misses, 7, "the run is read and cached, its blocks checked as they are used");
      assert.equal(damaged.u32(16), new DataView(bytes.buffer).getUint32(64, true));
      assert.throws(
        () => damaged.u32(50), // page 3, still unchecked: refused again
        (e: unknown) => e instanceof Damaged && e.message === `${damaged.path} is damaged`,
      );
      assert.equal(damaged.u32(100), new DataView(bytes.buffer).getUint32(400, true), "page 6, read by the run");
      assert.equal(damagedCache.misses, 7);

      const cut = open("runs-cut", bytes);
      truncateSync(cut.path, 900); // pages 0–13 whole, page 14 cut short
      calls.length = 0;
      assert.throws(
        () => cut.copy(0, SIZE, out, 0),
        (e: unknown) => e instanceof CutShort && e.message === `${cut.path} ends early`,
      );
      assert.deepEqual(
        calls,
        ["readv 0 16", `read ${14 * 64}`, `read ${14 * 64 + 4}`],
        "the cut page read alone, to its end",
      );
      assert.equal(cut.u32(13 * 16), new DataView(bytes.buffer).getUint32(13 * 64, true));
    } finally {
      nodeFs.readvSync = readv;
      nodeFs.readSync = read;
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

describe("search: a paged file read whole (fill)", () => {
  let dir: string;
  const opened: PagedFile[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-paged-fill-"));
  });
  after(() => {
    // close() is idempotent: files the tests closed already are skipped.
    for (const file of opened.splice(0)) file.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const content = (size: number, salt = 0) => Uint8Array.from({ length: size }, (_, i) => (i * 37 + 11 + salt) & 255);
  const crcsOf = (data: Uint8Array) => {
    const table = new BlockCrcs(SHIFT);
    table.update(data);
    return table.finish();
  };

  /** A PagedFile over `written`, whose CRC table is `original`'s (a changed byte is a damaged block). */
  function open(name: string, written: Uint8Array, cache: PageCache, id = 0, original = written): PagedFile {
    const path = join(dir, name);
    writeFileSync(path, written);
    const file = new PagedFile(
      cache,
      id,
      openSync(path, "r"),
      path,
      original.length,
      SHIFT,
      SHIFT,
      crcsOf(original),
      (p) => new Damaged(`${p} is damaged`),
      (p) => new CutShort(`${p} ends early`),
    );
    opened.push(file);
    return file;
  }

  /** Every typed read and copy of `file` against `data`. */
  function readsAs(file: PagedFile, data: Uint8Array, label: string): void {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    for (let i = 0; 4 * i + 4 <= data.length; i++) {
      assert.equal(file.u32(i), view.getUint32(4 * i, true), `${label}: u32 ${i}`);
      assert.ok(Object.is(file.f32(i), view.getFloat32(4 * i, true)), `${label}: f32 ${i}`);
    }
    for (let i = 0; 8 * i + 8 <= data.length; i++)
      assert.ok(Object.is(file.f64(i), view.getFloat64(8 * i, true)), `${label}: f64 ${i}`);
    for (const [from, to] of [
      [0, data.length],
      [63, 129],
      [data.length - 1, data.length],
    ]) {
      const out = new Uint8Array(data.length + 3).fill(9);
      file.copy(from, to, out, 3);
      assert.deepEqual(out.subarray(3, 3 + to - from), data.subarray(from, to), `${label}: copy [${from}, ${to})`);
      assert.ok(
        out.subarray(0, 3).every((b) => b === 9),
        `${label}: copy writes nothing before`,
      );
    }
  }

  it("reads the same bytes after a fill with no further reads from disk, at every length (typed views or pages of memory)", async () => {
    // 1,000: u32/f32/f64 views; 1,004: u32/f32 views, f64 from memory pages; 998 and 1,001: memory pages only.
    for (const size of [1000, 1004, 998, 1001]) {
      const data = content(size);
      const cache = new PageCache(1 << 20);
      const file = open(`whole-${size}`, data, cache);
      assert.equal(file.resident, undefined, "not resident before the fill");
      file.u32(0); // page 0 cached and kept as the last page
      assert.equal(await file.fill(), "filled");
      assert.deepEqual(file.resident, data);
      assert.equal(cache.filledBytes, size);
      assert.equal(cache.bytes, size, "its pages went; the file's bytes are held");
      const misses = cache.misses;
      const bytesRead = cache.bytesRead;
      readsAs(file, data, `size ${size}`);
      for (let n = 0; n * 64 < size; n++)
        assert.deepEqual(file.page(n).bytes, data.subarray(n * 64, Math.min(n * 64 + 64, size)), `page ${n}`);
      assert.equal(cache.misses, misses, "no page read from disk");
      assert.equal(cache.bytesRead, bytesRead);
      assert.equal(await file.fill(), "filled", "a second fill reserves nothing more");
      assert.equal(cache.bytes, size);
      assert.equal(cache.filledBytes, size);
    }
  });

  it("drops the filled file's pages only: the other files' pages of the cache stay", async () => {
    const cache = new PageCache(1 << 20);
    const data = [content(1000, 0), content(1000, 1), content(1000, 2)];
    const files = data.map((d, id) => open(`shared-${id}`, d, cache, id, d));
    for (const file of files) for (const i of [0, 100, 249]) file.u32(i);
    const held = 64 + 64 + 40; // pages 0, 6 and the partial page 15
    assert.equal(cache.bytes, 3 * held);
    assert.equal(await files[1].fill(), "filled");
    assert.equal(cache.bytes, 2 * held + 1000, "file 1's three pages went, its bytes are held");
    const misses = cache.misses;
    for (const id of [0, 2])
      for (const i of [0, 100, 249])
        assert.equal(files[id].u32(i), new DataView(data[id].buffer).getUint32(4 * i, true));
    assert.equal(cache.misses, misses, "files 0 and 2 read from their cached pages");
  });

  it("refuses a changed block or a file cut short, gives its reservation back, and the read refuses it too", async () => {
    const original = content(1000);
    const changed = original.slice();
    changed[900] ^= 1; // page 14
    const cache = new PageCache(1000);
    const file = open("fill-changed", changed, cache, 0, original);
    assert.equal(await file.fill(), "refused");
    assert.equal(file.resident, undefined);
    assert.equal(cache.bytes, 0, "its reservation is given back");
    assert.equal(cache.filledBytes, 0);
    assert.equal(file.u32(0), new DataView(original.buffer).getUint32(0, true), "the other pages read");
    assert.throws(
      () => file.u32(225),
      (e: unknown) => e instanceof Damaged && e.message === `${file.path} is damaged`,
    );

    const cut = open("fill-cut", original, cache, 1);
    truncateSync(cut.path, 900);
    assert.equal(await cut.fill(), "refused");
    assert.equal(cut.resident, undefined);
    assert.equal(cache.bytes, 0, "its reservation evicted the changed file's page, and is given back");
    assert.throws(() => cut.u32(240), CutShort);
    const good = open("fill-after-refused", original, cache, 2);
    assert.equal(await good.fill(), "filled", "the refused files' room is free again");
  });

  it("leaves a file the budget has no room for to paging (full); the files resident together stay within it", async () => {
    const data = content(1000);
    const small = new PageCache(999);
    const file = open("full", data, small);
    assert.equal(await file.fill(), "full");
    assert.equal(file.resident, undefined);
    assert.equal(small.bytes, 0);
    readsAs(file, data, "paging");
    assert.ok(small.misses > 0 && small.bytes <= 999, "read through pages, within the budget");

    const exact = new PageCache(2000);
    const a = open("fits-a", data, exact, 1);
    const b = open("fits-b", data, exact, 2);
    const c = open("fits-c", data, exact, 0);
    // Pages of c make way for the reservations.
    for (let i = 0; i < 250; i += 16) c.u32(i);
    assert.equal(exact.bytes, 1000);
    assert.equal(await a.fill(), "filled");
    assert.equal(exact.bytes, 2000, "a's bytes and c's pages fill the budget");
    assert.equal(await b.fill(), "filled", "a budget filled exactly is room enough");
    assert.equal(exact.bytes, 2000, "c's pages evicted to make the room");
    assert.equal(await c.fill(), "full");
    assert.equal(exact.bytes, 2000);
    readsAs(c, data, "paging beside resident files");
    a.close();
    b.close();
    assert.equal(a.resident, undefined, "a closed file's memory goes");
  });

  it("stops a fill the file's close interrupts (stopped) at any point, giving its reservation back", async () => {
    // Five reads and five CRC runs (FILL_RUN is 1 MiB), with turns of the event loop between them;
    // closed at its start and at points through its reads and its CRC runs (its length measured
    // here in turns), some after it ended.
    const data = content((4 << 20) + 100);
    // The turns of the event loop a whole fill takes here; closes land at the first and at the last of them.
    let turnsOfFill = 0;
    {
      let settled = false;
      const whole = open("stop-whole", data, new PageCache(1 << 30));
      const outcome = whole.fill().finally(() => (settled = true));
      while (!settled) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        turnsOfFill++;
      }
      assert.equal(await outcome, "filled");
    }
    const outcomes: string[] = [];
    for (const turns of [0, 1, 2, ...Array.from({ length: 10 }, (_, i) => Math.round((turnsOfFill * (i + 3)) / 8))]) {
      const cache = new PageCache(1 << 30);
      const file = open(`stop-${turns}`, data, cache);
      let settled = false;
      const outcome = file.fill().finally(() => (settled = true));
      assert.equal(cache.bytes, data.length, "reserved at once");
      for (let t = 0; t < turns && !settled; t++) await new Promise<void>((resolve) => setImmediate(resolve));
      file.close();
      const got = await outcome;
      outcomes.push(got);
      assert.equal(file.resident, undefined, "closed: nothing resident");
      if (got === "stopped") {
        assert.equal(cache.bytes, 0, `after ${turns} turns: the reservation is given back`);
        assert.equal(cache.filledBytes, 0);
      } else {
        assert.equal(got, "filled");
        assert.equal(cache.filledBytes, data.length);
      }
    }
    assert.ok(outcomes.includes("stopped"), outcomes.join(" "));

    const closed = open("stop-closed", content(1000), new PageCache(1 << 20));
    closed.close();
    assert.equal(await closed.fill(), "stopped", "a closed file is not read");
  });

  it("stops a fill closed between two of its CRC runs: the closed file is not made resident, reads refuse it", async () => {
    // Three CRC runs (FILL_RUN is 1 MiB) with a turn of the event loop after each: the file is
    // closed as the fill yields the k-th turn, so the close lands after run k's check and before
    // the next (or, for k = 3, before the file would be made resident).
    const data = content((2 << 20) + 100);
    for (const k of [1, 2, 3]) {
      const cache = new PageCache(1 << 30);
      const file = open(`stop-crc-${k}`, data, cache);
      const immediate = globalThis.setImmediate;
      let turns = 0;
      globalThis.setImmediate = Object.assign(
        (...args: Parameters<typeof setImmediate>) => {
          if (++turns === k) file.close();
          return immediate(...args);
        },
        { __promisify__: immediate.__promisify__ },
      );
      let got: string;
      try {
        got = await file.fill();
      } finally {
        globalThis.setImmediate = immediate;
      }
      assert.equal(turns, k, `closed at turn ${k}: the fill yields no more`);
      assert.equal(got, "stopped", `closed at turn ${k}`);
      assert.equal(file.resident, undefined, `closed at turn ${k}: nothing resident`);
      assert.equal(cache.bytes, 0, `closed at turn ${k}: the reservation is given back`);
      assert.equal(cache.filledBytes, 0);
      assert.throws(() => file.u32(0), /closed/, `closed at turn ${k}: a read refuses the closed file`);
    }
  });

  it("stops the fill of an empty file closed while it opens, and of a closed file whose path is gone", async () => {
    const cache = new PageCache(1 << 20);
    const empty = open("empty", new Uint8Array(0), cache);
    assert.equal(await empty.fill(), "filled", "an empty file open all along is made resident");
    assert.deepEqual(empty.resident, new Uint8Array(0));

    const closing = open("empty-closing", new Uint8Array(0), cache, 1);
    const outcome = closing.fill();
    closing.close();
    assert.equal(await outcome, "stopped", "closed while its fill opens it: no read, no check, nothing resident");
    assert.equal(closing.resident, undefined);

    // An index folder replaced after its searcher closed: the fill must not open the old path.
    const gone = open("gone", content(1000), cache, 2);
    gone.close();
    rmSync(gone.path);
    assert.equal(await gone.fill(), "stopped");
    assert.equal(cache.bytes, 0);
  });

  it("closes the descriptor of its own it reads through, filled or refused", async () => {
    const fdDir = "/proc/self/fd";
    // Linux only: no portable way to list a process's open descriptors.
    if (!existsSync(fdDir)) return;
    const descriptors = () => readdirSync(fdDir).length;
    const original = content(1000);
    const changed = original.slice();
    changed[500] ^= 1;
    for (const [name, written, want] of [
      ["fd-filled", original, "filled"],
      ["fd-refused", changed, "refused"],
    ] as const) {
      const file = open(name, written, new PageCache(1 << 20), 0, original);
      const before = descriptors();
      assert.equal(await file.fill(), want);
      assert.equal(descriptors(), before, `${want}: no descriptor left open`);
    }
  });

  it("does not give back, after a clear, a reservation taken before it", async () => {
    const data = content(1000);
    const cache = new PageCache(1 << 20);
    const early = open("clear-early", data, cache, 1);
    const late = open("clear-late", data, cache, 2);
    const outcome = early.fill();
    cache.clear();
    early.close();
    assert.equal(cache.bytes, 0);
    assert.equal(await late.fill(), "filled");
    assert.equal(await outcome, "stopped");
    assert.equal(cache.bytes, 1000, "the late file's bytes are still counted");
    cache.clear();
    assert.equal(cache.bytes, 0);
    const again = open("clear-again", data, new PageCache(1000), 3);
    assert.equal(await again.fill(), "filled", "a cleared budget is whole again");
  });
});

describe("search: a page cache", () => {
  it("gives evicted pages' buffers to the next reads, within the budget and one run past it; prefault makes the budget's buffers ahead", async () => {
    const cache = new PageCache(300);
    const pages = [1, 2, 3, 4].map((key) => cache.put(key, cache.buffer(100)));
    assert.equal(cache.spareBytes, 100, "page 1 went to the spare buffers");
    assert.equal(pages[0].live, false);
    const reused = cache.buffer(100);
    assert.equal(reused, pages[0].bytes, "the next read gets page 1's buffer");
    assert.equal(cache.spareBytes, 0);
    assert.notEqual(cache.buffer(50), reused, "another size: a new buffer");
    cache.clear();
    assert.equal(cache.spareBytes, 0);
    assert.ok(
      pages.every((page) => !page.live),
      "a clear leaves no page live",
    );

    const ahead = new PageCache(1000);
    ahead.put(1, new Uint8Array(300));
    await ahead.prefault(100);
    assert.equal(ahead.spareBytes, 700, "what the budget leaves, in buffers of the size asked for");
    assert.equal(ahead.buffer(100).length, 100);
    assert.equal(ahead.spareBytes, 600);
    const stopped = new PageCache(64 << 20);
    const made = stopped.prefault(4096);
    stopped.clear(); // the index closed while it ran
    await made;
    assert.ok(stopped.spareBytes < 64 << 20, "a clear stops it");
    // Evicted buffers are kept past the budget by at most one run of pages, never more.
    const small = new PageCache(100);
    for (let key = 0; key < 1000; key++) small.put(key, new Uint8Array(100 << 10));
    assert.ok(small.spareBytes <= 16 << 20, `${small.spareBytes} bytes spare`);
  });

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
