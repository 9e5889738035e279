/**
 * warm-passes.ts's child, bundled by it: one process opens the index of a scale's work folder,
 * waits for its fill, runs 20 warm-up queries (as query-child.ts) and then the queries `passes`
 * times, printing a table row per pass (report.ts's nearestRank, as file-map-ab.ts's) with its CPU
 * time and page faults.
 *
 *   node warm-passes-child.js WORK_DIR PASSES
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openIndex } from "../../src/core/base/search/bm25-index";
import { nearestRank } from "./report";

const quantile = (values: number[], q: number): string => nearestRank(values, q).toFixed(2);

async function main(): Promise<void> {
  const [dir, passes] = process.argv.slice(2);
  const queries = JSON.parse(readFileSync(join(dir, "query-list.json"), "utf8")) as string[];
  const short = (JSON.parse(readFileSync(join(dir, "queries.json"), "utf8")) as { short: string[] }).short.length;
  const index = openIndex(join(dir, "ours-index"));
  const filled = await index.filled;
  for (const q of queries.slice(0, 20)) index.search(q, 3);
  for (let pass = 1; pass <= Number(passes); pass++) {
    const before = process.resourceUsage();
    const ms = queries.map((q) => {
      const t = performance.now();
      index.search(q, 3);
      return performance.now() - t;
    });
    // Where a pass's time went: the CPU in the search (user) or in the kernel (sys: page faults,
    // reads), and the page faults (minor: a page already in the OS's cache entered in this process).
    const after = process.resourceUsage();
    const user = ((after.userCPUTime - before.userCPUTime) / 1e6).toFixed(2);
    const sys = ((after.systemCPUTime - before.systemCPUTime) / 1e6).toFixed(2);
    const faults = `${after.minorPageFault - before.minorPageFault} / ${after.majorPageFault - before.majorPageFault}`;
    const [s, l] = [ms.slice(0, short), ms.slice(short)];
    console.log(
      `| ${pass} | ${quantile(s, 0.5)} / ${quantile(s, 0.99)} | ${quantile(l, 0.5)} / ${quantile(l, 0.99)} | ${user} / ${sys} | ${faults} |`,
    );
  }
  console.log(`\nmapped: ${filled.mapped.join(", ") || "none (paged)"}`);
  index.close();
}

void main();
