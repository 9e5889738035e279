/**
 * One query process, the bench's queries several times over: how a long-running search process
 * (serve-search) times them once the pages it uses are faulted in and their blocks checked, against
 * the fresh process per round that run.ts and file-map-ab.ts time. The child (warm-passes-child.ts)
 * is bundled as query-child.ts is, so the timed code is the code users run; needs a
 * `run.ts --scale NAME` run first.
 *
 *   npx tsx bench/search/warm-passes.ts --scale 21M [--passes 3]   (AGENT_LAB_NO_FILE_MAP=1: paged)
 */
import { buildSync } from "esbuild";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { NODE_BUNDLE } from "../../scripts/node-bundle.mjs";
import { scaleWorkDir } from "./scale-corpus";
import { scaleArg } from "./scale-run";

function main(): void {
  const argv = process.argv.slice(2);
  const scale = scaleArg(argv);
  if (scale === undefined) throw new Error("--scale NAME: the scale whose run.ts work folder to time");
  const at = argv.indexOf("--passes");
  const passes = at >= 0 ? Number(argv[at + 1]) : 3;
  const dir = scaleWorkDir(join(__dirname, "..", ".work"), scale);
  const script = join(dir, "warm-passes-child.js");
  buildSync({
    ...NODE_BUNDLE,
    entryPoints: [join(__dirname, "warm-passes-child.ts")],
    outfile: script,
    logLevel: "warning",
  });
  console.log(
    "| pass | short p50 / p99 ms | question-length p50 / p99 ms | CPU user / sys s | page faults minor / major |\n|---|---|---|---|---|",
  );
  execFileSync(process.execPath, [script, dir, String(passes)], { stdio: "inherit" });
}

main();
