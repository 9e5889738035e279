/**
 * Times our queries in a process of its own, as bm25s_runner.py times bm25s in its: open the index
 * (every CRC checked), 20 warm-up queries, then each query once with its wall-clock and CPU time.
 *
 *   npx tsx bench/search/query-child.ts INDEX_DIR QUERIES.json OUT.json [exhaustive]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { openIndex } from "../../src/core/base/search/bm25-index";

/** What one system's pass over the queries measured (bm25s_runner.py writes the same fields). */
export interface QueryRun {
  seconds: number[];
  /** CPU time of the searching process per query: less sensitive to other jobs on the shared cores. */
  cpu_seconds: number[];
  ids: number[][];
  scores: number[][];
}

export const K = 3;

function main(): void {
  const [dir, queriesFile, outFile, mode] = process.argv.slice(2);
  const queries = JSON.parse(readFileSync(queriesFile, "utf8")) as string[];
  const t0 = performance.now();
  const index = openIndex(dir);
  const load = (performance.now() - t0) / 1000;
  const search = (q: string) => (mode === "exhaustive" ? index.searchExhaustive(q, K) : index.search(q, K));
  for (const q of queries.slice(0, 20)) search(q); // warm-up (JIT)
  const run: QueryRun = { seconds: [], cpu_seconds: [], ids: [], scores: [] };
  for (const q of queries) {
    const t = performance.now();
    const c = process.cpuUsage();
    const hits = search(q);
    const used = process.cpuUsage(c);
    run.seconds.push((performance.now() - t) / 1000);
    run.cpu_seconds.push((used.user + used.system) / 1e6);
    run.ids.push(hits.map((h) => h.id));
    run.scores.push(hits.map((h) => h.score));
  }
  writeFileSync(outFile, JSON.stringify({ load, run }));
}

if (require.main === module) main();
