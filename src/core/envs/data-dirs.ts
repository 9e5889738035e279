import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import type { AgentLabConfig } from "../base/config";
import { SPLITS_FILE } from "../base/data/splits";
import { defaultCorpusFile, defaultIndexDir, indexIsCurrent } from "../base/search/index-location";
import { environmentInfo } from "./catalog";

/**
 * Where an environment keeps its data under the config's dataDir: in dataDir itself when its info
 * says so (the first environment's, so workspaces from before environments keep working), else in
 * dataDir/<name>. Pure, so the cost estimate can find a split's file without loading an environment.
 */
export function environmentDataDir(env: string, dataDir: string): string {
  return environmentInfo(env)?.dataInDataDir ? dataDir : join(dataDir, env);
}

/** The split files every environment's `prepare` writes (splits.json, written last, records them and any others). */
export const PREPARED_SPLIT_FILES: readonly string[] = Object.freeze(["train.jsonl", "val.jsonl", "test.jsonl"]);

/** What a data folder lacks of what `prepare` writes; an empty list = prepared. */
export interface EnvironmentData {
  env: string;
  /** The environment's data folder (absolute when dataDir is). */
  dir: string;
  /** File names under `dir`, in the order prepare's record lists them. */
  missing: string[];
}

/**
 * What of an environment's prepared data is not on disk: the three splits and splits.json, and
 * every other file splits.json records (a search corpus). Only that the files are there: their
 * content (the locked test hash, each row) is checked by the step that reads them, which names the
 * problem; a splits.json that cannot be read counts as there, for the same reason.
 */
export function environmentData(env: string, dataDir: string): EnvironmentData {
  const dir = environmentDataDir(env, dataDir);
  const names = [...PREPARED_SPLIT_FILES];
  for (const f of recordedFiles(dir)) if (!names.includes(f)) names.push(f);
  names.push(SPLITS_FILE);
  return { env, dir, missing: names.filter((f) => !existsSync(join(dir, f))) };
}

/** The files a data folder's splits.json records; none when it is missing or cannot be read. */
function recordedFiles(dir: string): string[] {
  const record = join(dir, SPLITS_FILE);
  if (!existsSync(record)) return [];
  try {
    const files = (JSON.parse(readFileSync(record, "utf8")) as { files?: unknown }).files;
    return files && typeof files === "object" ? Object.keys(files) : [];
  } catch {
    return []; // torn or foreign: the step that reads it says what is wrong with it, in its own words
  }
}

/** The workspace's dataDir, absolute. */
export function workspaceDataDir(workspaceDir: string, config: Pick<AgentLabConfig, "dataDir">): string {
  return isAbsolute(config.dataDir) ? config.dataDir : join(workspaceDir, config.dataDir);
}

/**
 * One line on an environment's missing data, paths relative to the workspace, or undefined when it
 * is prepared: "math has no prepared data (nothing in data/math)", "math's data is not all prepared: data/math lacks val.jsonl".
 */
export function missingDataLine(
  workspaceDir: string,
  config: Pick<AgentLabConfig, "dataDir">,
  env: string,
): string | undefined {
  const data = environmentData(env, workspaceDataDir(workspaceDir, config));
  if (data.missing.length === 0) return undefined;
  const shown = relative(workspaceDir, data.dir) || ".";
  const all = data.missing.length === PREPARED_SPLIT_FILES.length + 1;
  return all
    ? `${env} has no prepared data (nothing in ${shown})`
    : `${env}'s data is not all prepared: ${shown} lacks ${data.missing.join(", ")}`;
}

/**
 * One line when `env` searches (it has tools) the index `agent-lab index` builds of the corpus its
 * prepared data holds, and that index is not built (or is of an older format); else undefined.
 * Environments whose data holds no such corpus bring their own tools: nothing to say for them.
 */
export function missingIndexLine(
  workspaceDir: string,
  config: Pick<AgentLabConfig, "dataDir">,
  env: string,
): string | undefined {
  if (!environmentInfo(env)?.hasTools) return undefined;
  const dataDir = workspaceDataDir(workspaceDir, config);
  const corpus = defaultCorpusFile("", { dataDir });
  const dir = environmentDataDir(env, dataDir);
  if (dirname(corpus) !== dir || !recordedFiles(dir).includes(basename(corpus))) return undefined;
  const index = defaultIndexDir("", { dataDir });
  return indexIsCurrent(index)
    ? undefined
    : `${env} searches the index in ${relative(workspaceDir, index)}, which is not built yet`;
}

/** One line when the search index has no corpus to build from (`agent-lab index` reads dataDir's), else undefined. */
export function missingCorpusLine(workspaceDir: string, config: Pick<AgentLabConfig, "dataDir">): string | undefined {
  const file = defaultCorpusFile("", { dataDir: workspaceDataDir(workspaceDir, config) });
  return existsSync(file) ? undefined : `no corpus to index: ${relative(workspaceDir, file)} is missing`;
}
