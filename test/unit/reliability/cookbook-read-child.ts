/**
 * Child process for the reliability suite: recognises and reads one tinker-cookbook folder the
 * way the Runs view does, and prints {cookbook, steps, lastStep, rssGrowthMb}: the peak resident
 * memory it took above the highest it had reached before the read. Run: node --import tsx cookbook-read-child.ts <dir>
 */
import { isCookbookLogDir, readCookbookRun } from "../../../src/core/views/interop/cookbook";

const dir = process.argv[2];
// The peak so far (KB), not the resident size now: loading and compiling the modules above (tsx, a
// cold cache after a change) can peak higher than what stays resident, and that peak is not the read's.
const before = process.resourceUsage().maxRSS;
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
