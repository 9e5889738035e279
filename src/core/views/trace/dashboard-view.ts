/**
 * The training dashboard's data, read from a training run folder: one series per numeric field of
 * metrics.jsonl (SFT loss, GRPO reward, skipped groups, searches, answered, budget hits, tokens,
 * spend — whatever the trainer logs, so a new field shows up without a UI change), group health per
 * step from groups.jsonl (with each group's question text), and the val score (the run's
 * environment's primary metric, with a bootstrap CI; `valMetric` names it) of each saved
 * checkpoint that an eval run has scored — only from evals run with the training
 * run's own eval settings (system prompt, harness, search, max tokens), so an eval with another
 * prompt never stands in for the checkpoint's score; those are listed apart with what differs.
 * Base-model and SFT evals with the same settings give the reference lines.
 */
import { runXAxes, type XAxis } from "./x-axes";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { inQuestionOrder, meanInterval } from "../../base/stats/shown-interval";
import { readRegistry, registryPath } from "../../base/checkpoints/registry";
import {
  listRuns,
  readEpisodes,
  readJsonFile,
  EPISODES_FILE,
  MANIFEST_FILE,
  type EpisodeRecord,
} from "../../base/runs/run-files";
import { tokenizerForRun } from "../../base/runs/run-tokenizer";
import { buildTraceView, type TraceEpisodeView } from "./trace-view";
import { fingerprintDiff, isPlaygroundRun, type RunManifest } from "../../base/runs/manifest";
import { parseJsonl } from "../../base/util/jsonl";
import { RUN_FILES, runFile } from "../../base/runs/run-folder";
import { fileStamp } from "../../base/util/file-stamp";
import { metricValue } from "../../base/runs/metrics";
import { normaliseEpisode } from "../../base/runs/episode-v1";
import { runEnvironmentName } from "../../envs/manifest-environment";
import { environmentRoles, environmentMetrics } from "../../envs/catalog";
import { checkpointEnvironment } from "../../envs/checkpoint-environment";
import { runViewSpec } from "./run-view";

export const METRICS_FILE = RUN_FILES.metrics;
export const GROUPS_FILE = RUN_FILES.groups;
export const CHECKPOINTS_FILE = RUN_FILES.checkpoints;

export interface Series {
  key: string;
  points: [step: number, value: number][];
}

export type GroupHealth = "all_correct" | "all_wrong" | "mixed" | "constant";

/**
 * One line of groups.jsonl (src/core/steps/train/grpo.ts writes it): the G episodes of one question at
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

/** The mean of the run's environment's primary metric over an eval's episodes, with its bootstrap CI. */
export interface PrimaryScore {
  mean: number;
  lo: number;
  hi: number;
}

/** An eval of a checkpoint on val run with other settings than the training run's: shown apart. */
export interface OtherEval {
  evalRun: string;
  n: number;
  primary: PrimaryScore;
  /** Fingerprint fields that differ from the settings the score is judged by, e.g. "system_prompt.sha256". */
  differs: string[];
}

export interface CheckpointScore {
  name: string;
  step: number;
  epoch?: number;
  /** The eval run (folder name) that scored it on val with the training run's eval settings. */
  evalRun?: string;
  n?: number;
  primary?: PrimaryScore;
  /** Evals of this checkpoint with other settings (another prompt, top-k, …). */
  otherEvals: OtherEval[];
  /** Where an Evaluate action samples from (absent: nothing to evaluate). */
  samplerPath?: string;
}

/** A horizontal line on the checkpoint chart: the base model's or the starting checkpoint's val score. */
export interface ReferenceScore {
  /** "base", "SFT" (an SFT checkpoint the run started from), or "start <name>" for another start. */
  label: string;
  evalRun: string;
  n: number;
  primary: PrimaryScore;
}

/** What the checkpoint scores are judged by: the fields compared, and where they came from. */
export interface EvalSettings {
  source: string;
  fields: Record<string, unknown>;
}

