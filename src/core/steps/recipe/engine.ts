/**
 * One recipe engine: the pipeline, an experiment and the demo run their stages through it instead
 * of each keeping its own skip/resume/progress/budget loop.
 *
 * A stage declares what it reads and writes (for the record), how it knows it is complete
 * (`isDone`, through the run-folder API), whether it is half done (`isPartial`: its step resumes),
 * what it may spend (`estimateUsd`, its step spec's estimate; 0 for free stages) and `run(ctx)`.
 * The engine, per stage in order: skips a done one; stops on the signal (after the current stage,
 * throwing the abort); refuses one whose estimate would take the spend past the budget (one line);
 * runs it with the budget left as its own cap; records inputs, outputs, seconds and when it
 * finished; and keeps progress.json current: stage i/n, the stage's own step n/N under `current`,
 * and one ETA (`eta_s`) for the whole list from the stages' estimates and the rates measured so far.
 * A driver may run several stages at once (a sweep's arms): then progress lists each under
 * `running`, the spend is the finished stages' plus every running one's own, and the ETA is the
 * work left (the running stages' remainders and the stages to come) over the stages running side by side.
 */
import { budgetLeftUsd, overBudget } from "../../base/ledger";
import type { Progress, ProgressWriter, RunningStage, UnitProgress } from "../../base/runs/progress";
import { UserError } from "../../base/errors";

/** What a running stage is given. */
export interface StageContext {
  /** The stage's own lines (the driver's step log: indented under the stage's line). */
  log: (line: string) => void;
  signal?: AbortSignal;
  /** The stage's own progress (eval episodes, SFT or GRPO steps), nested in the list's. */
  onProgress: (p: UnitProgress) => void;
  /** USD left under the budget for this stage (its step's own cap); Infinity without a budget. */
  budgetLeftUsd: number;
}

export interface Stage {
  name: string;
  /** What the progress line calls it (default: the name). */
  label?: string;
  /** One line said as it starts: what it does, with its size. */
  what?: string;
  /** Paths or run names it reads and writes (for the record). */
  reads?: string[];
  writes?: string[];
  /** Complete: skipped. */
  isDone(): boolean;
  /** Started and not finished: its step resumes (said on its line). */
  isPartial?(): boolean;
  /** Upper bound of what it may spend (USD); 0 or absent for a free stage. */
  estimateUsd?: number;
  /** Expected seconds, for the list's ETA (absent: the last recorded run's, else the pace so far). */
  estimateSeconds?: number;
  /** What its runs spent once it finished (their ledgers); absent = nothing counted. */
  spentUsd?(): number;
  run(ctx: StageContext): Promise<void>;
}

/** One finished stage, as the record keeps it. */
export interface StageRecord {
  seconds: number;
  finished: string;
  usd?: number;
  reads?: string[];
  writes?: string[];
}

export interface BudgetOptions {
  /** The cap for the whole list (USD); 0 = none. */
  capUsd: number;
  /** The refusal's words: whose cap it is and where the finished stages are kept. */
  scope: string;
  keptIn: string;
  /** What the list calls its stages in the refusal (default "stages"). */
  noun?: string;
}

export interface RecipeOptions {
  /** Every stage of the list in order, by name (for i/n; a driver may run them one call at a time). */
  names: string[];
  log: (line: string) => void;
  signal?: AbortSignal;
  progress: ProgressWriter;
  /** Stages finished in earlier runs (read from the driver's record file); the engine adds to it. */
  records: Record<string, StageRecord>;
  /** Persists the record after each stage (the driver's file shape). */
  save: (records: Record<string, StageRecord>) => void;
  /** Stages already complete when the list started (progress `done`). */
  doneAtStart: number;
  budget?: BudgetOptions;
  /** The stage's own lines (default: the list's log). */
  stepLog?: (line: string) => void;
  /** What the skip line says after the name (default the pipeline's). */
  skipped?: string;
  /** A stage's start line after the time (default the pipeline's "i/n NAME (resuming): WHAT"). */
  starting?: (st: Stage, resuming: boolean) => string;
  /** The line after a stage (default the pipeline's "NAME done in Xs"); undefined prints none. */
  finished?: (name: string, seconds: number, usd: number) => string | undefined;
  now?: () => number;
}

export const SKIPPED = "outputs complete, skipped";

/**
 * The one-line refusal before a stage whose estimate would pass the budget; `reservedUsd` is what
 * stages running beside it (a sweep's arms) have set aside and not yet spent.
 */
export function budgetRefusal(
  b: BudgetOptions,
  spentUsd: number,
  stage: string,
  estimateUsd: number,
  reservedUsd = 0,
): string {
  const inFlight = reservedUsd > 0 ? ` plus $${reservedUsd.toFixed(4)} reserved by ${b.noun ?? "stages"} running` : "";
  return `budget_usd $${b.capUsd.toFixed(2)} (${b.scope}): $${spentUsd.toFixed(4)} spent so far${inFlight} and ${stage} is estimated at up to $${estimateUsd.toFixed(4)}; stopped before it (finished ${b.noun ?? "stages"} are kept in ${b.keptIn})`;
}

