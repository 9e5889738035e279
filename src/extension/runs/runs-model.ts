/**
 * What the Runs view shows, built from run folders alone (vscode-free, tested in plain Node):
 * one row per run — environment, split, n, its primary and binary metrics labelled as its environment
 * declares them (one of them when they are one metric), $/question, status — and under it the episodes
 * grouped by outcome. Training runs (metrics.jsonl, no episodes) are listed too, for the dashboard.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { EXPERIMENT_FILES, type ExperimentRecord } from "../../core/steps/experiments/record";
import { readValidationFile } from "../../core/steps/experiments/validation-file";
import { environmentInfo, environmentMetrics, environmentRoles } from "../../core/envs/catalog";
import { hasOneMetric, metricValue } from "../../core/base/runs/metrics";
import { IMPLIED_ENVIRONMENT, manifestEnvironment } from "../../core/envs/manifest-environment";
import type { RunManifest } from "../../core/base/runs/manifest";
import type { EpisodeRecord } from "../../core/base/runs/run-files";
import { readEpisodes, readSummary } from "../../core/base/runs/run-files";
import { fileStamp } from "../../core/base/util/file-stamp";
import { RUN_MARKERS, runFile } from "../../core/base/runs/run-folder";
import { readCookbookRun } from "../../core/views/interop/cookbook";
import { lastLines } from "../jobs/job-progress";
import type { RunStatus, RunSummary } from "../../core/base/runs/summary";

/** Status as shown: the file's status, except that "running" without a live job is "stopped". */
export type ShownStatus = RunStatus | "stopped" | "unknown";

export interface RunRow {
  name: string;
  dir: string;
  summary?: RunSummary;
  manifest?: RunManifest;
  status: ShownStatus;
  /** Kind of run, for context menus: eval (episodes), training (metrics.jsonl), sft-data, experiment (experiment.json), other. */
  kind: "eval" | "training" | "sft-data" | "experiment" | "other";
  /** Whether the folder has episodes.jsonl (eval runs; GRPO rollouts), shown grouped by outcome. */
  hasEpisodes: boolean;
  /** Newest change to the folder's files (ms), for sorting and "previous run". */
  updatedMs: number;
  /** A file that could not be read, with why (shown instead of hiding the run). */
  problem?: string;
  /** Where the run comes from: a tinker-cookbook log_path folder (absent: Agent Lab's own). */
  source?: "cookbook";
  /** The run's environment (its manifest's; a run without one is the implied environment's), for eval runs. */
  environment?: string;
  label: string;
  description: string;
  tooltip: string;
}

function readJson<T>(file: string): { value?: T; problem?: string } {
  if (!existsSync(file)) return {};
  try {
    return { value: JSON.parse(readFileSync(file, "utf8")) as T };
  } catch (e) {
    return { problem: `${file}: ${(e as Error).message}` };
  }
}

function mtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

const pct = (x: number) => x.toFixed(3);

/** An eval's primary and binary metric as its environment labels them ("<primary> 0.612 · <binary> 0.480"), one when they are one. */
export function metricParts(env: string, s: Pick<RunSummary, "metrics">): string[] {
  const roles = environmentRoles(env);
  const primary = `${roles.primary.label} ${pct(metricValue(s, roles.primary))}`;
  return hasOneMetric(roles) ? [primary] : [primary, `${roles.binary.label} ${pct(metricValue(s, roles.binary))}`];
}

