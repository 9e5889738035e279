/**
 * The search over posting files (DiskPostings through PagedFile) answers as the same search over the
 * arrays in memory: long lists read a chunk at a time across pages, window-start rows of more than
 * one chunk, short lists copied whole, and scratch arrays reused and grown query after query.
 */
import { strict as assert } from "node:assert";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UserError } from "../../../../../src/core/base/errors";
import { BlockCrcs } from "../../../../../src/core/base/search/block-crc";
import { DiskPostings, type PostingFiles } from "../../../../../src/core/base/search/disk-postings";
import { PageCache, PagedFile } from "../../../../../src/core/base/search/paged-file";
import { WindowTopK, fromArrays, type PostingArrays } from "../../../../../src/core/base/search/window-top-k";
import { exhaustive, randomLists, randomQuery, withWindows, type List } from "./posting-lists";
import { mulberry32 } from "../../../../../src/core/base/util/mulberry32";

/** 1 KiB pages: a list's chunk spans several, and a page holds parts of two lists. */
const SHIFT = 10;

describe("search: postings read from files", () => {
  let dir: string;
  const fds: number[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "agent-lab-disk-postings-"));
  });
  after(() => {
    // splice: a runner that reruns the suite in one process (Stryker) must not close them twice.
    for (const fd of fds.splice(0)) closeSync(fd);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The index arrays written as files, read back through one page cache. */
  function filesOf(a: PostingArrays, cache: PageCache, name: string): PostingFiles {
    const file = (id: number, key: string, data: ArrayBufferView): PagedFile => {
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      const path = join(dir, `${name}-${key}`);
      writeFileSync(path, bytes);
      const crcs = new BlockCrcs(SHIFT);
      crcs.update(bytes);
      const fd = openSync(path, "r");
      fds.push(fd);
      const refuse = (p: string) => new UserError(`${p} is damaged`);
      return new PagedFile(cache, id, fd, path, bytes.length, SHIFT, SHIFT, crcs.finish(), refuse, refuse);
    };
    return {
      postingOffsets: file(0, "offsets", a.postingOffsets),
      postingDocs: file(1, "docs", a.docs),
      postingScores: file(2, "scores", a.scores),
      termMax: file(3, "term-max", a.termMax),
      windowMax: file(4, "window-max", a.windowMax),
      windowStart: file(5, "window-start", a.windowStart),
      windowBits: file(6, "window-bits", a.windowBits),
    };
  }

  it("answers every query as the arrays in memory do, with lists over several chunks and windows over several start chunks", () => {
    // 65,536 documents: 1,024 windows, so a window-start row (windows + 1 entries) is one chunk of
    // 1,024 and one of a single entry; the densest lists hold more than one chunk of 4,096 postings.
    const random = mulberry32(3);
    const documents = 65_536;
    const lists: List[] = randomLists(random, documents, 9);
    lists.push([[documents - 1, 2]], []);
    const index = withWindows(lists, documents);
    assert.ok(index.windowedRows.length >= 2, "some lists are long");
    assert.ok(
      lists.some((l) => l.length > 4096),
      "a list holds more than one chunk",
    );
    for (const budget of [1 << 30, 1 << SHIFT]) {
      const cache = new PageCache(budget);
      const disk = new DiskPostings(filesOf(index, cache, `b${budget}`), index.windowedRows, index.windows);
      const search = new WindowTopK(disk);
      const memory = new WindowTopK(fromArrays(index));
      // One word first (one long list, then a short one), then longer queries: the scratch arrays
      // grow between queries.
      const queries = [
        [index.windowedRows[0]],
        [lists.length - 2],
        [...index.windowedRows],
        [lists.length - 1],
        ...Array.from({ length: 12 }, () => randomQuery(random, lists.length)),
      ];
      for (const rows of queries) {
        const all = exhaustive(lists, rows);
        for (const k of [1, 10, 100]) {
          const label = `budget ${budget}, rows ${rows.join(" ")}, k = ${k}`;
          assert.deepEqual(memory.top(rows, k), all.slice(0, k), label);
          assert.deepEqual(search.top(rows, k), all.slice(0, k), label);
        }
      }
      for (let row = 0; row < lists.length; row++) {
        assert.equal(disk.termMax(row), index.termMax[row]);
        assert.deepEqual(disk.range(row), { from: index.postingOffsets[row], to: index.postingOffsets[row + 1] });
      }
    }
  });

  /**
   * The slices hold what the search relies on, whichever way they are read: each list's postings
   * at [start, end) once ensured (a later chunk first, then all), a long list's window maxima at
   * base and its window starts at at (positions relative to start), short lists with base = at = -1.
   */
  function slicesHold(disk: DiskPostings, index: PostingArrays, rows: number[], label: string): void {
    const W = index.windows;
    const slices = disk.load(rows);
    rows.forEach((row, i) => {
      const from = index.postingOffsets[row];
      const to = index.postingOffsets[row + 1];
      const s = slices.start[i];
      const e = slices.end[i];
      assert.equal(e - s, to - from, `${label}: row ${row} length`);
      const later = Math.min(e, s + 5000);
      slices.ensure(later, e);
      assert.deepEqual(
        slices.docs.subarray(later, e),
        index.docs.subarray(from + later - s, to),
        `${label}: row ${row} tail`,
      );
      slices.ensure(s, e);
      assert.deepEqual(slices.docs.subarray(s, e), index.docs.subarray(from, to), `${label}: row ${row} docs`);
      assert.deepEqual(slices.scores.subarray(s, e), index.scores.subarray(from, to), `${label}: row ${row} scores`);
      const slot = disk.slotOf(row);
      if (slot < 0) {
        assert.equal(slices.base[i], -1, `${label}: row ${row} short`);
        assert.equal(slices.at[i], -1, `${label}: row ${row} short`);
        return;
      }
      const base = slices.base[i];
      assert.deepEqual(
        slices.windowMax.subarray(base, base + W),
        index.windowMax.subarray(slot * W, (slot + 1) * W),
        `${label}: row ${row} window maxima`,
      );
    });
    // Window starts: a later start chunk first, then every one.
    for (const [a, b] of [
      [W, W + 1],
      [0, W + 1],
    ]) {
      slices.ensureWindows(a, b);
      rows.forEach((row, i) => {
        const slot = disk.slotOf(row);
        if (slot < 0) return;
        const at = slices.at[i];
        const got = Array.from(slices.windowStart.subarray(at + a, at + b), (p) => p - slices.start[i]);
        const want = Array.from(
          index.windowStart.subarray(slot * (W + 1) + a, slot * (W + 1) + b),
          (p) => p - index.postingOffsets[row],
        );
        assert.deepEqual(got, want, `${label}: row ${row} window starts [${a}, ${b})`);
      });
    }
  }

  it("reads a list's postings once, on the files' 1,024-posting chunk boundaries (a CRC block), one copy per run of unread chunks, scores without doc numbers for a probe; window starts likewise, a long list's bits a chunk at a time", () => {
    // 65,536 documents (1,024 windows). Row 0: 3,000 postings, so row 1 (21,000, over 21 chunks) starts
    // off a boundary; row 2 (900, short) spans the boundary at 24,576.
    const documents = 65_536;
    const lists: List[] = [
      Array.from({ length: 3000 }, (_, i): [number, number] => [20 * i, 1]),
      Array.from({ length: 21_000 }, (_, i): [number, number] => [3 * i, 2]),
      Array.from({ length: 900 }, (_, i): [number, number] => [70 * i + 1, 3]),
    ];
    const index = withWindows(lists, documents);
    assert.deepEqual([...index.windowedRows], [0, 1]);
    const files = filesOf(index, new PageCache(1 << 30), "reads");
    const copies: string[] = [];
    for (const key of ["postingDocs", "postingScores", "windowStart", "windowBits"] as const) {
      const file = files[key];
      const copy = file.copy.bind(file);
      // In entries of the file (u32s): what was read, from where to where.
      file.copy = (from, to, out, at) => {
        copies.push(`${key} ${from / 4}-${to / 4}`);
        copy(from, to, out, at);
      };
    }
    const disk = new DiskPostings(files, index.windowedRows, index.windows);
    const slices = disk.load([2, 1]);
    assert.deepEqual(copies, ["postingDocs 24000-24900", "postingScores 24000-24900"], "the short list whole");
    copies.length = 0;
    const s = slices.start[1]; // row 1: file positions 3,000–24,000
    slices.ensureScores(s + 2000, s + 2010); // file 5,000–5,010: the chunk 4,096–5,120, its scores
    assert.deepEqual(copies, ["postingScores 4096-5120"]);
    assert.deepEqual(slices.scores.subarray(s + 2000, s + 2010), index.scores.subarray(5000, 5010));
    slices.ensure(s + 1500, s + 1600); // the same chunk: its doc numbers now
    assert.deepEqual(copies, ["postingScores 4096-5120", "postingDocs 4096-5120"]);
    assert.deepEqual(slices.docs.subarray(s + 1500, s + 1600), index.docs.subarray(4500, 4600));
    copies.length = 0;
    slices.ensure(s, s + 21_000); // the rest: before the chunk, and the chunks after it
    assert.deepEqual(copies, [
      "postingDocs 3000-4096",
      "postingDocs 5120-24000",
      "postingScores 3000-4096",
      "postingScores 5120-24000",
    ]);
    assert.deepEqual(slices.docs.subarray(s, s + 21_000), index.docs.subarray(3000, 24_000));
    assert.deepEqual(slices.scores.subarray(s, s + 21_000), index.scores.subarray(3000, 24_000));
    slices.ensure(s, s + 21_000);
    slices.ensureScores(s, s + 21_000);
    assert.equal(copies.length, 4, "nothing read twice");

    // Window starts: row 1's 1,025 lie at 1,025–2,050 of window-start.u32, on its 1,024-entry pages 1 and 2.
    copies.length = 0;
    slices.ensureWindows(1024, 1025); // entry 2,049: page 2
    slices.ensureWindows(3, 9); // page 1
    slices.ensureWindows(0, 1025); // nothing left
    assert.deepEqual(copies, ["windowStart 2048-2050", "windowStart 1025-2048"]);
    // Its bits (2 words a window) at 2,048–4,096 of window-bits.u32, on 1,024-word chunks 2 and 3:
    // a probe reads the chunk of its window only, once.
    copies.length = 0;
    slices.ensureBits(1, 1023); // words 4,094–4,096: chunk 3
    slices.ensureBits(1, 3); // chunk 2
    slices.ensureBits(1, 600); // chunk 3 again: nothing read
    assert.deepEqual(copies, ["windowBits 3072-4096", "windowBits 2048-3072"]);
    const b = slices.bitAt[1];
    assert.deepEqual(slices.bits.subarray(b, b + 2048), index.windowBits.subarray(2048, 4096));
    const at = slices.at[1];
    assert.deepEqual(
      Array.from(slices.windowStart.subarray(at, at + 1025), (p) => p - s),
      Array.from(index.windowStart.subarray(1025, 2050), (p) => p - 3000),
    );
    // Row 0's starts (0–1,025, pages 0 and 1) and row 1's page 2 in one query: one copy per row and run.
    copies.length = 0;
    const both = disk.load([0, 1]);
    both.ensureWindows(0, 1025);
    assert.deepEqual(copies, ["windowStart 0-1025", "windowStart 1025-2050"]);
  });

  it("holds every window start of a first query of one long list, and of the queries of more after it", () => {
    // Fresh slices, whose scratch of window starts is sized by the first query alone, then grown:
    // 1,024 windows (the last start in a start chunk of its own), and 3 windows (one long list's
    // windows + 1 starts are then more than two long lists' windows − 1).
    for (const documents of [65_536, 192]) {
      const W = Math.ceil(documents / 64);
      const lists: List[] = Array.from({ length: 4 }, (_, t) =>
        Array.from({ length: 2 * W }, (_, i): [number, number] => [32 * i + t, 1 + ((i + t) % 7)]),
      );
      const index = withWindows(lists, documents);
      assert.equal(index.windowedRows.length, 4);
      const disk = new DiskPostings(filesOf(index, new PageCache(1 << 30), `first-long-${W}`), index.windowedRows, W);
      for (const rows of [[2], [2, 0], [0, 1, 2, 3], [3]]) slicesHold(disk, index, rows, `${W} windows, rows ${rows}`);
    }
  });

  it("gives the resident lists up once their file is closed: the search refuses it rather than read memory given back", async () => {
    const random = mulberry32(13);
    const documents = 65_536;
    const lists: List[] = randomLists(random, documents, 4);
    lists.push(Array.from({ length: 2048 }, (_, i): [number, number] => [32 * i, 1 + (i % 5)]));
    const index = withWindows(lists, documents);
    const opened = fds.length;
    const files = filesOf(index, new PageCache(1 << 30), "closed-lists");
    const disk = new DiskPostings(files, index.windowedRows, index.windows);
    const search = new WindowTopK(disk);
    const rows = [lists.length - 1, 0];
    assert.deepEqual(
      await Promise.all(Object.values(files).map((file) => file.fill())),
      Object.values(files).map(() => "filled"),
    );
    assert.deepEqual(search.top(rows, 5), exhaustive(lists, rows).slice(0, 5));
    files.postingDocs.close();
    fds.splice(opened + 1, 1); // postingDocs's descriptor (the second filesOf opens): closed already
    assert.throws(() => search.top(rows, 5), /closed/);
  });

  it("answers as exhaustive scoring over resident files, reading no page; over some resident and the rest paged too", async () => {
    // 65,536 documents: 1,024 windows (window-start rows of two chunks); lists of every density, the densest over several chunks.
    const random = mulberry32(5);
    const documents = 65_536;
    const lists: List[] = randomLists(random, documents, 6);
    lists.push([[documents - 1, 2]], [], [[0, 1]]);
    const index = withWindows(lists, documents);
    assert.ok(index.windowedRows.length >= 2 && lists.some((l) => l.length > 4096));
    // Queries of 1, then more, then fewer words (the slices are resized), windowed row 0 (slot 0) alone and with short lists.
    const queries = [
      [index.windowedRows[0]],
      [...index.windowedRows, lists.length - 1],
      [lists.length - 3, index.windowedRows[1]],
      [lists.length - 2],
      ...Array.from({ length: 6 }, () => randomQuery(random, lists.length)),
    ];
    const answersAll = (search: WindowTopK, label: string) => {
      for (const rows of queries) {
        const all = exhaustive(lists, rows);
        for (const k of [1, 10, 1000])
          assert.deepEqual(search.top(rows, k), all.slice(0, k), `${label}, rows ${rows}, k = ${k}`);
      }
    };
    const lists4 = ["postingDocs", "postingScores", "windowMax", "windowStart"] as const;
    // All six files resident; then each of the four list files left paged alone (the others resident).
    for (const paged of [undefined, ...lists4]) {
      const cache = new PageCache(1 << 30);
      const files = filesOf(index, cache, `resident-${paged ?? "all"}`);
      const disk = new DiskPostings(files, index.windowedRows, index.windows);
      const search = new WindowTopK(disk);
      // Read before the fill too where all go resident: the search then leaves the pages it read for the files in place.
      if (paged === undefined) {
        answersAll(search, "before the fill");
        for (const rows of queries) slicesHold(disk, index, rows, "before the fill");
      }
      const fills = await Promise.all(
        Object.entries(files).map(([key, file]) => (key === paged ? "paged" : file.fill())),
      );
      assert.ok(
        fills.every((f) => f === "filled" || f === "paged"),
        fills.join(" "),
      );
      const misses = cache.misses;
      answersAll(search, `resident but ${paged ?? "none"}`);
      for (const rows of queries) slicesHold(disk, index, rows, `resident but ${paged ?? "none"}`);
      const inPlace = disk.load(queries[1]).docs.buffer === files.postingDocs.resident?.buffer;
      assert.equal(inPlace, paged === undefined, "the lists are searched where they lie once all four are resident");
      if (paged === undefined)
        assert.equal(cache.misses, misses, "the resident lists are searched in place: no page read");
      else assert.ok(cache.misses > misses, `${paged} still read through its pages`);
    }
  });
});
