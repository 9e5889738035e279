/**
 * Every experiment in a workspace, wherever `agent-lab experiment run` wrote it, and what it is
 * doing, derived from its files alone (the Experiments view lists these; no vscode, tested in plain
 * Node on a real experiment's folder):
 *
 * - where: an experiment's workspace is a folder holding agent-lab.json (experiments/<name>/ by
 *   default, anywhere with --dir); its record folder is the run folder in that workspace's runsDir
 *   whose manifest says `kind: "experiment"`. The opened folder itself is one such workspace too.
 * - state: running while a live process holds the record folder's writer lock; done once
 *   experiment.json is there; failed when progress.json says so; otherwise interrupted (started,
 *   stopped, resumable with the same command).
 * - arms: the spec's arms (spec.json, written as the experiment starts), each with the runs named
 *   after it and their checkpoints, under SHORT names: the run's name less the experiment's prefix.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { CONFIG_FILE } from "../../base/config";
import { loadConfig } from "../../envs/config";
import { FileFormatError, UserError } from "../../base/errors";
import { readJsonFile } from "../../base/runs/run-files";
import { runFile, runWriter } from "../../base/runs/run-folder";
import { readProgress, type Progress } from "../../base/runs/progress";
import { readRegistry, registryPath } from "../../base/checkpoints/registry";
import { EXPERIMENT_FILES, type ExperimentRecord } from "../../steps/experiments/record";
import { readValidationFile } from "../../steps/experiments/validation-file";

export type ExperimentState = "running" | "done" | "interrupted" | "failed";

export interface ExperimentRun {
  /** The run's name less the experiment's prefix ("generated", "eval-base", "generated-sft"). */
  short: string;
  dir: string;
  /** Its checkpoints' registry names, short too ("generated-s2"). */
  checkpoints: { short: string; name: string }[];
}

export interface ExperimentArm {
  /** An arm's name, or "shared" for the runs every arm starts from or is compared with (init, base's eval). */
  name: string;
  runs: ExperimentRun[];
}

export interface ExperimentEntry {
  name: string;
  title: string;
  /** The record folder (experiment.json, progress.json, spec.json). */
  recordDir: string;
  /** The experiment's workspace (its runs/ and data/). */
  workspaceDir: string;
  /** The spec as it ran (the record folder's spec.json): Rerun and Resume start from it. */
  specFile: string;
  state: ExperimentState;
  /** From the record, once written. */
  verdict?: string;
  checks?: { passed: number; total: number };
  spendUsd: number;
  budgetUsd: number;
  progress?: Progress;
  arms: ExperimentArm[];
}

export const SHARED_ARM = "shared";

/** Folders never searched for experiment workspaces: dependencies, hidden folders, run and data folders. */
const SKIP = new Set(["node_modules", "runs", "data", "dist", "out"]);

/** Every experiment under `root` (the opened folder), sorted by name; `maxDepth` bounds the search for workspaces. */
export function listExperiments(root: string, maxDepth = 3): ExperimentEntry[] {
  const found = new Map<string, ExperimentEntry>();
  for (const ws of experimentWorkspaces(root, maxDepth))
    for (const dir of recordDirs(ws)) if (!found.has(dir)) found.set(dir, readExperiment(dir, ws));
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name) || a.recordDir.localeCompare(b.recordDir));
}

/** `root` and every folder below it (to `maxDepth`) that holds an agent-lab.json. */
function experimentWorkspaces(root: string, maxDepth: number): string[] {
  const out = [root];
  const walk = (dir: string, depth: number) => {
    for (const e of entries(dir)) {
      if (!e.isDirectory() || e.name.startsWith(".") || SKIP.has(e.name)) continue;
      const p = join(dir, e.name);
      if (existsSync(join(p, CONFIG_FILE))) out.push(p);
      if (depth < maxDepth) walk(p, depth + 1);
    }
  };
  walk(root, 1);
  return out;
}

function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES") return []; // gone or unreadable: nothing there
    throw e;
  }
}

/** The workspace's runs folder (its agent-lab.json's runsDir); undefined when that file cannot be read. */
function runsDirOf(ws: string): string | undefined {
  try {
    return join(ws, loadConfig(ws, {}, {}).runsDir);
  } catch (e) {
    if (e instanceof UserError || e instanceof FileFormatError) return undefined; // a broken config is the Runs view's to report
    throw e;
  }
}

/** The record folders in a workspace: run folders whose manifest says they are an experiment's. */
function recordDirs(ws: string): string[] {
  const runs = runsDirOf(ws);
  if (!runs) return [];
  return entries(runs)
    .filter((e) => e.isDirectory())
    .map((e) => join(runs, e.name))
    .filter((d) => readJsonFile<{ kind?: unknown }>(runFile(d, "manifest"))?.kind === "experiment");
}

