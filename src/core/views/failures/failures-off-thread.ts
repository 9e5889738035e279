/**
 * The Compare panel's failure labels of large runs, made in a worker thread (failures-worker.ts):
 * labelling reads every episode whole and decodes its text, which at 10,000 episodes held the
 * extension host for seconds after the report, and every Compare asked for in that time (another
 * baseline, other runs) waited for it.
 */
import { basename } from "node:path";
import { readRun } from "../../base/runs/run-files";
import { RequestWorker } from "../../base/util/request-worker";
import { requireWorkerScript } from "../../base/util/worker-thread";
import { compareRunFailures, type FailureComparison } from "./compare-failures";
import { environmentMetrics } from "../../envs/catalog";

export interface FailuresRequest {
  runDirs: string[];
  /** The report's run names (so the table's columns match the ablation table's). */
  names: string[];
  /** The workspace's data folder, for rules that read the environment's data. */
  dataDir: string | undefined;
}

/** The runs' failure labels compared (undefined when their environment declares none). */
export async function compareFailuresOfDirs(req: FailuresRequest): Promise<FailureComparison | undefined> {
  const runs = req.runDirs.map((dir, i) => {
    const { manifest, episodes } = readRun(dir, environmentMetrics);
    return { name: req.names[i] ?? basename(dir), manifest, episodes };
  });
  return await compareRunFailures(runs, { dataDir: req.dataDir });
}

/** A worker answering FailuresRequests (the bundled one next to the extension, or the .ts source under tsx). */
export function failuresWorker(): RequestWorker<FailuresRequest, FailureComparison | undefined> {
  return new RequestWorker(
    () => requireWorkerScript(__dirname, ["failures-worker.js", "failures-worker.ts"], "the failure labels' worker"),
    "the failure labels' worker",
  );
}
