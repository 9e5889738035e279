/**
 * Progress as data: a running step rewrites `progress.json` in its run folder (atomically, at most
 * a few times a second), and the Jobs view, the progress notification and the status bar read it.
 * Nothing parses log lines for progress.
 *
 *   {"format":1,"step":"train-grpo","label":"GRPO","unit":"step","done":33,"planned":60,
 *    "usd":0,"status":"running","started":"…","updated":"…","eta_s":80}
 *
 * A pipeline's own progress.json carries `stage` (i/n with its name) and the current stage's
 * progress under `current`; its `eta_s` is the recipe engine's, for the whole list of stages. An
 * experiment's calls its stages phases (`unit: "phase"`) and carries its cap, `budget_usd`, so every
 * view says the spend so far against it. While more than one stage runs at once (a sweep's arms
 * side by side) `running` lists each with its own progress; `stage`/`current` then name the one
 * started last (what a reader that predates `running` shows), and `usd`/`eta_s` stay the whole job's.
 * A file without `running` (one stage at a time, or an earlier build) reads as before.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomic } from "../util/atomic-write";
import { RUN_FILES } from "./run-folder";

export const PROGRESS_FILE = RUN_FILES.progress;
export const PROGRESS_FORMAT = 1;

export type ProgressUnit = "episode" | "question" | "step" | "epoch" | "stage" | "phase" | "task";
export type ProgressStatus = "running" | "done" | "interrupted" | "failed";

export interface UnitProgress {
  /** Human name of what runs: "eval", "SFT", "GRPO". */
  label: string;
  unit: ProgressUnit;
  done: number;
  planned: number;
  /** USD spent so far by this step. */
  usd: number;
  /** Seconds left at the pace so far; absent until there is a pace. */
  eta_s?: number;
}

/** One stage running now, beside others: its place in the list and its own progress. */
export interface RunningStage {
  index: number;
  name: string;
  label: string;
  /** Its own progress; absent until it reports. */
  current?: UnitProgress;
}

export interface Progress extends UnitProgress {
  format: number;
  step: string;
  status: ProgressStatus;
  started: string;
  updated: string;
  /** Pipeline only: which stage runs, and that stage's own progress. */
  stage?: { index: number; count: number; name: string };
  current?: UnitProgress;
  /** Only while two or more stages run at once: each of them, in list order. */
  running?: RunningStage[];
  /** The cap `usd` is spent against (an experiment's budget_usd); absent or 0: none. */
  budget_usd?: number;
}

export function progressPath(runDir: string): string {
  return join(runDir, PROGRESS_FILE);
}

/** Seconds left, from the pace since `startedMs` (undefined before the first unit is done). */
export function etaSeconds(
  done: number,
  planned: number,
  startedMs: number,
  nowMs: number,
  doneAtStart = 0,
): number | undefined {
  const ran = done - doneAtStart;
  if (ran <= 0 || done >= planned) return done >= planned ? 0 : undefined;
  return Math.round((((nowMs - startedMs) / 1000) * (planned - done)) / ran);
}

export interface ProgressWriterOptions {
  step: string;
  label: string;
  unit: ProgressUnit;
  planned: number;
  /** Units already done when this process started (a resume): the ETA uses this process's pace. */
  done?: number;
  usd?: number;
  /** The job's cap in USD (0: none), said next to the spend. */
  budgetUsd?: number;
  /** Minimum ms between writes of unchanged status (tests: 0). */
  minIntervalMs?: number;
  /** Also told of the first state and every update (the pipeline nests a stage's progress in its own). */
  onUpdate?: (p: Progress) => void;
  now?: () => number;
}

/** Keeps one step's progress.json current. */
export class ProgressWriter {
  private readonly file: string;
  private readonly startedMs: number;
  private readonly doneAtStart: number;
  private lastWrite = 0;
  private etaGiven = false;
  private state: Progress;

  constructor(
    runDir: string,
    private readonly options: ProgressWriterOptions,
  ) {
    this.file = progressPath(runDir);
    const now = options.now ?? Date.now;
    this.startedMs = now();
    this.doneAtStart = options.done ?? 0;
    const at = new Date(this.startedMs).toISOString();
    this.state = {
      format: PROGRESS_FORMAT,
      step: options.step,
      label: options.label,
      unit: options.unit,
      done: this.doneAtStart,
      planned: options.planned,
      usd: options.usd ?? 0,
      status: "running",
      started: at,
      updated: at,
      ...(options.budgetUsd ? { budget_usd: options.budgetUsd } : {}),
    };
    this.flush(this.startedMs);
    options.onUpdate?.(this.state);
  }

