/**
 * What a report on an environment's runs says about them besides the numbers (whose labels the
 * report itself records): the dataset in its heading, whether searches are a column, and its
 * limitation line. From the light list of environments (envs/catalog.ts), except for runs of the
 * implied environment (manifest-environment.ts) made on the pipeline's synthetic world before the
 * world had its own name, which carry that world's caveat. The world is recognised from the data
 * folder the runs were made on (its splits.json names the synthetic source and holds the runs'
 * split file hash), so `agent-lab ablate` run by hand in a pipeline folder writes the same lines as
 * the pipeline's report.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SPLITS_FILE } from "../../base/data/splits";
import { IMPLIED_ENVIRONMENT } from "../../envs/manifest-environment";
import { environmentInfo, worldOf } from "../../envs/catalog";
import type { EnvironmentId } from "../../harness/environment";

/** The implied environment's offline world: runs of the implied environment made on it before it had its own name carry its lines. */
const IMPLIED_WORLD = (() => {
  const world = environmentInfo(worldOf(IMPLIED_ENVIRONMENT.name) ?? "");
  if (!world?.preparedSource)
    throw new Error(
      "envs/catalog.ts: the implied environment's offline world (with its preparedSource) is not declared",
    );
  return world;
})();

/** How `prepare` names that world in splits.json's `source` (then its style and seed): its info's. */
export const SYNTHETIC_WORLD_SOURCE: string = IMPLIED_WORLD.preparedSource!;

/**
 * The synthetic world's heading and caveat, in place of the real dataset's line: the implied
 * environment's world's (its info in envs/), for runs of the implied environment made on the world
 * before it had its own name (recognised from the data folder).
 */
export const SYNTHETIC_REPORT: { readonly dataset: string; readonly limitation: string } = Object.freeze({
  dataset: IMPLIED_WORLD.dataset,
  limitation: IMPLIED_WORLD.limitation,
});

export interface ReportEnvironment {
  /** The environment's name (the report's `environment.name`). */
  name: string;
  /** For the heading: "Results on <dataset> test". */
  dataset: string;
  hasTools: boolean;
  limitation: string;
}

export interface ReportEnvironmentOptions {
  /** The data folder the runs were made on (the config's dataDir), to recognise the synthetic world. */
  dataDir?: string;
  /** The baseline's split as its manifest records it (file name and sha256). */
  split?: { file: string; sha256: string } | null;
}

/** Whether `dataDir` holds the synthetic world and the runs' split is its file. */
export function isSyntheticWorld(dataDir: string, split: { file: string; sha256: string }): boolean {
  const file = join(dataDir, SPLITS_FILE);
  if (!existsSync(file)) return false;
  let record: { source?: unknown; files?: Record<string, { sha256?: unknown }> };
  try {
    record = JSON.parse(readFileSync(file, "utf8")) as typeof record;
  } catch {
    // A damaged splits.json is for `prepare` to report; here it only means "not recognisably synthetic".
    return false;
  }
  return (
    typeof record.source === "string" &&
    record.source.startsWith(SYNTHETIC_WORLD_SOURCE) &&
    record.files?.[split.file]?.sha256 === split.sha256
  );
}

/** The report lines for runs of `env`; an environment this build does not know gets neutral ones. */
export function reportEnvironment(env: EnvironmentId, o: ReportEnvironmentOptions = {}): ReportEnvironment {
  const info = environmentInfo(env.name);
  if (!info) return { name: env.name, dataset: env.name, hasTools: true, limitation: "" };
  const base = { name: info.name, dataset: info.dataset, hasTools: info.hasTools, limitation: info.limitation };
  if (info.name === IMPLIED_ENVIRONMENT.name && o.dataDir && o.split && isSyntheticWorld(o.dataDir, o.split))
    return { ...base, ...SYNTHETIC_REPORT };
  return base;
}
