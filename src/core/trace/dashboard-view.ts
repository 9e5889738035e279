/**
 * The training dashboard's data, read from a training run folder: one series per numeric field of
 * metrics.jsonl (SFT loss, GRPO reward, skipped groups, searches, answered, budget hits, tokens,
 * spend — whatever the trainer logs, so a new field shows up without a UI change), group health per
 * step from groups.jsonl, and the val F1 (with a bootstrap CI) of each saved checkpoint that an
 * eval run has scored.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { bootstrapMeans, percentileInterval } from "../analysis/bootstrap";
import { readRegistry, registryPath } from "../checkpoints/registry";
import { listRuns, readEpisodes, readJsonFile, EPISODES_FILE, MANIFEST_FILE, type EpisodeRecord } from "../runs/run-files";
import { tokenizerForRun } from "../runs/run-tokenizer";
import { buildTraceView, type TraceEpisodeView } from "./trace-view";
import type { RunManifest } from "../runs/manifest";
import { parseJsonl } from "../util/jsonl";

export const METRICS_FILE = "metrics.jsonl";
export const GROUPS_FILE = "groups.jsonl";
export const CHECKPOINTS_FILE = "checkpoints.jsonl";

export interface Series {
  key: string;
  points: [step: number, value: number][];
}

export type GroupHealth = "all_correct" | "all_wrong" | "mixed" | "constant";

/**
 * One line of groups.jsonl (src/core/train/grpo.ts writes it): the G episodes of one question at
 * one GRPO step. `episodes` are 0-based line numbers in the run's episodes.jsonl.
 */
export interface GroupRecord {
  step: number;
  group?: number;
  question_id?: string;
  rewards: number[];
  mean?: number;
  /** null when the group was skipped (all rewards equal). */
  advantages?: number[] | null;
  skipped?: boolean;
  episodes?: number[];
}

export interface GroupHealthStep {
  step: number;
  all_correct: number;
  all_wrong: number;
  mixed: number;
  constant: number;
  /** Indices into DashboardView.groups of this step's groups. */
  groups: number[];
}

export interface CheckpointScore {
  name: string;
  step: number;
  epoch?: number;
  /** The eval run (folder name) that scored it on val, when one exists. */
  evalRun?: string;
  n?: number;
  f1?: { mean: number; lo: number; hi: number };
}

export interface DashboardView {
  run: string;
  series: Series[];
  groups: GroupRecord[];
  health: GroupHealthStep[];
  checkpoints: CheckpointScore[];
  /** Lines skipped because they were torn or not objects. */
  problems: string[];
}

export function groupHealth(rewards: readonly number[]): GroupHealth {
  if (rewards.length > 0 && rewards.every((r) => r >= 1)) return "all_correct";
  if (rewards.every((r) => r <= 0)) return "all_wrong";
  return rewards.every((r) => r === rewards[0]) ? "constant" : "mixed";
}

function readLines<T>(file: string, problems: string[]): T[] {
  if (!existsSync(file)) return [];
  try {
    return parseJsonl<T>(readFileSync(file, "utf8"), file, { tolerateTornTail: true });
  } catch (e) {
    problems.push((e as Error).message);
    return [];
  }
}

/** One series per numeric field (except step), in order of first appearance. */
export function metricSeries(rows: readonly Record<string, unknown>[]): Series[] {
  const byKey = new Map<string, Series>();
  rows.forEach((row, i) => {
    const step = typeof row.step === "number" ? row.step : i;
    for (const [key, value] of Object.entries(row)) {
      if (key === "step" || typeof value !== "number" || !Number.isFinite(value)) continue;
      let s = byKey.get(key);
      if (!s) byKey.set(key, (s = { key, points: [] }));
      s.points.push([step, value]);
    }
  });
  return [...byKey.values()];
}

export function healthByStep(groups: readonly GroupRecord[]): GroupHealthStep[] {
  const steps = new Map<number, GroupHealthStep>();
  groups.forEach((g, i) => {
    let s = steps.get(g.step);
    if (!s) steps.set(g.step, (s = { step: g.step, all_correct: 0, all_wrong: 0, mixed: 0, constant: 0, groups: [] }));
    s[groupHealth(g.rewards)]++;
    s.groups.push(i);
  });
  return [...steps.values()].sort((a, b) => a.step - b.step);
}