/** The state as the files say it (see the module comment). */
export function experimentState(recordDir: string): ExperimentState {
  if (runWriter(recordDir)) return "running";
  if (existsSync(join(recordDir, EXPERIMENT_FILES.record))) return "done";
  return readProgress(recordDir)?.status === "failed" ? "failed" : "interrupted";
}

interface SpecHead {
  name?: unknown;
  title?: unknown;
  budget_usd?: unknown;
  arms?: { name?: unknown }[];
}

/** One experiment's entry from its record folder. */
export function readExperiment(recordDir: string, workspaceDir: string): ExperimentEntry {
  const manifest = readJsonFile<{ name?: unknown }>(runFile(recordDir, "manifest"));
  const name = typeof manifest?.name === "string" ? manifest.name : basename(recordDir);
  const specFile = join(recordDir, EXPERIMENT_FILES.spec);
  const spec = readSpecHead(specFile);
  const record = existsSync(join(recordDir, EXPERIMENT_FILES.record))
    ? readJsonFile<ExperimentRecord>(join(recordDir, EXPERIMENT_FILES.record))
    : undefined;
  const progress = readProgress(recordDir);
  const checks =
    readValidationFile(recordDir)?.checks ??
    (Array.isArray(record?.validation?.checks) ? record.validation.checks : undefined);
  const armNames = (spec?.arms ?? []).map((a) => a.name).filter((n): n is string => typeof n === "string");
  return {
    name,
    title: typeof spec?.title === "string" ? spec.title : (record?.title ?? ""),
    recordDir,
    workspaceDir,
    specFile,
    state: experimentState(recordDir),
    ...(typeof record?.verdict?.verdict === "string" ? { verdict: record.verdict.verdict } : {}),
    ...(checks ? { checks: { passed: checks.filter((c) => c.status === "passed").length, total: checks.length } } : {}),
    // A damaged record still lists (its panel names what is wrong): every field read with care.
    spendUsd: record?.spend?.usd ?? progress?.usd ?? 0,
    budgetUsd: record?.spend?.budget_usd ?? (typeof spec?.budget_usd === "number" ? spec.budget_usd : 0),
    ...(progress ? { progress } : {}),
    arms: experimentArms(name, recordDir, armNames),
  };
}

function readSpecHead(file: string): SpecHead | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as SpecHead;
  } catch (e) {
    if (e instanceof SyntaxError) return undefined; // being rewritten this instant: the next refresh reads it
    throw e;
  }
}

/**
 * The experiment's runs by arm: a run named `<experiment>-<rest>` belongs to the arm whose name
 * `rest` is, starts with (`<arm>-sft`) or ends with (`eval-<arm>`, `tasks-<arm>`), the longest such
 * arm; the rest (init, base's eval) are the shared runs, listed first.
 */
export function experimentArms(name: string, recordDir: string, armNames: string[]): ExperimentArm[] {
  const runsDir = join(recordDir, "..");
  const prefix = `${name}-`;
  const registry = safeRegistry(runsDir);
  const byArm = new Map<string, ExperimentRun[]>(
    [SHARED_ARM, ...armNames].map((a): [string, ExperimentRun[]] => [a, []]),
  );
  const runs = entries(runsDir)
    .filter(
      (e) => e.isDirectory() && e.name.startsWith(prefix) && existsSync(runFile(join(runsDir, e.name), "manifest")),
    )
    .map((e) => e.name)
    .sort();
  for (const run of runs) {
    const short = run.slice(prefix.length);
    const arm =
      armNames
        .filter((a) => short === a || short.startsWith(`${a}-`) || short.endsWith(`-${a}`))
        .sort((a, b) => b.length - a.length)[0] ?? SHARED_ARM;
    const checkpoints = registry
      .filter((c) => basename(c.run ?? "") === run)
      .map((c) => ({ name: c.name, short: c.name.startsWith(prefix) ? c.name.slice(prefix.length) : c.name }));
    byArm.get(arm)!.push({ short, dir: join(runsDir, run), checkpoints });
  }
  return [...byArm.entries()]
    .filter(([arm, r]) => r.length > 0 || arm !== SHARED_ARM)
    .map(([arm, r]) => ({ name: arm, runs: r }));
}

function safeRegistry(runsDir: string) {
  try {
    return readRegistry(registryPath(runsDir));
  } catch (e) {
    if (e instanceof FileFormatError) return []; // a damaged registry is the Checkpoints view's to report
    throw e;
  }
}
