/**
 * The trace viewer's failure labels for a run (core/views/failures): the labels with their counts,
 * largest first, and each failed episode's verdict, for the list's label filter and the episode
 * header. The environment's data is read from the workspace that holds the run (runs/<name> in a
 * folder with agent-lab.json); a run elsewhere is labelled without it. Labelled in the trace worker
 * (trace-decoding.ts), which has the environments' code and the run's tokenizer.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { CONFIG_FILE, readWorkspaceConfig } from "../../core/base/config";
import { mergeConfig } from "../../core/envs/config";
import { workspaceDataDir } from "../../core/envs/data-dirs";
import type { TraceFailures } from "../webview/protocol";
import { traceDecoder } from "./trace-off-thread";

/** The data folder of the workspace the run folder sits in, or undefined. */
function runDataDir(runDir: string): string | undefined {
  const ws = dirname(dirname(runDir));
  if (!existsSync(join(ws, CONFIG_FILE))) return undefined;
  try {
    return workspaceDataDir(ws, mergeConfig(readWorkspaceConfig(ws)));
  } catch {
    return undefined; // a config that does not read: the trace says so elsewhere; labels go without data
  }
}

/** Undefined when the run's environment declares no failure labels. */
export async function traceFailures(runDir: string): Promise<TraceFailures | undefined> {
  const f = await traceDecoder.runFailures(runDir, runDataDir(runDir));
  if (!f) return undefined;
  return {
    labels: f.table.rows
      .filter((r) => r.count > 0)
      .map((r) => ({ label: r.label, description: r.description, count: r.count })),
    byId: Object.fromEntries(f.byId),
  };
}
