/**
 * A run's failure labels from its records: the rules of the environment its manifest names
 * (envs/registry.ts failureLabels), that environment's data from the workspace's data folder, and
 * the episodes' text decoded with the run's tokenizer (when it cannot be loaded, rules that read
 * text say so in their evidence). Undefined when the environment declares no labels.
 */
import type { ChatTokenizer } from "../../base/chat/tokenizer";
import { manifestEnvironment } from "../../envs/manifest-environment";
import type { RunManifest } from "../../base/runs/manifest";
import type { EpisodeRecord } from "../../base/runs/run-files";
import { tokenizerForRun } from "../../base/runs/run-tokenizer";
import { environmentByName, failureLabels } from "../../envs/registry";
import type { FailureLabels, FailureVerdict } from "../../harness/failures";
import { tokenTexts } from "./episode-texts";
import { failureTable, labelEpisodes, type FailureTable } from "./failure-table";

export interface RunFailures {
  table: FailureTable;
  /** Each failed episode's verdict, by id (an episode that did not fail is absent). */
  byId: ReadonlyMap<string, FailureVerdict>;
}

export interface RunFailureSources {
  manifest: RunManifest | undefined;
  episodes: readonly EpisodeRecord[];
  /** The workspace's data folder (config dataDir, absolute); absent: rules run without the environment's data. */
  dataDir?: string;
  /** Decodes the episodes' tokens; absent: no text. */
  tokenizer?: Pick<ChatTokenizer, "decode">;
}

/** The environment's data its rules read, or undefined when it declares none or has no data folder here. */
function environmentData(env: string, rules: FailureLabels, dataDir: string | undefined): unknown {
  if (!rules.loadData || dataDir === undefined) return undefined;
  return rules.loadData(environmentByName(env).data.dir(dataDir));
}

/** Labels and counts; undefined when the run's environment declares no failure labels. */
export function labelRunFailures(o: RunFailureSources): RunFailures | undefined {
  const env = manifestEnvironment(o.manifest).name;
  const rules = failureLabels(env);
  if (!rules) return undefined;
  const data = environmentData(env, rules, o.dataDir);
  const verdicts = labelEpisodes(rules, o.episodes, (r) => tokenTexts(r, o.tokenizer), data);
  const byId = new Map<string, FailureVerdict>();
  verdicts.forEach((v, i) => v && byId.set(o.episodes[i].id, v));
  return { table: failureTable(env, rules, o.episodes, verdicts), byId };
}

/** As labelRunFailures, loading the run's tokenizer first (what `show`, Compare and ablate do). */
export async function readRunFailures(o: Omit<RunFailureSources, "tokenizer">): Promise<RunFailures | undefined> {
  const { tokenizer } = await tokenizerForRun(o.manifest?.tokenizer);
  return labelRunFailures({ ...o, tokenizer });
}
