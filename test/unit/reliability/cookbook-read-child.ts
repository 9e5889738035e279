/**
 * Child process for the reliability suite: recognises and reads one tinker-cookbook folder the
 * way the Runs view does, and prints {cookbook, steps, lastStep, rssGrowthMb}: the peak resident
 * memory it took above what the process held before. Run: node --import tsx cookbook-read-child.ts <dir>
 */
import { isCookbookLogDir, readCookbookRun } from "../../../src/core/views/interop/cookbook";

const dir = process.argv[2];
const before = process.memoryUsage().rss / 1024; // KB, as maxRSS
const cookbook = isCookbookLogDir(dir);
const run = readCookbookRun(dir);
const peak = process.resourceUsage().maxRSS;
console.log(
  JSON.stringify({
    cookbook,
    steps: run.steps,
    lastStep: run.lastStep,
    rssGrowthMb: Math.round((peak - before) / 1024),
  }),
);
