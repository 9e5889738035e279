/**
 * The prompt file's code lens line: the most common failure label of the last eval that ran with
 * this prompt file ("most common failure in prompt-system-1a2b3c4d: answer_too_long, 23 of 85
 * failures"). The eval is the newest run folder whose manifest's system_prompt names the file
 * (manifests record the prompt's file name and the sha256 of its text: an edited prompt is still
 * the same file, which is what the prompt loop reruns).
 */
import { readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { RunManifest } from "../../base/runs/manifest";
import { readJsonFile, readRun } from "../../base/runs/run-files";
import { runFile } from "../../base/runs/run-folder";
import { readRunFailures } from "./run-failures";
import { environmentMetrics } from "../../envs/catalog";

/** The newest run under `runsDir` whose manifest records `promptFile` as its system prompt (undefined: none). */
export function lastRunWithPrompt(runsDir: string, promptFile: string): string | undefined {
  const want = basename(promptFile);
  let best: { dir: string; at: number } | undefined;
  let entries: string[];
  try {
    entries = readdirSync(runsDir);
  } catch {
    return undefined; // no runs folder yet
  }
  for (const name of entries) {
    const dir = join(runsDir, name);
    const file = runFile(dir, "manifest");
    let manifest: Partial<RunManifest> | undefined;
    let at: number;
    try {
      manifest = readJsonFile<Partial<RunManifest>>(file);
      at = statSync(file).mtimeMs;
    } catch {
      continue; // not a run folder, or a manifest that does not read: not this prompt's eval
    }
    const used = manifest?.system_prompt?.file;
    if (typeof used !== "string") continue;
    if (basename(used) !== want) continue;
    if (!best || at > best.at) best = { dir, at };
  }
  return best?.dir;
}

/** The lens title, or undefined when no eval used the prompt or its environment declares no labels. */
export async function promptFailureLens(o: {
  runsDir: string;
  promptFile: string;
  dataDir?: string;
}): Promise<string | undefined> {
  const runDir = lastRunWithPrompt(o.runsDir, o.promptFile);
  if (!runDir) return undefined;
  const { manifest, episodes } = readRun(runDir, environmentMetrics);
  const f = await readRunFailures({ manifest, episodes, dataDir: o.dataDir });
  if (!f) return undefined;
  const name = runDir.split(/[\\/]/).pop();
  const top = f.table.rows[0];
  if (!top || top.count === 0) return `no failed episode in ${name}`;
  return `most common failure in ${name}: ${top.label}, ${top.count} of ${f.table.failed} failures`;
}
