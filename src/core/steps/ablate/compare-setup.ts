/**
 * What the Compare panel needs besides `ablate` itself, computed by the same core code so the panel
 * and `agent-lab ablate` print the same digits: which fingerprint fields differ between the runs
 * (the "expected to differ" control lists them), which of those the way the comparison was opened
 * already names as the thing under test, and the system prompts' diff when the prompts differ.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { defaultSystemPromptFile, promptSha256, promptText } from "../../harness/prompts";
import { fingerprintDiff, type RunManifest } from "../../base/runs/manifest";
import { runFile } from "../../base/runs/run-folder";
import { lineDiff, type DiffLine } from "../../base/util/line-diff";
import { ablate, isExpected, type AblationInput } from "./ablate";
import { ORIGIN_EXPECT, PANEL_EXPECT_ADVICE, type CompareOrigin } from "./compare-origin";
import type { AblationReport } from "./report-types";
import type { Resampling } from "../../base/stats/resample-memo";

export { ORIGIN_EXPECT, ORIGIN_LABELS, PANEL_EXPECT_ADVICE, type CompareOrigin } from "./compare-origin";

/** One fingerprint field that differs between the baseline and at least one other run. */
export interface DifferingField {
  field: string;
  /** Names of the runs (after the baseline) that differ in it. */
  runs: string[];
}

/**
 * Leaf fields that differ from the baseline's manifest, in the order they first appear. Sub-fields
 * of an object that is null on one side (the searcher of a closed-book run) collapse to the parent.
 */
export function differingFields(inputs: readonly AblationInput[]): DifferingField[] {
  const base = inputs[0]?.manifest;
  const out = new Map<string, string[]>();
  if (!base) return [];
  for (const r of inputs.slice(1)) {
    if (!r.manifest) continue;
    const diffs = fingerprintDiff(base, r.manifest);
    const listed = new Set(diffs.map((d) => d.field));
    for (const d of diffs) {
      const parts = d.field.split(".");
      // A parent listed itself (null on one side): it stands for its sub-fields.
      if (parts.slice(0, -1).some((_, i) => listed.has(parts.slice(0, i + 1).join(".")))) continue;
      const runs = out.get(d.field) ?? [];
      if (!runs.includes(r.name)) runs.push(r.name);
      out.set(d.field, runs);
    }
  }
  return [...out].map(([field, runs]) => ({ field, runs }));
}

/** The fields the control starts with ticked: those the origin compares on purpose, among the differing. */
export function presetExpect(origin: CompareOrigin, fields: readonly DifferingField[]): string[] {
  return fields.map((f) => f.field).filter((f) => isExpected(f, ORIGIN_EXPECT[origin]));
}

/** The things a comparison is opened to compare, one at a time (the pipeline's stages differ in several on purpose). */
const SINGLE_PURPOSES: readonly CompareOrigin[] = ["checkpoint", "prompt", "search"];

/**
 * What runs picked by hand were picked to compare: when they differ in exactly one of the things a
 * comparison is opened for (the checkpoint, the prompt, the search settings) — two checkpoints of
 * one training lineage, say — that one, as if opened from there; otherwise "runs" (nothing preset:
 * runs that differ in two of them are confounded, which is what the warning is for).
 */
export function pickedOrigin(origin: CompareOrigin, fields: readonly DifferingField[]): CompareOrigin {
  if (origin !== "runs") return origin;
  const purposes = SINGLE_PURPOSES.filter((o) => presetExpect(o, fields).length > 0);
  return purposes.length === 1 ? purposes[0] : origin;
}

export interface PromptText {
  /** The file name the manifest recorded. */
  file: string;
  sha256: string;
  /** The text, when a file with that name and that hash is on disk; null otherwise. */
  text: string | null;
}

export interface PromptDiff {
  baseline: PromptText;
  other: PromptText;
  /** Run name of `other`. */
  run: string;
  /** Line diff baseline → other, when both texts were found. */
  lines: DiffLine[] | null;
}

/**
 * Diffs of the system prompt between the baseline and every run whose prompt hash differs. The
 * manifest records the prompt's file name and sha256; the text is the one the run kept in its
 * folder (RUN_FILES.systemPrompt) or, for runs from before it kept one, read from a file of that name
 * (in `searchDirs` or a `prompts` folder under them, or the shipped prompts) whose text, read as a
 * run reads it (trailing whitespace dropped), still hashes to it — an edited file no longer does,
 * and the panel says so rather than showing another prompt.
 */
