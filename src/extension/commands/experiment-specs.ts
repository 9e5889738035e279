/**
 * The specs "Run Experiment…" offers and the job it starts, vscode-free (tested in plain Node):
 * experiment specs are the workspace's JSON files whose `format` is the experiment format, found a
 * few folders deep (not in node_modules, dot folders or the experiments' own workspaces); the job
 * is `agent-lab experiment run SPEC [--rehearse] --yes` (the confirmation, with the same estimate
 * `--dry-run` prints, is the user's yes), and its progress is the record folder's progress.json.
 */
import { readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { EXPERIMENT_SPEC_FORMAT, EXPERIMENTS_DIR, readExperimentSpec } from "../../core/steps/experiments/spec";
import { rehearsalSpec } from "../../core/steps/experiments/rehearsal";

export interface SpecFile {
  /** Absolute path. */
  file: string;
  /** Relative to the workspace folder, as the pick shows it. */
  rel: string;
  name: string;
  title: string;
  backend: string;
}

const SKIP = new Set(["node_modules", EXPERIMENTS_DIR, "runs", "data", "dist", "out"]);

/** Experiment specs under `folder`, sorted by path; files that are not specs (or not JSON) are left out. */
export function findExperimentSpecs(folder: string, maxDepth = 3): SpecFile[] {
  const out: SpecFile[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EACCES" || (e as NodeJS.ErrnoException).code === "ENOENT") return; // unreadable or gone while listing: nothing to offer there
      throw e;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < maxDepth && !e.name.startsWith(".") && !SKIP.has(e.name)) walk(p, depth + 1);
      } else if (e.isFile() && e.name.endsWith(".json")) {
        const head = peekSpec(p);
        if (head) out.push({ file: p, rel: path.relative(folder, p), ...head });
      }
    }
  };
  walk(folder, 0);
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}

/** The spec's name, title and backend when `file` is an experiment spec (checked fully only when picked). */
function peekSpec(file: string): Omit<SpecFile, "file" | "rel"> | undefined {
  try {
    const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    if (raw.format !== EXPERIMENT_SPEC_FORMAT) return undefined;
    return { name: String(raw.name ?? "?"), title: String(raw.title ?? ""), backend: String(raw.backend ?? "?") };
  } catch (e) {
    if (e instanceof SyntaxError) return undefined; // another JSON-ish file (comments, JSONC): not a spec
    throw e;
  }
}

export interface ExperimentJob {
  values: { yes: true; rehearse?: true };
  positionals: [string, string];
  title: string;
  /** The record folder (progress.json) in the experiment's default workspace under the folder. */
  runDir: string;
  /** Where the experiment's own runs are (the Jobs view marks them running). */
  runsRoot: string;
}

/** The job for a picked spec; the full spec check runs here, so a bad spec is refused (file:line) before any job. */
export function experimentJob(file: string, folder: string, rehearse: boolean): ExperimentJob {
  const spec = readExperimentSpec(file).spec;
  const name = rehearse ? rehearsalSpec(spec).name : spec.name;
  const ws = path.join(folder, EXPERIMENTS_DIR, name);
  return {
    values: rehearse ? { yes: true, rehearse: true } : { yes: true },
    positionals: ["run", file],
    title: `Experiment${rehearse ? " rehearsal" : ""}: ${name}`,
    runDir: path.join(ws, "runs", name),
    runsRoot: path.join(ws, "runs"),
  };
}
