/**
 * Same-process A/B of the query code on one index: this tree's search() against exhaustive scoring
 * and, with --against, another version of bm25-index.ts (e.g. the previous commit's, rewritten to
 * import from src/). The systems run interleaved query by query, each query `--reps` times, and the
 * minimum CPU time per query is kept: on shared cores a slow neighbour then shows up in no
 * system's numbers more than another's. Also checks that search() equals exhaustive scoring.
 *
 *   npx tsx bench/search/run.ts --quick                      # once: builds the corpus, the index, the queries
 *   npx tsx bench/search/compare-query.ts [--docs 50000] [--queries 200] [--reps 3]
 *   git show HEAD~1:src/core/base/search/bm25-index.ts | sed 's#from "\./#from "../../src/core/base/search/#; s#from "\.\./errors"#from "../../src/core/base/errors"#' > bench/.work/old-bm25-index.ts
 *   npx tsx bench/search/compare-query.ts --against bench/.work/old-bm25-index.ts
 *   options: --index DIR --query-file FILE (default: the files run.ts wrote for --docs/--queries);
 *   --against-index DIR: the same corpus indexed in the format the --against version reads
 */
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { openIndex } from "../../src/core/base/search/bm25-index";
import type { SearchHit } from "../../src/core/base/search/searcher";
import { table } from "./report";

const WORK = resolve(__dirname, "..", ".work");
const K = 3;

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

type Search = (q: string) => SearchHit[];

function cpuMs(search: Search, q: string, reps: number): { ms: number; hits: SearchHit[] } {
  let best = Infinity;
  let hits: SearchHit[] = [];
  for (let r = 0; r < reps; r++) {
    const c = process.cpuUsage();
    hits = search(q);
    const used = process.cpuUsage(c);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return { ms: best, hits };
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const docs = Number(arg(argv, "--docs") ?? 50_000);
  const queryCount = Number(arg(argv, "--queries") ?? (docs >= 500_000 ? 500 : 200));
  const reps = Number(arg(argv, "--reps") ?? 3);
  const indexDir = resolve(arg(argv, "--index") ?? join(WORK, `syn${docs}-ours`));
  const queryFile = resolve(arg(argv, "--query-file") ?? join(WORK, `syn${docs}-${queryCount}-queries.json`));
  if (!existsSync(indexDir) || !existsSync(queryFile)) {
    throw new Error(
      `no index ${indexDir} or queries ${queryFile}: run "npx tsx bench/search/run.ts --docs ${docs} --queries ${queryCount} --no-bm25s" first, or pass --index and --query-file`,
    );
  }
  const { short, long } = JSON.parse(readFileSync(queryFile, "utf8")) as { short: string[]; long: string[] };
  const index = openIndex(indexDir);
  await index.filled; // the queries run from memory where the index fits the budget, as run.ts's do
  const systems: [string, Search][] = [
    ["this tree: search()", (q) => index.search(q, K)],
    ["this tree: exhaustive", (q) => index.searchExhaustive(q, K)],
  ];
  const against = arg(argv, "--against");
  if (against) {
    const mod = (await import(resolve(against))) as {
      openIndex: (dir: string) => { search: (q: string, k: number) => SearchHit[] };
    };
    // An older version may read only an older index format: --against-index gives its copy of the same corpus.
    const other = mod.openIndex(resolve(arg(argv, "--against-index") ?? indexDir));
    if ("filled" in other) await other.filled;
    systems.push([`--against ${against}`, (q) => other.search(q, K)]);
  }
  const load = loadavg()[0];
  for (const q of [...short, ...long].slice(0, 40)) for (const [, s] of systems) s(q); // warm-up (JIT)
  const times = systems.map(() => ({ short: [] as number[], long: [] as number[] }));
  let identical = 0;
  const all: [string, "short" | "long"][] = [
    ...short.map((q) => [q, "short"] as [string, "short"]),
    ...long.map((q) => [q, "long"] as [string, "long"]),
  ];
  for (const [q, kind] of all) {
    const got = systems.map(([, s]) => cpuMs(s, q, reps));
    got.forEach((g, i) => times[i][kind].push(g.ms));
    const key = (hits: SearchHit[]) => JSON.stringify(hits.map((h) => [h.id, h.score]));
    if (key(got[0].hits) === key(got[1].hits)) identical++;
  }
  const rows = [
    [
      "CPU ms per query (min of reps)",
      "short p50",
      "short p99",
      "long p50",
      "long p99",
      "long p50 vs this tree",
      "long p99 vs this tree",
    ],
  ];
  times.forEach((t, i) => {
    const f = (x: number) => x.toFixed(3);
    rows.push([
      systems[i][0],
      f(percentile(t.short, 0.5)),
      f(percentile(t.short, 0.99)),
      f(percentile(t.long, 0.5)),
      f(percentile(t.long, 0.99)),
      `${(percentile(t.long, 0.5) / percentile(times[0].long, 0.5)).toFixed(2)}×`,
      `${(percentile(t.long, 0.99) / percentile(times[0].long, 0.99)).toFixed(2)}×`,
    ]);
  });
  console.log(
    `\nQuery A/B on ${indexDir} (${short.length} short, ${long.length} long queries, k ${K}, ${reps} reps; load average ${load.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after)\n`,
  );
  console.log(table(rows));
  console.log(`\nsearch() identical to exhaustive scoring (ids and scores): ${identical}/${all.length} queries.`);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
