/**
 * One query process, the bench's queries several times over: how a long-running search process
 * (serve-search) times them once the pages it uses are faulted in and their blocks checked, against
 * the fresh process per round that run.ts and file-map-ab.ts time. Bundled and run as query-child.ts
 * is (the timed code is the code users run); needs a `run.ts --scale NAME` run first.
 *
 *   npx tsx bench/search/warm-passes.ts --scale 21M [--passes 3]   (AGENT_LAB_NO_FILE_MAP=1: paged)
 */
import { buildSync } from "esbuild";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { NODE_BUNDLE } from "../../scripts/node-bundle.mjs";
import { openIndex } from "../../src/core/base/search/bm25-index";
import { scaleWorkDir } from "./scale-corpus";
import { scaleArg } from "./scale-run";

/** Nearest-rank quantile, as file-map-ab.ts takes it. */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function child(dir: string, passes: number): Promise<void> {
  const queries = JSON.parse(readFileSync(join(dir, "query-list.json"), "utf8")) as string[];
  const short = (JSON.parse(readFileSync(join(dir, "queries.json"), "utf8")) as { short: string[] }).short.length;
  const index = openIndex(join(dir, "ours-index"));
  const filled = await index.filled;
  for (const q of queries.slice(0, 20)) index.search(q, 3); // warm-up (JIT), as query-child.ts
  for (let pass = 1; pass <= passes; pass++) {
    const ms = queries.map((q) => {
      const t = performance.now();
      index.search(q, 3);
      return performance.now() - t;
    });
    const [s, l] = [ms.slice(0, short), ms.slice(short)];
    const f = (xs: number[], q: number) => quantile(xs, q).toFixed(2);
    console.log(`| ${pass} | ${f(s, 0.5)} / ${f(s, 0.99)} | ${f(l, 0.5)} / ${f(l, 0.99)} |`);
  }
  console.log(`\nmapped: ${filled.mapped.join(", ") || "none (paged)"}`);
  index.close();
}

function main(): void {
  const argv = process.argv.slice(2);
  if (argv[0] === "--child") return void child(argv[1], Number(argv[2]));
  const scale = scaleArg(argv);
  if (scale === undefined) throw new Error("--scale NAME: the scale whose run.ts work folder to time");
  const at = argv.indexOf("--passes");
  const passes = at >= 0 ? Number(argv[at + 1]) : 3;
  const dir = scaleWorkDir(join(__dirname, "..", ".work"), scale);
  const script = join(dir, "warm-passes.js");
  buildSync({ ...NODE_BUNDLE, entryPoints: [__filename], outfile: script, logLevel: "warning" });
  console.log("| pass | short p50 / p99 ms | question-length p50 / p99 ms |\n|---|---|---|");
  execFileSync(process.execPath, [script, "--child", dir, String(passes)], { stdio: "inherit" });
}

main();