/** Val F1 of this run's checkpoints: eval runs beside it whose manifest names the checkpoint. */
export function checkpointScores(runDir: string, resamples = 2000): CheckpointScore[] {
  const runsDir = dirname(runDir);
  const own = readLines<{ name: string; batch?: number; step?: number; epoch?: number; sampler_path?: string }>(join(runDir, CHECKPOINTS_FILE), []);
  const registry = existsSync(registryPath(runsDir)) ? readRegistry(registryPath(runsDir)).filter((e) => basename(e.run) === basename(runDir)) : [];
  const checkpoints = new Map<string, { name: string; step: number; epoch?: number; paths: Set<string> }>();
  for (const c of own) checkpoints.set(c.name, { name: c.name, step: c.batch ?? c.step ?? 0, epoch: c.epoch, paths: new Set([c.name, c.sampler_path ?? ""]) });
  for (const e of registry) {
    const c = checkpoints.get(e.name) ?? { name: e.name, step: e.step, epoch: e.epoch, paths: new Set<string>() };
    c.paths.add(e.name).add(e.sampler_path);
    checkpoints.set(e.name, c);
  }
  if (checkpoints.size === 0) return [];
  const evals = listRuns(runsDir)
    .map((name) => ({ name, manifest: readJsonFile<RunManifest>(join(runsDir, name, MANIFEST_FILE)) }))
    .filter((r) => r.manifest?.split?.name === "val" && r.manifest.policy?.checkpoint);
  return [...checkpoints.values()]
    .sort((a, b) => a.step - b.step)
    .map((c) => {
      const scored = evals.filter((r) => c.paths.has(r.manifest!.policy.checkpoint!)).pop();
      const out: CheckpointScore = { name: c.name, step: c.step, ...(c.epoch !== undefined ? { epoch: c.epoch } : {}) };
      if (!scored) return out;
      const f1 = readEpisodes(join(runsDir, scored.name)).map((e) => e.f1);
      if (f1.length === 0) return out;
      const [dist] = bootstrapMeans([f1], { resamples, seed: 0 });
      const ci = percentileInterval(dist);
      return { ...out, evalRun: scored.name, n: f1.length, f1: { mean: f1.reduce((s, v) => s + v, 0) / f1.length, lo: ci.lo, hi: ci.hi } };
    });
}

export function readDashboard(runDir: string): DashboardView {
  const problems: string[] = [];
  const metrics = readLines<Record<string, unknown>>(join(runDir, METRICS_FILE), problems).filter((r) => r && typeof r === "object");
  const groups = readLines<GroupRecord>(join(runDir, GROUPS_FILE), problems).filter((g) => g && typeof g.step === "number" && Array.isArray(g.rewards));
  let checkpoints: CheckpointScore[] = [];
  try {
    checkpoints = checkpointScores(runDir);
  } catch (e) {
    problems.push((e as Error).message);
  }
  return { run: basename(runDir), series: metricSeries(metrics), groups, health: healthByStep(groups), checkpoints, problems };
}

/** The G episodes of a group, decoded with the run's tokenizer, in sample order. */
export async function groupEpisodeViews(runDir: string, group: GroupRecord): Promise<TraceEpisodeView[]> {
  const lines = readLines<EpisodeRecord>(join(runDir, EPISODES_FILE), []);
  const records = (group.episodes ?? []).map((i) => lines[i]).filter((e): e is EpisodeRecord => !!e && Array.isArray(e.tokens));
  const manifest = readJsonFile<{ tokenizer?: unknown }>(join(runDir, MANIFEST_FILE));
  const tok = await tokenizerForRun(typeof manifest?.tokenizer === "string" ? manifest.tokenizer : undefined);
  return records.map((e) => buildTraceView(e, tok.tokenizer, { drift: false }, tok.problem));
}