/** Another training run drawn on the same axes. */
export interface OverlayRun {
  run: string;
  series: Series[];
  /** Its wall-time and token axes (absent from a host before them: step only). */
  xAxes?: XAxis[];
}

export interface DashboardView {
  run: string;
  series: Series[];
  groups: GroupRecord[];
  health: GroupHealthStep[];
  checkpoints: CheckpointScore[];
  references: ReferenceScore[];
  /** Null when neither the run nor any eval of its checkpoints records eval settings. */
  evalSettings: EvalSettings | null;
  /** Question text by question id, for the groups (from the run's episodes). */
  questions: Record<string, string>;
  /** Other runs overlaid on the metric charts (the panel adds them; readDashboard gives none). */
  overlays: OverlayRun[];
  /**
   * What the checkpoints' val scores are: the label of the run's environment's primary metric
   * ("accuracy"), from the run (its manifest, or a cookbook run's config.json), never assumed.
   */
  valMetric: string;
  /**
   * The run's last step: the steps its manifest declares, else the last step its metrics log;
   * null with neither. The checkpoint chart's x axis ends here.
   */
  lastStep: number | null;
  /** The x axes the charts may use besides the step: wall time and tokens trained, those the run logs (absent: step only). */
  xAxes?: XAxis[];
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
      // NaN and ±Infinity (Python-written logs) stay as points: the chart draws them as gaps.
      if (key === "step" || typeof value !== "number") continue;
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
  // Mixed groups are the ones that train: list them first, then all-wrong, all-correct, constant.
  const rank = (i: number) => HEALTH_ORDER.indexOf(groupHealth(groups[i].rewards));
  for (const s of steps.values()) s.groups.sort((a, b) => rank(a) - rank(b) || a - b);
  return [...steps.values()].sort((a, b) => a.step - b.step);
}

const HEALTH_ORDER: GroupHealth[] = ["mixed", "all_wrong", "all_correct", "constant"];

/** The fields of an eval's fingerprint that decide its score besides the model: what a training run's eval settings pin. */
const SETTING_FIELDS = [
  "system_prompt.sha256",
  "harness_version",
  "search.top_k",
  "search.max_searches",
  "search.searcher",
  "sampling.max_tokens",
] as const;

function field(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const k of path.split("."))
    cur = cur && typeof cur === "object" ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

function settingsOf(manifest: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of SETTING_FIELDS) {
    const v = field(manifest, f);
    if (v !== undefined) out[f] = v;
  }
  return out;
}

/** Fields of `settings` the eval's manifest has otherwise (closed-book evals never match a search-trained run). */
function settingDifferences(settings: Record<string, unknown>, evalManifest: RunManifest): string[] {
  const differs = Object.entries(settings)
    .filter(([f, v]) => JSON.stringify(field(evalManifest, f)) !== JSON.stringify(v))
    .map(([f]) => f);
  if (evalManifest.search?.closed_book && "search.top_k" in settings) differs.push("search.closed_book");
  return differs;
}

interface ValEval {
  name: string;
  manifest: RunManifest;
  created: string;
}

type EvalScore = { n: number; primary: PrimaryScore } | undefined;

/**
 * score() by eval folder, kept while its episodes and manifest are unchanged: the Checkpoints view
 * and sidebar rescore on each file event of a running job, and the bootstrap is most of that work.
 */
const scored = new Map<string, { stamp: string; score: EvalScore }>();

/** An eval's score with the interval every view shows for it (ablate's bootstrap: Compare and the report print the same). */
function score(runsDir: string, name: string): EvalScore {
  const dir = join(runsDir, name);
  const stamp = `${fileStamp(runFile(dir, "episodes"))}|${fileStamp(runFile(dir, "manifest"))}`;
  const kept = scored.get(dir);
  if (kept?.stamp === stamp) return kept.score;
  const fresh = scoreNow(dir);
  scored.set(dir, { stamp, score: fresh });
  return fresh;
}

