/**
 * The on-disk reader measured (issue 28, items 1 and 3): what a page read costs by block size, what
 * opening an index costs, the memory the query process owns, query latency, and the same queries
 * over the same index held whole in memory (the best an mmap could do: every page resident), with
 * every pruned result checked against exhaustive scoring.
 *
 *   npx tsx bench/search/disk-reader.ts [--docs N] [--queries N] [--cache MiB] [--no-memory]
 *
 * The synthetic corpus and its queries are the ones bench/search/run.ts writes (bench/.work/,
 * cached by size); the index is built once per size and format version.
 */
import { existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync, closeSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { crc32 } from "node:zlib";
import { buildIndex } from "../../src/core/base/search/build-index";
import { openIndex } from "../../src/core/base/search/bm25-index";
import { FILES, INDEX_VERSION, META_FILE, windowCount, type IndexMeta } from "../../src/core/base/search/bm25-format";
import { WindowTopK, fromArrays } from "../../src/core/base/search/window-top-k";
import { TermTokenizer } from "../../src/core/base/search/tokenizer";
import { makeQueries, queryParagraphIds, SyntheticCorpus } from "./synthetic-corpus";

const WORK = resolve(__dirname, "..", ".work");
const K = 3;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** RSS and its anonymous part (what the process owns, not file pages the OS can drop), MiB. */
function memory(): { rss: number; anon: number; file: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile") };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Part 1: a positional read of one block of a large file from the OS cache, and its CRC-32, by block size. */
function pageCosts(): string[][] {
  const file = join(WORK, "page-cost.bin");
  const size = 256 << 20;
  if (!existsSync(file)) {
    const chunk = Buffer.alloc(1 << 20);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 2654435761) >>> 24;
    writeFileSync(file, Buffer.concat(Array.from({ length: size >> 20 }, () => chunk)));
  }
  const fd = openSync(file, "r");
  readFileSync(file); // into the OS cache
  const rows = [["block", "pread µs", "CRC-32 µs", "miss µs", "per 4-byte value (miss)"]];
  for (const shift of [12, 14, 16, 18]) {
    const bs = 1 << shift;
    const buf = Buffer.allocUnsafe(bs);
    const n = 2000;
    const at = Array.from({ length: n }, (_, i) => ((i * 7919) % (size / bs)) * bs);
    let t = performance.now();
    for (const a of at) readSync(fd, buf, 0, bs, a);
    const read = ((performance.now() - t) / n) * 1000;
    t = performance.now();
    let x = 0;
    for (let i = 0; i < n; i++) x ^= crc32(buf);
    const crc = ((performance.now() - t) / n) * 1000;
    void x;
    rows.push([
      `${bs >> 10} KiB`,
      read.toFixed(1),
      crc.toFixed(1),
      (read + crc).toFixed(1),
      `${(((read + crc) / bs) * 4 * 1000).toFixed(1)} ns`,
    ]);
  }
  closeSync(fd);
  return rows;
}

/** The same search over the index files read whole into memory (format-4 style, an mmap's best case). */
function inMemorySearch(dir: string): (query: string) => number[] {
  const meta = JSON.parse(readFileSync(join(dir, META_FILE), "utf8")) as IndexMeta;
  const u32 = (f: string) => new Uint32Array(new Uint8Array(readFileSync(join(dir, f))).buffer);
  const f32 = (f: string) => new Float32Array(new Uint8Array(readFileSync(join(dir, f))).buffer);
  const top = new WindowTopK(
    fromArrays({
      postingOffsets: u32(FILES.postingOffsets),
      docs: u32(FILES.postingDocs),
      scores: f32(FILES.postingScores),
      termMax: f32(FILES.termMax),
      windowMax: new Uint8Array(readFileSync(join(dir, FILES.windowMax))),
      windowedRows: u32(FILES.windowRows),
      windows: windowCount(meta.documents),
      windowStart: u32(FILES.windowStart),
      windowBits: u32(FILES.windowBits),
    }),
  );
  const index = openIndex(dir, { fill: false }); // for the vocabulary lookups only
  const tok = new TermTokenizer();
  return (query) => {
    const rows = tok
      .terms(query)
      .map((t) => index.termRow(t))
      .filter((r) => r >= 0);
    // The hits' texts read as the on-disk search reads them (texts.bin was never loaded whole).
    return rows.length === 0 ? [] : top.top(rows, K).map((d) => index.paragraph(d.doc).id);
  };
}

interface Pass {
  wall: number[];
  cpu: number[];
}

function timed(queries: string[], search: (q: string) => unknown): Pass {
  const pass: Pass = { wall: [], cpu: [] };
  for (const q of queries) {
    const t = performance.now();
    const c = process.cpuUsage();
    search(q);
    const used = process.cpuUsage(c);
    pass.wall.push(performance.now() - t);
    pass.cpu.push((used.user + used.system) / 1000);
  }
  return pass;
}

async function main(): Promise<void> {
  const docs = Number(arg("--docs") ?? 507_494);
  const count = Number(arg("--queries") ?? 500);
  const cacheMiB = arg("--cache");
  mkdirSync(WORK, { recursive: true });
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
  console.log(`load average at start: ${load}`);

  const tag = `syn${docs}`;
  const corpus = join(WORK, `${tag}.jsonl`);
  const queriesFile = join(WORK, `${tag}-${count}-queries.json`);
  if (!existsSync(corpus) || !existsSync(queriesFile)) {
    console.log(`writing ${docs.toLocaleString()} synthetic paragraphs to ${corpus}`);
    const kept = await new SyntheticCorpus({ docs }).write(corpus, queryParagraphIds(docs, count));
    writeFileSync(queriesFile, JSON.stringify(makeQueries(kept, count)));
  }
  const dir = join(WORK, `${tag}-ours-v${INDEX_VERSION}`);
  if (!existsSync(join(dir, META_FILE))) {
    console.log("building the index");
    const built = await buildIndex(corpus, dir);
    console.log(`built in ${built.seconds.toFixed(1)} s, ${(built.bytes / 2 ** 30).toFixed(2)} GiB`);
  }
  const { short, long } = JSON.parse(readFileSync(queriesFile, "utf8")) as { short: string[]; long: string[] };

  const before = memory();
  const t0 = performance.now();
  // The on-demand path itself: no background fill (run.ts measures the filled index).
  const index = openIndex(dir, { fill: false, ...(cacheMiB ? { cacheBytes: Number(cacheMiB) << 20 } : {}) });
  const openMs = performance.now() - t0;
  const opened = memory();
  const readAtOpen = index.cache.bytesRead;
  for (const q of short.slice(0, 20)) index.search(q, K); // warm-up (JIT)
  const shortPass = timed(short, (q) => index.search(q, K));
  const longPass = timed(long, (q) => index.search(q, K));
  const after = memory();
  const firstPassMiB = index.cache.bytesRead / 2 ** 20;
  const shortWarm = timed(short, (q) => index.search(q, K));
  const longWarm = timed(long, (q) => index.search(q, K));
  let same = 0;
  const sample = [...short.slice(0, 100), ...long.slice(0, 100)];
  for (const q of sample) {
    const a = index.search(q, K).map((h) => [h.id, h.score]);
    const b = index.searchExhaustive(q, K).map((h) => [h.id, h.score]);
    if (JSON.stringify(a) === JSON.stringify(b)) same++;
  }

  console.log(`\n1. ${docs.toLocaleString()} paragraphs: open, memory, queries (k = ${K}), ms\n`);
  const row = (name: string, p: Pass) => [
    name,
    percentile(p.wall, 50).toFixed(3),
    percentile(p.wall, 99).toFixed(3),
    percentile(p.cpu, 50).toFixed(3),
    percentile(p.cpu, 99).toFixed(3),
  ];
  const rows = [
    ["on disk, first pass (each page read and checked once)", "p50", "p99", "cpu p50", "cpu p99"],
    row("short", shortPass),
    row("question-length", longPass),
    ["on disk, second pass (pages in the cache)", "p50", "p99", "cpu p50", "cpu p99"],
    row("short", shortWarm),
    row("question-length", longWarm),
  ];
  let inMemory: string[][] = [];
  if (!process.argv.includes("--no-memory")) {
    const t1 = performance.now();
    const search = inMemorySearch(dir);
    const loadMs = performance.now() - t1;
    for (const q of short.slice(0, 20)) search(q);
    const ms = timed(short, search);
    const ml = timed(long, search);
    inMemory = [
      ["held whole in memory (load " + loadMs.toFixed(0) + " ms)", "p50", "p99", "cpu p50", "cpu p99"],
      row("short", ms),
      row("question-length", ml),
    ];
  }
  console.table([...rows, ...inMemory]);
  const mib = (x: number) => x.toFixed(0);
  console.table([
    ["", "RSS MiB", "RssAnon MiB", "RssFile MiB"],
    ["before open", mib(before.rss), mib(before.anon), mib(before.file)],
    ["after open", mib(opened.rss), mib(opened.anon), mib(opened.file)],
    ["after the queries", mib(after.rss), mib(after.anon), mib(after.file)],
  ]);
  console.log(
    `open ${openMs.toFixed(1)} ms, ${readAtOpen.toLocaleString()} bytes of data pages read at open; ${firstPassMiB.toFixed(0)} MiB of pages read in the first pass; page cache ${(index.cache.bytes / 2 ** 20).toFixed(1)} MiB held, ${index.cache.misses.toLocaleString()} pages read in all`,
  );
  console.log("\n2. One page read from the OS cache (positional read) and its CRC, by block size\n");
  console.table(pageCosts());
  console.log(
    `pruned = exhaustive on ${same} of ${sample.length} queries; load average at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