export function promptDiffs(
  inputs: readonly Pick<AblationInput, "name" | "dir" | "manifest">[],
  searchDirs: readonly string[],
): PromptDiff[] {
  const base = inputs[0]?.manifest;
  // A manifest that records no prompt (written by hand, or torn) has nothing to diff; the
  // fingerprint warning names the field as absent.
  if (!recordsPrompt(base)) return [];
  const find = promptFinder(searchDirs);
  const out: PromptDiff[] = [];
  for (const r of inputs.slice(1)) {
    const m = r.manifest;
    if (!recordsPrompt(m) || m.system_prompt.sha256 === base.system_prompt.sha256) continue;
    const a = find(base.system_prompt, inputs[0].dir);
    const b = find(m.system_prompt, r.dir);
    out.push({
      baseline: a,
      other: b,
      run: r.name,
      lines: a.text !== null && b.text !== null ? lineDiff(a.text, b.text) : null,
    });
  }
  return out;
}

function recordsPrompt(m: RunManifest | undefined): m is RunManifest {
  const p = (m as { system_prompt?: Partial<RunManifest["system_prompt"]> } | undefined)?.system_prompt;
  return typeof p?.file === "string" && typeof p.sha256 === "string";
}

function promptFinder(searchDirs: readonly string[]): (p: RunManifest["system_prompt"], runDir: string) => PromptText {
  const cache = new Map<string, string | null>();
  return ({ file, sha256 }, runDir) => {
    const key = `${file}\0${sha256}`;
    // The run's own copy first: the text it sent, whatever became of the file since.
    const kept = keptPrompt(runDir, sha256);
    if (kept !== null) return { file, sha256, text: kept };
    if (!cache.has(key)) cache.set(key, findPrompt(file, sha256, searchDirs));
    return { file, sha256, text: cache.get(key) ?? null };
  };
}

/** The prompt text an eval kept in its folder (RUN_FILES.systemPrompt), when it hashes to `sha256`; null for runs from before. */
function keptPrompt(runDir: string, sha256: string): string | null {
  const path = runFile(runDir, "systemPrompt");
  if (!isFile(path)) return null;
  const text = readFileSync(path, "utf8");
  return promptSha256(text) === sha256 ? text : null;
}

function findPrompt(file: string, sha256: string, searchDirs: readonly string[]): string | null {
  const candidates = new Set<string>();
  for (const dir of searchDirs) {
    candidates.add(join(dir, file));
    candidates.add(join(dir, "prompts", file));
    // Every *.prompt.md or same-named file one level down (a prompt kept beside its runs, a copy).
    for (const name of safeList(dir)) {
      const sub = join(dir, name);
      if (name === file || name.endsWith(".prompt.md")) candidates.add(sub);
      else if (isDir(sub)) candidates.add(join(sub, file));
    }
  }
  // A run on the shipped prompt records its file name only: look in the extension's own prompts.
  for (const shipped of [defaultSystemPromptFile(false), defaultSystemPromptFile(true)])
    if (basename(shipped) === file) candidates.add(shipped);
  for (const path of candidates) {
    if (!isFile(path)) continue;
    const text = promptText(readFileSync(path, "utf8"));
    if (promptSha256(text) === sha256) return text;
  }
  return null;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // a search folder that does not exist (a run copied without its workspace)
  }
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The folders a run's prompt file is looked for in: the run's workspace (runs/NAME → ..) and the run itself. */
export function promptSearchDirs(runDirs: readonly string[], workspace?: string): string[] {
  const dirs = new Set<string>();
  if (workspace) dirs.add(workspace);
  for (const d of runDirs) {
    dirs.add(dirname(dirname(d)));
    dirs.add(d);
  }
  return [...dirs];
}

/** What the Compare panel shows beside the ablation: the expected-differences control and prompt diffs. */
export interface CompareSetup {
  origin: CompareOrigin;
  /** Fingerprint fields that differ between the baseline and some run. */
  fields: DifferingField[];
  /** The fields ticked as expected (what the report was computed with). */
  expect: string[];
  prompts: PromptDiff[];
}

/**
 * The Compare panel's report: `ablate` with the CLI's defaults (resamples, seed), the chosen
 * fields expected to differ (the origin's preset until the user changes them; runs picked by hand
 * are preset from what they were picked to compare, pickedOrigin), and its setup (its origin: that one).
 * `resampling`: how ablate resamples (Compare's run cache remembers the results; the same digits).
 */
export function compareView(
  inputs: readonly AblationInput[],
  origin: CompareOrigin,
  expect: readonly string[] | undefined,
  searchDirs: readonly string[],
  resampling?: Resampling,
): { report: AblationReport; setup: CompareSetup } {
  const fields = differingFields(inputs);
  const opened = pickedOrigin(origin, fields);
  const chosen = expect ? [...expect] : presetExpect(opened, fields);
  const report = ablate(inputs, { expect: chosen, expectAdvice: PANEL_EXPECT_ADVICE, resampling });
  return { report, setup: { origin: opened, fields, expect: chosen, prompts: promptDiffs(inputs, searchDirs) } };
}