function scoreNow(dir: string): EvalScore {
  const primary = environmentRoles(runEnvironmentName(dir)).primary;
  const values = inQuestionOrder(readEpisodes(dir, environmentMetrics)).map((e) => metricValue(e, primary));
  if (values.length === 0) return undefined;
  const { mean, ci } = meanInterval(values);
  return { n: values.length, primary: { mean, lo: ci.lo, hi: ci.hi } };
}

export interface CheckpointScores {
  checkpoints: CheckpointScore[];
  references: ReferenceScore[];
  evalSettings: EvalSettings | null;
}

/**
 * The val score (the primary metric's mean) of this run's checkpoints from the eval runs beside it
 * that name the checkpoint and were run with the training run's eval settings (the newest such eval
 * wins); the rest are listed apart.
 * A run whose manifest records no eval settings (SFT) is judged by the earliest eval of any of its
 * checkpoints, so a later rerun with another prompt is what gets listed apart.
 */
export function checkpointScores(runDir: string): CheckpointScores {
  const runsDir = dirname(runDir);
  const trainManifest = readJsonFile<Record<string, unknown>>(join(runDir, MANIFEST_FILE));
  const own = readLines<{ name: string; batch?: number; step?: number; epoch?: number; sampler_path?: string }>(
    join(runDir, CHECKPOINTS_FILE),
    [],
  );
  const allRegistry = existsSync(registryPath(runsDir)) ? readRegistry(registryPath(runsDir)) : [];
  const registry = allRegistry.filter((e) => basename(e.run) === basename(runDir));
  const checkpoints = new Map<
    string,
    { name: string; step: number; epoch?: number; sampler?: string; paths: Set<string> }
  >();
  for (const c of own)
    checkpoints.set(c.name, {
      name: c.name,
      step: c.batch ?? c.step ?? 0,
      epoch: c.epoch,
      sampler: c.sampler_path,
      paths: new Set([c.name, c.sampler_path ?? ""]),
    });
  for (const e of registry) {
    const c = checkpoints.get(e.name) ?? {
      name: e.name,
      step: e.step,
      epoch: e.epoch,
      sampler: e.sampler_path,
      paths: new Set<string>(),
    };
    c.paths.add(e.name).add(e.sampler_path);
    c.sampler ??= e.sampler_path;
    checkpoints.set(e.name, c);
  }
  const evals: ValEval[] = listRuns(runsDir)
    .filter((name) => name !== basename(runDir))
    .map((name) => ({ name, manifest: readJsonFile<RunManifest>(join(runsDir, name, MANIFEST_FILE)) }))
    .filter(
      (r): r is { name: string; manifest: RunManifest } =>
        r.manifest?.split?.name === "val" && typeof r.manifest.policy === "object" && !isPlaygroundRun(r.manifest),
    )
    .map((r) => ({ ...r, created: r.manifest.job?.created ?? "" }))
    .sort((a, b) => a.created.localeCompare(b.created) || a.name.localeCompare(b.name));
  const evalsOf = (paths: Set<string>) =>
    evals.filter((r) => r.manifest.policy.checkpoint !== undefined && paths.has(r.manifest.policy.checkpoint));

  let settings: EvalSettings | null = null;
  const fromRun = settingsOf(trainManifest);
  if ("system_prompt.sha256" in fromRun) settings = { source: `${basename(runDir)}/${MANIFEST_FILE}`, fields: fromRun };
  else {
    const first = evalsOf(new Set([...checkpoints.values()].flatMap((c) => [...c.paths])))[0];
    if (first)
      settings = {
        source: `${first.name} (the first eval of this run's checkpoints)`,
        fields: settingsOf(first.manifest),
      };
  }
  const matches = (r: ValEval) => !settings || settingDifferences(settings.fields, r.manifest).length === 0;

  const scores = [...checkpoints.values()]
    .sort((a, b) => a.step - b.step)
    .map((c) => {
      const mine = evalsOf(c.paths);
      const chosen = mine.filter(matches).pop();
      const out: CheckpointScore = {
        name: c.name,
        step: c.step,
        ...(c.epoch !== undefined ? { epoch: c.epoch } : {}),
        ...(c.sampler ? { samplerPath: c.sampler } : {}),
        otherEvals: [],
      };
      for (const r of mine) {
        if (r === chosen) continue;
        const s = score(runsDir, r.name);
        if (!s) continue;
        const differs = settings
          ? settingDifferences(settings.fields, r.manifest)
          : chosen
            ? fingerprintDiff(chosen.manifest, r.manifest)
                .map((d) => d.field)
                .filter((f) => !f.startsWith("policy."))
            : [];
        out.otherEvals.push({
          evalRun: r.name,
          ...s,
          differs: differs.length ? differs : ["(same settings, older eval)"],
        });
      }
      const s = chosen ? score(runsDir, chosen.name) : undefined;
      return s ? { ...out, evalRun: chosen!.name, ...s } : out;
    });

  const references: ReferenceScore[] = [];
  const baseModel = typeof trainManifest?.base_model === "string" ? trainManifest.base_model : undefined;
  const base = evals
    .filter(
      (r) =>
        r.manifest.policy.checkpoint === undefined &&
        (!baseModel || r.manifest.policy.model === baseModel) &&
        !r.manifest.search?.closed_book &&
        matches(r),
    )
    .pop();
  const baseScore = base && score(runsDir, base.name);
  if (baseScore) references.push({ label: "base", evalRun: base!.name, ...baseScore });
  // Where a GRPO run started (usually an SFT checkpoint): its parent, a registry name or a state path.
  const parent = trainManifest?.kind === "grpo" ? (trainManifest.parent ?? trainManifest.init_state) : undefined;
  if (typeof parent === "string") {
    const entry = [...allRegistry].reverse().find((e) => e.name === parent || e.state_path === parent);
    if (entry) {
      const sft = evalsOf(new Set([entry.name, entry.sampler_path]))
        .filter(matches)
        .pop();
      const sftScore = sft && score(runsDir, sft.name);
      if (sftScore)
        references.push({
          label: entry.kind === "sft" ? "SFT" : `start ${entry.name}`,
          evalRun: sft!.name,
          ...sftScore,
        });
    }
  }
  return { checkpoints: scores, references, evalSettings: settings };
}

