/**
 * The Runs tree's "failures by label": a run's failed episodes grouped by its environment's failure
 * labels (core/views/failures), largest group first, each episode a row that opens its trace. The
 * labels are computed when the node is expanded, in the trace worker (the run's tokenizer decodes
 * the text the rules read) and cached by episodes.jsonl's size and mtime; nothing is written into the run.
 */
import { statSync } from "node:fs";
import { readRun } from "../../core/base/runs/run-files";
import { runFile } from "../../core/base/runs/run-folder";
import { episodeRow, type EpisodeRow } from "./runs-model";
import { environmentMetrics } from "../../core/envs/catalog";
import { traceDecoder } from "../trace/trace-off-thread";

export interface FailureGroup {
  label: string;
  description: string;
  tooltip: string;
  episodes: EpisodeRow[];
}

/** The groups of a run; undefined when its environment declares no failure labels. */
export async function failureGroups(
  runDir: string,
  env: string | undefined,
  dataDir: string | undefined,
): Promise<FailureGroup[] | undefined> {
  // Labelled in the trace worker, which has the environments' code and the run's tokenizer (not this thread).
  const failures = await traceDecoder.runFailures(runDir, dataDir);
  if (!failures) return undefined;
  // The rows' episodes, read here: an episode written since the worker read the run has no verdict and no row.
  const { episodes } = readRun(runDir, environmentMetrics);
  const total = failures.table.episodes;
  return failures.table.rows
    .filter((r) => r.count > 0)
    .map((r) => ({
      label: r.label,
      description: `${r.count} (${Math.round((100 * r.count) / total)}%)`,
      tooltip: `${r.description}${r.sub_labels.length ? `\n${r.sub_labels.map((s) => `${s.name} ${s.count}`).join(", ")}` : ""}`,
      episodes: episodes
        .filter((e) => failures.byId.get(e.id)?.label === r.label)
        .map((e) => {
          const row = episodeRow(e, env);
          const v = failures.byId.get(e.id)!;
          return {
            ...row,
            tooltip: `${row.tooltip}\n${v.label}${v.subLabel ? ` (${v.subLabel})` : ""}: ${v.evidence}`,
          };
        }),
    }));
}

/** failureGroups cached per run by episodes.jsonl's size and mtime. */
export class FailureGroupCache {
  private readonly cache = new Map<string, { key: string; groups: Promise<FailureGroup[] | undefined> }>();

  groups(runDir: string, env: string | undefined, dataDir: string | undefined): Promise<FailureGroup[] | undefined> {
    let key: string;
    try {
      const st = statSync(runFile(runDir, "episodes"));
      key = `${st.size}:${st.mtimeMs}:${env ?? ""}:${dataDir ?? ""}`;
    } catch {
      return Promise.resolve([]);
    }
    const hit = this.cache.get(runDir);
    if (hit && hit.key === key) return hit.groups;
    const groups = failureGroups(runDir, env, dataDir);
    this.cache.set(runDir, { key, groups });
    // A failed read is not kept: the next expand tries again.
    groups.catch(() => this.cache.delete(runDir));
    return groups;
  }
}