export class Recipe {
  private readonly t0: number;
  private readonly now: () => number;
  private finishedHere = 0;
  private measured: number[] = [];
  /** The stages running now, in the order they started (one, unless the driver runs several at once). */
  private readonly running = new Map<string, InFlight>();
  /**
   * What the finished stages spent as progress counts it: progress's figure when the first stage
   * here started, then each finished stage's records total (the ledgers), or, for a stage that keeps
   * none, the spend it last reported.
   */
  private finishedUsd: number | undefined;
  /** Whether two stages ever ran at once here (the count done is then what finished, not the position). */
  private sideBySide = false;
  /** The estimates of stages running now (a driver may run several at once): set aside against the budget. */
  private reserved = 0;
  /** Seconds of each stage this process ran. */
  readonly secondsHere: Record<string, number> = {};

  constructor(private readonly o: RecipeOptions) {
    this.now = o.now ?? Date.now;
    this.t0 = this.now();
  }

  /** "[12.3s]": seconds since the list started, the prefix of every line the engine says. */
  at(): string {
    return `[${((this.now() - this.t0) / 1000).toFixed(1)}s]`;
  }

  /** What the finished stages spent (their records). */
  spent(): number {
    return Object.values(this.o.records).reduce((s, r) => s + (r.usd ?? 0), 0);
  }

  /** Runs every stage in order. */
  async runAll(stages: Stage[]): Promise<void> {
    for (const st of stages) await this.run(st, stages);
  }

  /**
   * Runs one stage of the list unless it is done. `known` (the whole list, when the driver has it)
   * feeds the ETA with the later stages' estimates; without it the ETA counts the names left that
   * have no record yet, at their recorded or the measured pace.
   */
  async run(st: Stage, known: Stage[] = []): Promise<void> {
    const { names, log } = this.o;
    const n = names.indexOf(st.name) + 1;
    if (n === 0) throw new Error(`stage ${st.name} is not in the list ${names.join(", ")}`);
    if (st.isDone()) {
      log(`${this.at()} ${n}/${names.length} ${st.name}: ${this.o.skipped ?? SKIPPED}`);
      return;
    }
    this.o.signal?.throwIfAborted();
    const b = this.o.budget;
    const estimate = Math.max(0, st.estimateUsd ?? 0);
    if (b && overBudget(b.capUsd, this.spent() + this.reserved, estimate))
      throw new UserError(budgetRefusal(b, this.spent(), st.name, estimate, this.reserved));
    // Held from the check until the stage's spend is recorded, so stages run side by side cannot jointly pass the cap.
    const othersReserved = this.reserved;
    this.reserved += estimate;
    try {
      await this.runChecked(st, known, n, othersReserved);
    } finally {
      this.reserved -= estimate;
    }
  }

  /** USD set aside for the stages running now. */
  get reservedUsd(): number {
    return this.reserved;
  }

  private async runChecked(st: Stage, known: Stage[], n: number, othersReserved: number): Promise<void> {
    const { names, log, progress } = this.o;
    const b = this.o.budget;
    this.finishedUsd ??= progress.current.usd;
    const stageStart = this.now();
    const flight: InFlight = { st, n, known, start: stageStart };
    this.running.set(st.name, flight);
    if (this.running.size > 1) this.sideBySide = true;
    // One at a time, the stages before this one are done; side by side, what finished is counted.
    const done = this.sideBySide ? this.o.doneAtStart + this.finishedHere : n - 1;
    progress.update({ ...this.runningFields(), done, eta_s: this.eta() }, true);
    const resuming = st.isPartial?.() ?? false;
    const starting =
      this.o.starting?.(st, resuming) ??
      `${n}/${names.length} ${st.name}${resuming ? " (resuming)" : ""}${st.what ? `: ${st.what}` : ""}`;
    log(`${this.at()} ${starting}`);
    // A stage's first state ("step 0/60") is written at once, so the views show what it plans as it starts.
    const onProgress = (p: UnitProgress) => {
      const first = flight.current === undefined;
      flight.current = {
        label: p.label,
        unit: p.unit,
        done: p.done,
        planned: p.planned,
        usd: p.usd,
        ...(p.eta_s !== undefined ? { eta_s: p.eta_s } : {}),
      };
      progress.update({ ...this.runningFields(), usd: this.spendNow(), eta_s: this.eta() }, first);
    };
    // Its own cap leaves out what the stages beside it hold (none when the stages run one at a time).
    const budgetLeft = b ? budgetLeftUsd(b.capUsd, this.spent() + othersReserved) : Infinity;
    try {
      await st.run({ log: this.o.stepLog ?? log, signal: this.o.signal, onProgress, budgetLeftUsd: budgetLeft });
    } catch (e) {
      this.running.delete(st.name);
      throw e;
    }
    const seconds = (this.now() - stageStart) / 1000;
    const usd = st.spentUsd?.();
    this.o.records[st.name] = {
      seconds,
      finished: new Date(this.now()).toISOString(),
      ...(usd !== undefined ? { usd } : {}),
      ...(st.reads ? { reads: st.reads } : {}),
      ...(st.writes ? { writes: st.writes } : {}),
    };
    this.running.delete(st.name);
    this.finishedUsd = usd !== undefined ? this.spent() : (this.finishedUsd ?? 0) + (flight.current?.usd ?? 0);
    this.o.save(this.o.records);
    this.measured.push(seconds);
    this.secondsHere[st.name] = seconds;
    this.finishedHere++;
    progress.update(
      {
        ...this.runningFields(),
        done: this.o.doneAtStart + this.finishedHere,
        usd: this.spendNow(),
        eta_s: this.eta(flight),
      },
      true,
    );
    const line = (this.o.finished ?? ((name, s) => `${name} done in ${s.toFixed(1)}s`))(st.name, seconds, usd ?? 0);
    if (line !== undefined) log(`${this.at()} ${line}`);
  }