interface QuestionCache {
  size: number;
  mtimeMs: number;
  /** Bytes of episodes.jsonl already read (whole lines only). */
  offset: number;
  byId: Record<string, string>;
}

const questionCaches = new Map<string, QuestionCache>();

/**
 * Question text by question id from the run's episodes.jsonl. The file only grows while the job
 * runs, so each refresh reads only the new lines (a file that shrank, e.g. a resume, is read again).
 */
export function groupQuestions(runDir: string): Record<string, string> {
  const file = join(runDir, EPISODES_FILE);
  if (!existsSync(file)) return {};
  const st = statSync(file);
  let cache = questionCaches.get(file);
  if (!cache || st.size < cache.offset) cache = { size: 0, mtimeMs: 0, offset: 0, byId: {} };
  if (st.size !== cache.size || st.mtimeMs !== cache.mtimeMs) {
    const text = readFileSync(file).subarray(cache.offset).toString("utf8");
    const complete = text.lastIndexOf("\n") + 1;
    for (const line of text.slice(0, complete).split("\n")) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as { question_id?: unknown; id?: unknown; question?: unknown };
        const id = typeof e.question_id === "string" ? e.question_id : typeof e.id === "string" ? e.id : undefined;
        if (id && typeof e.question === "string") cache.byId[id] ??= e.question;
      } catch {
        continue; // a broken line: readEpisodes reports it where episodes are read in full
      }
    }
    cache.offset += Buffer.byteLength(text.slice(0, complete), "utf8");
    cache.size = st.size;
    cache.mtimeMs = st.mtimeMs;
    questionCaches.set(file, cache);
  }
  return cache.byId;
}