  get current(): Progress {
    return this.state;
  }

  /** New counts; written when enough time passed since the last write (or `force`). */
  update(
    change: Partial<Pick<Progress, "done" | "planned" | "usd" | "stage" | "current" | "running" | "label" | "eta_s">>,
    force = false,
  ): void {
    const nowMs = (this.options.now ?? Date.now)();
    // A caller that knows better (the recipe engine: one ETA over its whole list of stages) gives eta_s itself.
    if ("eta_s" in change) this.etaGiven = true;
    this.state = { ...this.state, ...change, updated: new Date(nowMs).toISOString() };
    const eta =
      this.etaGiven && this.state.status === "running"
        ? this.state.eta_s
        : etaSeconds(this.state.done, this.state.planned, this.startedMs, nowMs, this.doneAtStart);
    if (eta === undefined) delete this.state.eta_s;
    else this.state.eta_s = eta;
    this.options.onUpdate?.(this.state);
    if (force || nowMs - this.lastWrite >= (this.options.minIntervalMs ?? 250)) this.flush(nowMs);
  }

  /** The last word: done, interrupted or failed (always written). */
  finish(status: ProgressStatus, change: Partial<Pick<Progress, "done" | "planned" | "usd">> = {}): void {
    this.state = { ...this.state, status };
    this.update(change, true);
  }

  private flush(nowMs: number): void {
    this.lastWrite = nowMs;
    writeJsonAtomic(this.file, this.state, 0);
  }
}

/** A run folder's progress, or undefined when it has none (or it is being replaced this instant). */
export function readProgress(runDir: string): Progress | undefined {
  const file = progressPath(runDir);
  if (!existsSync(file)) return undefined;
  try {
    const p = JSON.parse(readFileSync(file, "utf8")) as Progress;
    return typeof p === "object" && p !== null && typeof p.done === "number" && typeof p.planned === "number"
      ? withRunningChecked(p)
      : undefined;
  } catch {
    return undefined; // renamed over between exists and read: the next poll reads the new one
  }
}

/** A `running` list that is not a list of named stages is dropped: the line falls back to `stage`/`current`. */
function withRunningChecked(p: Progress): Progress {
  if (p.running === undefined) return p;
  const ok =
    Array.isArray(p.running) &&
    p.running.every(
      (r: unknown) =>
        typeof r === "object" &&
        r !== null &&
        typeof (r as RunningStage).index === "number" &&
        typeof (r as RunningStage).name === "string",
    );
  if (ok) return p;
  const { running: _dropped, ...rest } = p;
  return rest;
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(sec).padStart(2, "0")}s`;
  return `${sec}s`;
}

function describeUnit(p: UnitProgress): string {
  return `${p.unit} ${p.done}/${p.planned}`;
}

/**
 * The one line every view shows: "GRPO · step 33/60 · $0.00 · ETA 1m 20s", and for a pipeline
 * "stage 9/11 GRPO · step 33/60 · $0.00 · ETA 12m 40s". One ETA, for the whole job: a pipeline's
 * own `eta_s` is the recipe engine's over every stage left (the running stage's is only a part of it).
 * An experiment: "phase 5/9 train:generated · step 3/8 · $0.12 of $5.00 · ETA 4m 10s"; with two
 * arms at once: "phases 6+7/12 · train:a step 3/8 · train:b step 1/8 · $0.12 of $5.00 · ETA 4m 10s".
 */
export function describeProgress(p: Progress): string {
  const noun = p.unit === "phase" ? "phase" : "stage";
  const running = p.running && p.running.length > 1 ? p.running : undefined;
  const inner = p.stage ? p.current : p;
  const parts: string[] = [];
  if (running) {
    parts.push(`${noun}s ${running.map((r) => r.index).join("+")}/${p.stage?.count ?? p.planned}`);
    for (const r of running) parts.push(r.current ? `${r.label} ${describeUnit(r.current)}` : r.label);
  } else {
    parts.push(p.stage ? `${noun} ${p.stage.index}/${p.stage.count} ${p.label}` : p.label);
    if (inner) parts.push(describeUnit(inner));
  }
  parts.push(`$${p.usd.toFixed(2)}${p.budget_usd ? ` of $${p.budget_usd.toFixed(2)}` : ""}`);
  if (p.status !== "running") parts.push(p.status);
  else {
    const eta = p.eta_s ?? inner?.eta_s;
    if (eta !== undefined) parts.push(`ETA ${formatDuration(eta)}`);
  }
  return parts.join(" · ");
}