/** A file read for a row: its value, or why it could not be read (shown instead of hiding the run). */
function readForRow<T>(read: () => T | undefined): { value?: T; problem?: string } {
  try {
    return { value: read() };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

export function formatUsd(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** "experiment · supported · recovery 0.98 · 7/7 checks" from experiment.json (or "running" before it is written). */
function experimentParts(dir: string): string[] {
  const rec = readJson<ExperimentRecord>(join(dir, EXPERIMENT_FILES.record)).value;
  if (!rec?.verdict) return ["experiment"];
  // The last `experiment validate` of this record, else the validation the run recorded.
  const validation = readValidationFile(dir) ?? rec.validation;
  const checks = validation ? `${validation.passed.length}/${validation.checks.length} checks` : "not validated";
  const recovery = rec.numbers?.recovery ? `recovery ${rec.numbers.recovery.point.toFixed(2)}` : "";
  return ["experiment", rec.verdict.verdict, recovery, checks].filter(Boolean);
}

/** "training · step 12 · reward 0.412 · $1.20" from the last complete line of metrics.jsonl. */
function trainingParts(dir: string): string[] {
  const lines = lastLines(runFile(dir, "metrics"));
  for (const line of lines.reverse()) {
    try {
      const m = JSON.parse(line) as Record<string, unknown>;
      const parts = ["training"];
      if (typeof m.step === "number") parts.push(`step ${m.step}`);
      if (typeof m.reward === "number") parts.push(`reward ${m.reward.toFixed(3)}`);
      else if (typeof m.loss === "number") parts.push(`loss ${m.loss.toFixed(3)}`);
      if (typeof m.usd === "number" && m.usd > 0) parts.push(formatUsd(m.usd));
      return parts;
    } catch {
      continue; // torn last line while the job appends
    }
  }
  return ["training"];
}

function isRunStatus(v: unknown): v is RunStatus {
  return v === "running" || v === "done" || v === "failed" || v === "interrupted";
}

/** One run folder → its row. `liveRunDirs`: folders a live job is writing right now. */
export function readRunRow(dir: string, name: string, liveRunDirs: ReadonlySet<string> = new Set()): RunRow {
  const summary = readForRow(() => readSummary(dir, environmentMetrics));
  const manifest = readJson<RunManifest>(runFile(dir, "manifest"));
  const s = summary.value;
  // Training first: GRPO runs also write episodes.jsonl (their rollouts).
  const kind: RunRow["kind"] =
    existsSync(join(dir, EXPERIMENT_FILES.record)) ||
    (manifest.value as { kind?: unknown } | undefined)?.kind === "experiment"
      ? "experiment"
      : existsSync(runFile(dir, "metrics"))
        ? "training"
        : existsSync(runFile(dir, "episodes")) || s
          ? "eval"
          : existsSync(runFile(dir, "sft"))
            ? "sft-data"
            : "other";
  const hasEpisodes = existsSync(runFile(dir, "episodes"));
  const live = liveRunDirs.has(dir);
  // Eval runs keep their status in summary.json; sft-data runs in their lineage manifest.
  const manifestStatus = (manifest.value as { status?: unknown } | undefined)?.status;
  const recorded = s?.status ?? (isRunStatus(manifestStatus) ? manifestStatus : undefined);
  let status: ShownStatus = recorded ?? (live ? "running" : "unknown");
  // A summary left at "running" by a killed job would otherwise spin forever.
  if (status === "running" && !live) status = "stopped";
  if (live) status = "running";
  const updatedMs = Math.max(...RUN_MARKERS.map((f) => mtime(join(dir, f))), 0);
  const parts: string[] = [];
  const environment =
    s || kind === "eval" || kind === "training" || kind === "sft-data"
      ? manifestEnvironment(manifest.value).name
      : undefined;
  const hasTools = environment ? (environmentInfo(environment)?.hasTools ?? true) : true;
  if (s) {
    parts.push(environment!, s.split);
    parts.push(s.planned && s.planned !== s.n ? `n=${s.n}/${s.planned}` : `n=${s.n}`);
    parts.push(...metricParts(environment!, s));
    parts.push(`${formatUsd(s.usd_per_q)}/q`);
  } else if (kind === "training") {
    parts.push(...trainingParts(dir));
  } else if (kind === "experiment") {
    parts.push(...experimentParts(dir));
  } else if (kind !== "eval") {
    parts.push(kind);
  }
  if (status !== "done" && status !== "unknown") parts.push(status);
  const problem = summary.problem ?? manifest.problem;
  if (problem) parts.push("⚠ unreadable file");
  const tooltip = [
    name,
    // A status no file records (a training run's) goes unsaid: "status unknown" told nothing.
    s
      ? `split ${s.split} · ${s.n}/${s.planned} episodes · status ${status}`
      : status !== "unknown"
        ? `status ${status}`
        : "",
    environment ? `environment ${environment}` : "",
    s
      ? [
          ...metricParts(environment!, s),
          ...(hasTools ? [`searches/q ${s.searches_per_q.toFixed(2)}`] : []),
          `answered ${Math.round(s.answered * 100)}%`,
        ].join(" · ")
      : "",
    s ? `cost ${formatUsd(s.usd_total)} total, ${formatUsd(s.usd_per_q)}/question · ${s.seconds}s` : "",
    s ? `model ${s.model}${s.checkpoint ? ` · checkpoint ${s.checkpoint}` : ""}` : "",
    manifest.value
      ? `prompt ${manifest.value.system_prompt?.sha256?.slice(0, 12) ?? "?"}${manifest.value.search ? ` · top-k ${manifest.value.search.top_k} · budget ${manifest.value.search.max_searches}${manifest.value.search.closed_book ? " · closed-book" : ""}` : ""}`
      : "",
    problem ?? "",
  ]
    .filter(Boolean)
    .join("\n");
  return {
    name,
    dir,
    summary: s,
    manifest: manifest.value,
    status,
    kind,
    hasEpisodes,
    updatedMs,
    problem,
    ...(environment ? { environment } : {}),
    label: name,
    description: parts.join(" · "),
    tooltip,
  };
}

/** A tinker-cookbook log folder as a training run: "cookbook rl · step 6 · reward 0.417 · 3 checkpoints". */
export function readCookbookRow(dir: string): RunRow {
  const name = dir.split(/[\\/]/).filter(Boolean).slice(-2).join("/");
  const updatedMs = Math.max(mtime(runFile(dir, "metrics")), mtime(runFile(dir, "checkpoints")));
  try {
    const r = readCookbookRun(dir);
    const parts = [`cookbook ${r.kind}`, `step ${r.lastStep ?? r.steps}`];
    if (r.lastReward !== undefined) parts.push(`reward ${r.lastReward.toFixed(3)}`);
    if (r.doneFrac !== undefined && r.doneFrac < 1) parts.push(`${Math.round(r.doneFrac * 100)}% done`);
    if (r.checkpoints.length) parts.push(`${r.checkpoints.length} checkpoint${r.checkpoints.length === 1 ? "" : "s"}`);
    if (r.notes.length) parts.push(`⚠ ${r.notes.length} note${r.notes.length === 1 ? "" : "s"}`);
    const tooltip = [
      `${name} (tinker-cookbook log folder)`,
      dir,
      r.model ? `model ${r.model}` : "",
      `${r.steps} logged steps · ${r.iterations.length} iteration folders`,
      r.lastReward !== undefined ? `last env/all/reward/total ${r.lastReward.toFixed(4)}` : "",
      r.environment
        ? `environment ${r.environment.name} (${r.environment.from})`
        : "environment not named in config.json",
      ...r.notes.map((n) => `⚠ ${n}`),
    ]
      .filter(Boolean)
      .join("\n");
    return {
      name,
      dir,
      status: "unknown",
      kind: "training",
      hasEpisodes: false,
      updatedMs,
      label: name,
      description: parts.join(" · "),
      tooltip,
      source: "cookbook",
      ...(r.environment ? { environment: r.environment.name } : {}),
    };
  } catch (e) {
    const problem = (e as Error).message;
    return {
      name,
      dir,
      status: "unknown",
      kind: "training",
      hasEpisodes: false,
      updatedMs,
      problem,
      label: name,
      description: "cookbook · ⚠ unreadable file",
      tooltip: problem,
      source: "cookbook",
    };
  }
}

/**
 * Every run folder under runsDir (hidden folders such as .jobs skipped), and the tinker-cookbook
 * log folders given, newest first.
 */
export function listRunRows(
  runsDir: string,
  liveRunDirs: ReadonlySet<string> = new Set(),
  cookbookDirs: readonly string[] = [],
): RunRow[] {
  const rows: RunRow[] = cookbookDirs.map((d) => readCookbookRow(d));
  if (!existsSync(runsDir)) return rows.sort((a, b) => b.updatedMs - a.updatedMs || a.name.localeCompare(b.name));
  for (const d of readdirSync(runsDir, { withFileTypes: true })) {
    if (!d.isDirectory() || d.name.startsWith(".")) continue;
    const dir = join(runsDir, d.name);
    if (!RUN_MARKERS.some((f) => existsSync(join(dir, f))) || cookbookDirs.includes(dir)) continue;
    rows.push(readRunRow(dir, d.name, liveRunDirs));
  }
  return rows.sort((a, b) => b.updatedMs - a.updatedMs || a.name.localeCompare(b.name));
}

// The outcome vocabulary lives in core: the trace viewer's filters use the same names.
import { OUTCOME_LABELS, OUTCOMES, outcomeOf, type Outcome } from "../../core/base/runs/outcome";
export { OUTCOME_LABELS, OUTCOMES, outcomeOf, type Outcome };

export interface EpisodeRow {
  id: string;
  label: string;
  description: string;
  tooltip: string;
}

export interface OutcomeGroup {
  outcome: Outcome;
  label: string;
  description: string;
  episodes: EpisodeRow[];
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * `env`: the run's environment name (its metric labels; searches only where it has tools); default:
 * the environment of a run whose manifest names none.
 */
export function episodeRow(e: EpisodeRecord, env: string = IMPLIED_ENVIRONMENT.name): EpisodeRow {
  const searches = e.searches?.length ?? 0;
  const roles = environmentRoles(env);
  const primary = metricValue(e, roles.primary);
  const binary = metricValue(e, roles.binary);
  const hasTools = environmentInfo(env)?.hasTools ?? true;
  const one = hasOneMetric(roles);
  const searchPart = hasTools ? ` · ${searches} search${searches === 1 ? "" : "es"}` : "";
  return {
    id: e.id,
    label: oneLine(e.question, 80),
    description: `${roles.primary.label} ${primary.toFixed(one ? 0 : 2)}${searchPart} · “${oneLine(e.prediction || "—", 40)}”`,
    tooltip: [
      e.question,
      `prediction: ${e.prediction || "(none)"}`,
      `gold: ${(e.answers ?? []).join(" | ")}`,
      `${one ? "" : `${roles.binary.label} ${binary} · `}${roles.primary.label} ${primary.toFixed(one ? 0 : 3)} · ended: ${e.end}`,
      ...(e.searches ?? []).map((q, i) => `search ${i + 1}: ${q}`),
      `id ${e.id}`,
    ].join("\n"),
  };
}

/** Episodes grouped by outcome; empty groups are left out; order inside a group is file order. */
export function groupEpisodes(
  episodes: readonly EpisodeRecord[],
  env: string = IMPLIED_ENVIRONMENT.name,
): OutcomeGroup[] {
  const by = new Map<Outcome, EpisodeRow[]>();
  const binary = environmentRoles(env).binary;
  for (const e of episodes) {
    const o = outcomeOf(e.end, metricValue(e, binary));
    if (!by.has(o)) by.set(o, []);
    by.get(o)!.push(episodeRow(e, env));
  }
  const total = episodes.length;
  return [...OUTCOMES, "other" as const]
    .filter((o) => by.has(o))
    .map((o) => {
      const rows = by.get(o)!;
      return {
        outcome: o,
        label: OUTCOME_LABELS[o],
        description: `${rows.length} (${Math.round((100 * rows.length) / total)}%)`,
        episodes: rows,
      };
    });
}

/** Episode groups of a run folder, cached by episodes.jsonl size and mtime (runs can be large). */
export class EpisodeGroupCache {
  private readonly cache = new Map<string, { key: string; groups: OutcomeGroup[] }>();

  groups(runDir: string, env?: string): OutcomeGroup[] {
    const file = runFile(runDir, "episodes");
    const stamp = fileStamp(file);
    if (!stamp) return [];
    const key = `${stamp}:${env ?? ""}`;
    const hit = this.cache.get(runDir);
    if (hit && hit.key === key) return hit.groups;
    const groups = groupEpisodes(readEpisodes(runDir, environmentMetrics), env);
    this.cache.set(runDir, { key, groups });
    return groups;
  }
}

/** The run to compare a finished one against: the newest other eval run on the same split. */
export function previousComparableRun(rows: readonly RunRow[], runDir: string): RunRow | undefined {
  const me = rows.find((r) => r.dir === runDir);
  return rows
    .filter(
      (r) =>
        r.dir !== runDir && r.kind === "eval" && r.summary && (!me?.summary || r.summary.split === me.summary.split),
    )
    .filter((r) => !me || r.updatedMs <= me.updatedMs)
    .sort((a, b) => b.updatedMs - a.updatedMs)[0];
}
