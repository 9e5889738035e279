/**
 * The default reader against another: the same index and queries timed with the list files mapped
 * (file-map.ts, the default where the addon is built) and heavy queries split with a helper thread
 * (search-helper.ts, the default over a mapped index on two cores), against positional reads
 * through the page cache (`--against paged`: AGENT_LAB_NO_FILE_MAP=1) or the mapped lists on one
 * thread (`--against one-thread`: AGENT_LAB_NO_SEARCH_HELPER=1), in interleaved rounds, a fresh
 * query-child.ts process per pass, the order alternating. Needs a `run.ts --scale NAME` run first
 * (its corpus, queries and index) and `npm run build` (the addon and the helper's worker script);
 * prints a table of each pass and the medians, and checks that both return the same ids and scores.
 *
 *   npx tsx bench/search/file-map-ab.ts --scale 5.2M [--rounds 4] [--against paged|one-thread]
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileMapper, NO_FILE_MAP_ENV } from "../../src/core/base/search/file-map";
import { NO_SEARCH_HELPER_ENV } from "../../src/core/base/search/search-helper";
import type { QueryChildResult } from "./query-child";
import { queryChildScript } from "./query-child-bundle";
import { nearestRank } from "./report";
import { scaleArg } from "./scale-run";
import { scaleWorkDir } from "./scale-corpus";

type Mode = "mapped" | "paged" | "one-thread";

const median = (values: number[]) => nearestRank(values, 0.5);

function main(): void {
  const argv = process.argv.slice(2);
  const scale = scaleArg(argv);
  if (scale === undefined) throw new Error("--scale NAME: the scale whose run.ts work folder to time");
  const roundsAt = argv.indexOf("--rounds");
  const rounds = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 4;
  const againstAt = argv.indexOf("--against");
  const against = (againstAt >= 0 ? argv[againstAt + 1] : "paged") as Mode;
  if (against !== "paged" && against !== "one-thread") throw new Error("--against paged|one-thread");
  if (fileMapper() === undefined) throw new Error("no mmap addon: `npm run build` builds dist/native/file-map.node");
  const dir = scaleWorkDir(join(__dirname, "..", ".work"), scale);
  const index = join(dir, "ours-index");
  const queryList = join(dir, "query-list.json");
  if (!existsSync(index) || !existsSync(queryList))
    throw new Error(`${dir}: no index or query list; run \`npx tsx bench/search/run.ts --scale ${scale.name}\` first`);
  const short = (JSON.parse(readFileSync(join(dir, "queries.json"), "utf8")) as { short: string[] }).short.length;
  const script = queryChildScript(dir);
  const rows: Record<Mode, number[][]> = { mapped: [], paged: [], "one-thread": [] };
  let reference: string | undefined;
  console.log(
    "| round | reader | load | fill s | owned GiB | split / by helper | short p50 / p99 ms | question p50 / p99 ms |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (let r = 0; r < rounds; r++) {
    const order: Mode[] = r % 2 === 0 ? ["mapped", against] : [against, "mapped"];
    for (const mode of order) {
      const out = join(dir, `file-map-ab-${mode}.json`);
      const env = { ...process.env };
      delete env[NO_FILE_MAP_ENV];
      delete env[NO_SEARCH_HELPER_ENV];
      if (mode === "paged") env[NO_FILE_MAP_ENV] = "1";
      if (mode === "one-thread") env[NO_SEARCH_HELPER_ENV] = "1";
      execFileSync(process.execPath, [script, index, queryList, out], { env, stdio: "inherit" });
      const result = JSON.parse(readFileSync(out, "utf8")) as QueryChildResult;
      const ms = result.run.seconds.map((s) => s * 1000);
      const answers = JSON.stringify([result.run.ids, result.run.scores]);
      reference ??= answers;
      if (answers !== reference) throw new Error(`round ${r + 1}, ${mode}: results differ from the first pass`);
      const row = [
        nearestRank(ms.slice(0, short), 0.5),
        nearestRank(ms.slice(0, short), 0.99),
        nearestRank(ms.slice(short), 0.5),
        nearestRank(ms.slice(short), 0.99),
      ];
      rows[mode].push(row);
      const owned = (result.memory.maxOwned ?? NaN) / 2 ** 30;
      console.log(
        `| ${r + 1} | ${mode} | ${loadavg()[0].toFixed(2)} | ${result.fill?.seconds.toFixed(2)} | ${owned.toFixed(2)} | ` +
          `${result.helperCounts?.split ?? 0} / ${result.helperCounts?.byHelper ?? 0} | ` +
          `${row[0].toFixed(2)} / ${row[1].toFixed(2)} | ${row[2].toFixed(2)} / ${row[3].toFixed(2)} |`,
      );
    }
  }
  const col = (mode: Mode, i: number) => median(rows[mode].map((row) => row[i]));
  console.log(`\nlower medians of ${rounds} rounds (ms), mapped / ${against}; identical ids and scores in every pass:`);
  for (const [name, i] of [
    ["short p50", 0],
    ["short p99", 1],
    ["question p50", 2],
    ["question p99", 3],
  ] as const)
    console.log(
      `  ${name}: ${col("mapped", i).toFixed(2)} / ${col(against, i).toFixed(2)} = ${(col("mapped", i) / col(against, i)).toFixed(2)}×`,
    );
}

main();