/**
 * The environment a training run trained on: its manifest's, or (SFT) its data's lineage manifest's
 * (as Evaluate reads it, envs/checkpoint-environment.ts); else the record format's implied one.
 */
export function trainingEnvironment(runDir: string): string {
  const runsDir = dirname(runDir);
  return checkpointEnvironment(dirname(runsDir), runsDir, { run: runDir })?.name ?? runEnvironmentName(runDir);
}

export function readDashboard(runDir: string): DashboardView {
  const problems: string[] = [];
  const metrics = readLines<Record<string, unknown>>(join(runDir, METRICS_FILE), problems).filter(
    (r) => r && typeof r === "object",
  );
  const groups = readLines<GroupRecord>(join(runDir, GROUPS_FILE), problems).filter(
    (g) => g && typeof g.step === "number" && Array.isArray(g.rewards),
  );
  let scores: CheckpointScores = { checkpoints: [], references: [], evalSettings: null };
  try {
    scores = checkpointScores(runDir);
  } catch (e) {
    problems.push((e as Error).message);
  }
  let questions: Record<string, string> = {};
  try {
    if (groups.length) questions = groupQuestions(runDir);
  } catch (e) {
    problems.push((e as Error).message);
  }
  const series = metricSeries(metrics);
  return {
    run: basename(runDir),
    series,
    groups,
    health: healthByStep(groups),
    ...scores,
    questions,
    overlays: [],
    problems,
    valMetric: runViewSpec(trainingEnvironment(runDir)).primary.label,
    lastStep: runLastStep(runDir, series),
    xAxes: runXAxes(metrics),
  };
}

/** The steps the run's manifest declares (a GRPO run's `steps`), else the last step its metrics log. */
function runLastStep(runDir: string, series: readonly Series[]): number | null {
  let declared: unknown;
  try {
    declared = readJsonFile<Record<string, unknown>>(join(runDir, MANIFEST_FILE))?.steps;
  } catch {
    declared = undefined;
  }
  if (typeof declared === "number" && Number.isFinite(declared) && declared > 0) return declared;
  return lastLoggedStep(series);
}

/** The last step any metric series logs (null: none). */
export function lastLoggedStep(series: readonly Series[]): number | null {
  let last: number | null = null;
  for (const s of series) for (const [step] of s.points) if (last === null || step > last) last = step;
  return last;
}

/** The G episodes of a group, decoded with the run's tokenizer, in sample order. */
export async function groupEpisodeViews(runDir: string, group: GroupRecord): Promise<TraceEpisodeView[]> {
  // Read as the current record format (a v1 run's slots as its environment's metrics; see episode-v1.ts).
  const env = runEnvironmentName(runDir);
  const metrics = environmentMetrics(env);
  const lines = readLines<Record<string, unknown>>(join(runDir, EPISODES_FILE), []).map((l) =>
    l && typeof l === "object" ? (normaliseEpisode(l, metrics) as unknown as EpisodeRecord) : undefined,
  );
  const records = (group.episodes ?? [])
    .map((i) => lines[i])
    .filter((e): e is EpisodeRecord => !!e && Array.isArray(e.tokens));
  const manifest = readJsonFile<{ tokenizer?: unknown }>(join(runDir, MANIFEST_FILE));
  const tok = await tokenizerForRun(typeof manifest?.tokenizer === "string" ? manifest.tokenizer : undefined);
  const view = runViewSpec(env);
  return records.map((e) => buildTraceView(e, tok.tokenizer, { drift: false, view }, tok.problem));
}
