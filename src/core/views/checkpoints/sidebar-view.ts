/**
 * The Checkpoints sidebar's data: the checkpoints of the chosen training runs, each with its val
 * score from the fingerprint-matched eval (the dashboard's rule, checkpointScores: evals run with the
 * training run's eval settings; the others listed apart with the field that differs), the paired Δ
 * against a baseline picked in the view — the base model, the best SFT epoch, or any scored
 * checkpoint — Holm-adjusted across the rows, and the checkpoint the recipe's rule keeps
 * (best-by-val.ts). Rows are in training order: runs as the registry first lists them (a run started
 * from another's checkpoint comes after it), steps ascending.
 */
import { basename, join } from "node:path";
import { readRegistry, registryPath, type CheckpointEntry } from "../../base/checkpoints/registry";
import { MANIFEST_FILE, readJsonFile } from "../../base/runs/run-files";
import { holmAdjust } from "../../base/stats/significance";
import { f3 } from "../../steps/ablate/format";
import { verdict } from "../../steps/ablate/ablate";
import type { Verdict } from "../../steps/ablate/report-types";
import { runViewSpec } from "../trace/run-view";
import {
  checkpointScores,
  trainingEnvironment,
  type CheckpointScore,
  type PrimaryScore,
} from "../trace/dashboard-view";
import { bestByVal, BEST_RULE, type BestByVal } from "./best-by-val";
import { pairedDelta, primaryById } from "./paired-delta";
import type { CheckpointValScore } from "./val-score-text";

/** "base", "best-sft" or `ckpt:<name>`: what the view's baseline control sends back. */
export type BaselineId = string;
export const BASE_MODEL_BASELINE = "base";
export const BEST_SFT_BASELINE = "best-sft";
export const checkpointBaseline = (name: string): BaselineId => `ckpt:${name}`;

export interface SidebarDelta {
  delta: number;
  lo: number;
  hi: number;
  p: number;
  /** Holm-adjusted across every row with a Δ. */
  pHolm: number;
  verdict: Verdict;
  /** Questions paired. */
  n: number;
}

/** A checkpoint's matched val score (the dashboard's, one reading), with its training run and its place against the baseline. */
export interface SidebarRow extends CheckpointScore {
  run: string;
  /** Absent for the baseline's own row and for rows without a score. */
  delta?: SidebarDelta;
  isBaseline: boolean;
  isBest: boolean;
}

export interface BaselineOption {
  id: BaselineId;
  label: string;
  /** The eval it is scored by; absent: not available (`why` says what is missing). */
  evalRun?: string;
  primary?: PrimaryScore;
  why?: string;
}

export interface CheckpointsSidebarView {
  /** The training runs of the workspace in training order, and which are shown. */
  runs: { name: string; kind: string; chosen: boolean }[];
  /** The primary metric's label ("F1"). */
  valMetric: string;
  rows: SidebarRow[];
  baselines: BaselineOption[];
  /** The baseline in use (an available option), or null when none is. */
  baseline: BaselineOption | null;
  best: BestByVal | null;
  bestRule: string;
  /** How many rows the Holm correction spans. */
  holmFamily: number;
  /** Checkpoints of the chosen runs without a matched val eval that could be evaluated. */
  missing: { name: string; run: string }[];
  problems: string[];
}

/** The training runs the registry names, in the order it first lists them, with their kind. */
export function trainingRuns(runsDir: string): { name: string; kind: string }[] {
  const out = new Map<string, string>();
  for (const e of readRegistry(registryPath(runsDir))) {
    const name = basename(e.run);
    if (!out.has(name)) out.set(name, e.kind);
  }
  return [...out].map(([name, kind]) => ({ name, kind }));
}

/**
 * The SFT runs a "best SFT epoch" baseline looks in: the chosen SFT runs, and the runs of the SFT
 * checkpoints the chosen GRPO runs started from.
 */
function sftRuns(runsDir: string, chosen: readonly string[], registry: readonly CheckpointEntry[]): string[] {
  const out = new Set<string>();
  const kindOf = new Map(registry.map((e) => [basename(e.run), e.kind]));
  for (const run of chosen) {
    if (kindOf.get(run) === "sft") out.add(run);
    const manifest = readJsonFile<Record<string, unknown>>(join(runsDir, run, MANIFEST_FILE));
    const parent = manifest?.parent ?? manifest?.init_state;
    const entry = [...registry].reverse().find((e) => e.name === parent || e.state_path === parent);
    if (entry?.kind === "sft") out.add(basename(entry.run));
  }
  return [...out];
}

interface RunRows {
  rows: SidebarRow[];
  base?: { evalRun: string; n: number; primary: PrimaryScore };
}

function runRows(runsDir: string, run: string, problems: string[]): RunRows {
  try {
    const s = checkpointScores(join(runsDir, run));
    const base = s.references.find((r) => r.label === "base");
    return {
      rows: s.checkpoints.map((c) => ({
        run,
        name: c.name,
        step: c.step,
        ...(c.epoch !== undefined ? { epoch: c.epoch } : {}),
        ...(c.evalRun && c.primary ? { evalRun: c.evalRun, n: c.n, primary: c.primary } : {}),
        isBaseline: false,
        isBest: false,
        otherEvals: c.otherEvals,
        ...(c.samplerPath ? { samplerPath: c.samplerPath } : {}),
      })),
      ...(base ? { base: { evalRun: base.evalRun, n: base.n, primary: base.primary } } : {}),
    };
  } catch (e) {
    problems.push(`${run}: ${(e as Error).message}`);
    return { rows: [] };
  }
}