  /**
   * What progress says of the stages running now: the one started last as `stage`/`current` (the
   * single-stage shape every reader knows; kept after the last finishes, with no `current`), and
   * every one under `running` while two or more run.
   */
  private runningFields(): Partial<Pick<Progress, "label" | "stage" | "current" | "running">> {
    const all = [...this.running.values()];
    const last = all[all.length - 1];
    const fields: Partial<Pick<Progress, "label" | "stage" | "current" | "running">> = {
      current: last?.current,
      // Cleared once one stage is left; never added to the one-at-a-time shape.
      ...(this.o.progress.current.running ? { running: undefined } : {}),
    };
    if (last)
      Object.assign(fields, {
        label: last.st.label ?? last.st.name,
        stage: { index: last.n, count: this.o.names.length, name: last.st.name },
      });
    if (all.length > 1)
      fields.running = all
        .sort((x, y) => x.n - y.n)
        .map((f): RunningStage => ({
          index: f.n,
          name: f.st.name,
          label: f.st.label ?? f.st.name,
          ...(f.current ? { current: f.current } : {}),
        }));
    return fields;
  }

  /** The spend so far: the finished stages' plus what each running stage has reported of its own (each once). */
  private spendNow(): number {
    return [...this.running.values()].reduce((s, f) => s + (f.current?.usd ?? 0), this.finishedUsd ?? 0);
  }

  /**
   * One ETA for the whole list: each running stage's remainder (its own ETA, else its expected
   * seconds less those it ran) plus every stage still to come after the earliest running one, over
   * how many run side by side; undefined while any part is unknown. `justFinished`: the stage that
   * ended, whose later stages are what is left when none runs.
   */
  private eta(justFinished?: InFlight): number | undefined {
    const flights = [...this.running.values()];
    const first = flights.length ? flights.reduce((a, f) => (f.n < a.n ? f : a)) : justFinished;
    if (!first) return 0;
    const known = first.known;
    const later: Pick<Stage, "name" | "estimateSeconds">[] = known.length
      ? known.slice(known.indexOf(first.st) + 1).filter((x) => !x.isDone() && !this.running.has(x.name))
      : this.o.names
          .slice(first.n)
          .filter((name) => !this.o.records[name] && !this.running.has(name))
          .map((name) => ({ name }));
    let work: number | undefined = later.reduce<number | undefined>(
      (t, x) => (t === undefined ? t : add(t, this.secondsOf(x))),
      0,
    );
    for (const f of flights) {
      const own = f.current?.eta_s ?? remaining(this.secondsOf(f.st), (this.now() - f.start) / 1000);
      work = add(own, work);
    }
    return work === undefined ? undefined : Math.round(work / Math.max(1, flights.length));
  }

  /** A stage's expected seconds: its estimate, else its last recorded run, else the mean measured here. */
  private secondsOf(st: Pick<Stage, "name" | "estimateSeconds">): number | undefined {
    if (st.estimateSeconds !== undefined) return st.estimateSeconds;
    const before = this.o.records[st.name]?.seconds;
    if (before !== undefined) return before;
    return this.measured.length ? this.measured.reduce((a, x) => a + x, 0) / this.measured.length : undefined;
  }
}

/** A stage the engine is running now. */
interface InFlight {
  st: Stage;
  n: number;
  /** The list the driver gave with it (for the ETA's stages to come). */
  known: Stage[];
  start: number;
  current?: UnitProgress;
}

const add = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : Math.round(a + b);
const remaining = (expected: number | undefined, ran: number) =>
  expected === undefined ? undefined : Math.max(0, expected - ran);
