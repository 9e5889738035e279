/**
 * Training runs that can be overlaid on a dashboard: the other folders beside it that hold a
 * metrics.jsonl (SFT or GRPO, any status), and their metric series.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { listRuns } from "../../base/runs/run-files";
import { parseJsonl } from "../../base/util/jsonl";
import { METRICS_FILE, metricSeries, type OverlayRun } from "./dashboard-view";

/** Folders beside `runDir` with a metrics log, except `runDir` itself. */
export function overlayCandidates(runDir: string): string[] {
  const runsDir = dirname(runDir);
  return listRuns(runsDir)
    .filter((name) => name !== basename(runDir) && existsSync(join(runsDir, name, METRICS_FILE)))
    .map((name) => join(runsDir, name));
}

/** A run's series for an overlay; a missing or unreadable log gives no series (and says why). */
export function readOverlay(runDir: string): OverlayRun & { problem?: string } {
  const file = join(runDir, METRICS_FILE);
  if (!existsSync(file)) return { run: basename(runDir), series: [], problem: `${file} does not exist` };
  try {
    const rows = parseJsonl<Record<string, unknown>>(readFileSync(file, "utf8"), file, {
      tolerateTornTail: true,
    }).filter((r) => r && typeof r === "object");
    return { run: basename(runDir), series: metricSeries(rows) };
  } catch (e) {
    return { run: basename(runDir), series: [], problem: (e as Error).message };
  }
}