const scoredOf = (rows: readonly SidebarRow[]) =>
  rows.flatMap((r) => (r.primary ? [{ name: r.name, primary: r.primary }] : []));

/**
 * `chosen`: training run names (absent or empty: every training run). `baselineId`: absent or not
 * available → the base model if it has a matched eval, else the first scored checkpoint.
 */
export function checkpointsSidebarView(
  runsDir: string,
  chosen?: readonly string[],
  baselineId?: BaselineId,
): CheckpointsSidebarView {
  const problems: string[] = [];
  const registry = readRegistry(registryPath(runsDir));
  const all = trainingRuns(runsDir);
  const shown = chosen?.length ? all.filter((r) => chosen.includes(r.name)).map((r) => r.name) : all.map((r) => r.name);
  const perRun = shown.map((run) => runRows(runsDir, run, problems));
  const rows = perRun.flatMap((r) => r.rows);
  const valMetric = shown.length ? runViewSpec(trainingEnvironment(join(runsDir, shown[0]))).primary.label : "val";

  const baselines: BaselineOption[] = [];
  const base = perRun.find((r) => r.base)?.base;
  baselines.push(
    base
      ? { id: BASE_MODEL_BASELINE, label: "base model", evalRun: base.evalRun, primary: base.primary }
      : { id: BASE_MODEL_BASELINE, label: "base model", why: "no base-model val eval with the runs' settings" },
  );
  const sft = sftRuns(runsDir, shown, registry);
  const sftRows = sft.flatMap((run) =>
    shown.includes(run) ? rows.filter((r) => r.run === run) : runRows(runsDir, run, problems).rows,
  );
  const bestSft = bestByVal(scoredOf(sftRows), f3);
  const bestSftRow = bestSft && sftRows.find((r) => r.name === bestSft.best);
  baselines.push(
    bestSftRow?.evalRun
      ? {
          id: BEST_SFT_BASELINE,
          label: `best SFT epoch (${bestSftRow.name})`,
          evalRun: bestSftRow.evalRun,
          primary: bestSftRow.primary,
        }
      : {
          id: BEST_SFT_BASELINE,
          label: "best SFT epoch",
          why: sft.length ? "no SFT checkpoint has a matched val eval" : "no SFT run among or behind the chosen runs",
        },
  );
  for (const r of rows)
    if (r.evalRun)
      baselines.push({ id: checkpointBaseline(r.name), label: r.name, evalRun: r.evalRun, primary: r.primary });

  const available = baselines.filter((b) => b.evalRun);
  const baseline =
    available.find((b) => b.id === baselineId) ??
    available.find((b) => b.id === BASE_MODEL_BASELINE) ??
    available.find((b) => b.id.startsWith("ckpt:")) ??
    null;

  let holmFamily = 0;
  if (baseline?.evalRun) {
    const baseValues = primaryById(join(runsDir, baseline.evalRun));
    const deltas = rows.map((r) => {
      if (!r.evalRun || r.evalRun === baseline.evalRun) return null;
      return pairedDelta(baseValues, primaryById(join(runsDir, r.evalRun)));
    });
    const tested = deltas.flatMap((d, i) => (d ? [i] : []));
    const adjusted = holmAdjust(tested.map((i) => deltas[i]!.p));
    holmFamily = tested.length;
    tested.forEach((i, k) => {
      const d = deltas[i]!;
      rows[i].delta = {
        delta: d.delta,
        lo: d.ci.lo,
        hi: d.ci.hi,
        p: d.p,
        pHolm: adjusted[k],
        verdict: verdict(adjusted[k], d.ci),
        n: d.n,
      };
    });
    for (const r of rows) r.isBaseline = r.evalRun === baseline.evalRun;
  }

  const best = bestByVal(scoredOf(rows), f3);
  for (const r of rows) r.isBest = r.name === best?.best;

  return {
    runs: all.map((r) => ({ ...r, chosen: shown.includes(r.name) })),
    valMetric,
    rows,
    baselines,
    baseline,
    best,
    bestRule: BEST_RULE,
    holmFamily,
    missing: rows.filter((r) => !r.evalRun && r.samplerPath).map((r) => ({ name: r.name, run: r.run })),
    problems,
  };
}

/**
 * The matched val evals of checkpoints picked by name (Compare Selected): their folders in the
 * order given, and the names that have none.
 */
export function matchedEvals(runsDir: string, names: readonly string[]): { dirs: string[]; missing: string[] } {
  const rows = trainingRuns(runsDir).flatMap((r) => runRows(runsDir, r.name, []).rows);
  const dirs: string[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const row = rows.find((r) => r.name === name);
    if (row?.evalRun) dirs.push(join(runsDir, row.evalRun));
    else missing.push(name);
  }
  return { dirs, missing };
}

/** Every training run's checkpoints that have a matched val eval, by checkpoint name (unreadable runs skipped). */
export function checkpointValScores(runsDir: string): Map<string, CheckpointValScore> {
  const out = new Map<string, CheckpointValScore>();
  for (const { name: run } of trainingRuns(runsDir)) {
    const rows = runRows(runsDir, run, []).rows.filter((r) => r.primary && r.evalRun);
    if (rows.length === 0) continue;
    const metric = runViewSpec(trainingEnvironment(join(runsDir, run))).primary.label;
    for (const r of rows) out.set(r.name, { metric, primary: r.primary!, evalRun: r.evalRun! });
  }
  return out;
}
