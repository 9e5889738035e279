/**
 * Times our queries in a process of its own, as bm25s_runner.py times bm25s in its: open the index,
 * wait for its background fill (the files that fit the page cache read into it and their blocks
 * checked: what bm25s's load does before its timed queries), 20 warm-up queries, then each query
 * once with its wall-clock and CPU time.
 * Also the process's memory (process-memory.ts) after open and every 50 queries: the most it held
 * less file-backed pages (anonymous and shared memory: what the process owns; pages of mapped
 * files are the kernel's to drop and read again).
 * Over a mapped index on two cores or more, heavy queries are split with a helper thread
 * (search-helper.ts): its CPU time is counted in cpu_seconds, its memory in the process's.
 *
 *   npx tsx bench/search/query-child.ts INDEX_DIR QUERIES.json OUT.json [exhaustive]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { openIndex } from "../../src/core/base/search/bm25-index";
import { processMemory, type ProcessMemory } from "./process-memory";

/** What one system's pass over the queries measured (bm25s_runner.py writes the same fields). */
export interface QueryRun {
  seconds: number[];
  /** CPU time of the searching process per query: less sensitive to other jobs on the shared cores. */
  cpu_seconds: number[];
  ids: number[][];
  scores: number[][];
}

export const K = 3;

/** What query-child.ts writes. */
export interface QueryChildResult {
  /** Seconds to open the index. */
  load: number;
  /**
   * Seconds from open to the end of the background fill, the bytes it read, and whether a helper
   * thread searches half of each heavy query from then on (absent in results of older runs).
   */
  fill?: { seconds: number; bytes: number; helper?: boolean };
  /** Queries split with the helper thread, and those whose half it searched (Bm25Searcher.helperCounts). */
  helperCounts?: { split: number; byHelper: number };
  run: QueryRun;
  memory: {
    afterOpen: ProcessMemory;
    atEnd: ProcessMemory;
    /** The most resident memory seen less its file-backed pages. */
    maxOwned?: number;
    maxRss?: number;
  };
}

async function main(): Promise<void> {
  const [dir, queriesFile, outFile, mode] = process.argv.slice(2);
  const queries = JSON.parse(readFileSync(queriesFile, "utf8")) as string[];
  const t0 = performance.now();
  const index = openIndex(dir);
  const load = (performance.now() - t0) / 1000;
  const filled = await index.filled;
  const fill = { seconds: filled.seconds, bytes: filled.bytes, helper: filled.helper };
  const afterOpen = processMemory();
  let maxOwned: number | undefined;
  let maxRss: number | undefined;
  const sample = () => {
    const m = processMemory();
    if (m.rss === undefined) return;
    maxRss = Math.max(maxRss ?? 0, m.rss);
    maxOwned = Math.max(maxOwned ?? 0, m.rss - (m.rssFile ?? 0));
  };
  sample();
  const search = (q: string) => (mode === "exhaustive" ? index.searchExhaustive(q, K) : index.search(q, K));
  for (const q of queries.slice(0, 20)) search(q); // warm-up (JIT)
  const run: QueryRun = { seconds: [], cpu_seconds: [], ids: [], scores: [] };
  for (const [i, q] of queries.entries()) {
    if (i % 50 === 0) sample();
    const t = performance.now();
    const c = process.cpuUsage();
    const hits = search(q);
    const used = process.cpuUsage(c);
    run.seconds.push((performance.now() - t) / 1000);
    run.cpu_seconds.push((used.user + used.system) / 1e6);
    run.ids.push(hits.map((h) => h.id));
    run.scores.push(hits.map((h) => h.score));
  }
  sample();
  const result: QueryChildResult = {
    load,
    fill,
    run,
    memory: { afterOpen, atEnd: processMemory(), maxOwned, maxRss },
    helperCounts: index.helperCounts,
  };
  writeFileSync(outFile, JSON.stringify(result));
}

if (require.main === module) void main();
