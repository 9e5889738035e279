/**
 * The cost ledger of one run folder: `ledger.jsonl`, one line per batch or step (eval episode,
 * sampling batch, training step) with its tokens, its dollars and the running total. Appending one
 * line per batch means a crash loses nothing already paid for, and `agent-lab spend` can total a
 * workspace by reading files only.
 *
 * The budget cap is checked *before* money is spent: a job asks `ensureCanSpend(estimate)` (or
 * `reserve(estimate)` when batches run concurrently) and gets a BudgetExceededError instead of
 * starting a batch that would take the run's total over the cap, so it can stop cleanly and keep
 * what is done.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ModelPrices } from "../config";
import { UserError } from "../errors";
import { repairTornTail } from "../runs/run-files";
import { RUN_FILES } from "../runs/run-folder";
import { appendJsonl, readJsonl } from "../util/jsonl";

export const LEDGER_FILE = RUN_FILES.ledger;

/** What the tokens were spent on: evaluating, sampling training data (SFT data, RL rollouts), training. */
export type LedgerKind = "eval" | "sample" | "train";
export const LEDGER_KINDS: readonly LedgerKind[] = ["eval", "sample", "train"];

/** Token counts of one batch; missing counts are 0. */
export interface TokenCounts {
  /** Tokens sent to the sampler (prompts, summed over turns). */
  prefill?: number;
  /** Tokens the sampler produced. */
  sampled?: number;
  /** Tokens passed through forward/backward. */
  trained?: number;
}

/** One line of ledger.jsonl (snake_case on disk, like every run file). */
export interface LedgerEntry {
  /** ISO time the batch was recorded. */
  time: string;
  kind: LedgerKind;
  tokens: { prefill: number; sampled: number; trained: number };
  usd: number;
  /** Run total including this line. */
  cumulative_usd: number;
  /** What the budget check estimated for this batch before it ran (when it reserved one). */
  estimate_usd?: number;
  /** Free text: "episode <id>", "step 12", … */
  label?: string;
}

export interface RecordInput extends TokenCounts {
  kind: LedgerKind;
  label?: string;
  /** Dollars when the caller already priced the batch; default: tokens at the ledger's prices. */
  usd?: number;
  /** Releases this reservation (made for the same batch) as the actual cost is recorded. */
  reservation?: Reservation;
}

/** Money set aside for a batch in flight, so concurrent batches cannot jointly overshoot the cap. */
export interface Reservation {
  readonly usd: number;
  /** Idempotent; call it when the batch failed or was cancelled without spending. */
  release(): void;
}

/** A job would go over its budget cap. It is a UserError: printed as one line, exit code 1. */
export class BudgetExceededError extends UserError {
  constructor(
    readonly capUsd: number,
    readonly spentUsd: number,
    readonly estimateUsd: number,
    what = "the next batch",
  ) {
    super(
      `budget cap $${capUsd.toFixed(2)} reached: $${spentUsd.toFixed(4)} spent or in flight, ${what} ≈ $${estimateUsd.toFixed(4)} ` +
        `would go over it. What is done is kept; raise --budget (or "budgetUsd" in agent-lab.json) to continue.`,
    );
    this.name = "BudgetExceededError";
  }
}

export interface CostLedgerOptions {
  /** Price row to charge tokens at; null for a free source (local backend, scripted, transformers). */
  prices: ModelPrices | null;
  /** Cap on the run's total USD; 0 or absent = no cap (config `budgetUsd`, CLI `--budget`). */
  budgetUsd?: number;
}

/** USD for token counts at a price row (USD per 1M tokens); 0 when free. */
export function costUsd(prices: ModelPrices | null, tokens: TokenCounts): number {
  if (!prices) return 0;
  return (
    ((tokens.prefill ?? 0) * prices.prefill +
      (tokens.sampled ?? 0) * prices.sample +
      (tokens.trained ?? 0) * prices.train) /
    1e6
  );
}

export function ledgerPath(runDir: string): string {
  return join(runDir, LEDGER_FILE);
}

/** Every line of a run's ledger (a torn last line from a killed writer is skipped); [] when absent. */
export function readLedger(runDir: string): LedgerEntry[] {
  const file = ledgerPath(runDir);
  if (!existsSync(file)) return [];
  return readJsonl<LedgerEntry>(file, { tolerateTornTail: true });
}

/**
 * Whether spending `estimateUsd` more on top of `spentUsd` passes a cap (0 = no cap); a hair of
 * tolerance so float sums of exactly-the-cap estimates are not refused. Already over the cap is over,
 * whatever the estimate (a list of stages stops before the next one).
 */
export function overBudget(capUsd: number, spentUsd: number, estimateUsd: number): boolean {
  return capUsd > 0 && spentUsd + Math.max(0, estimateUsd) > capUsd + 1e-12;
}

/** What is left of a cap for the next job's own cap (never 0, which means "no cap"); Infinity without one. */
export function budgetLeftUsd(capUsd: number, spentUsd: number): number {
  return capUsd > 0 ? Math.max(1e-9, capUsd - spentUsd) : Infinity;
}

export class CostLedger {
  readonly file: string;
  readonly prices: ModelPrices | null;
  readonly budgetUsd: number;
  private spent: number;
  private reserved = 0;

  private constructor(
    readonly runDir: string,
    options: CostLedgerOptions,
    previousUsd: number,
  ) {
    this.file = ledgerPath(runDir);
    this.prices = options.prices;
    this.budgetUsd = options.budgetUsd ?? 0;
    if (!(this.budgetUsd >= 0)) throw new UserError(`budget must be a number ≥ 0 USD, got ${options.budgetUsd}`);
    this.spent = previousUsd;
  }

  /** Binds a ledger to a run folder (created if needed); a resumed run continues its total. */
  static open(runDir: string, options: CostLedgerOptions): CostLedger {
    mkdirSync(runDir, { recursive: true });
    // A killed writer can leave half a line; cut it so the next line is not glued onto it.
    repairTornTail(ledgerPath(runDir));
    const previous = readLedger(runDir).reduce((s, e) => s + (Number(e.usd) || 0), 0);
    return new CostLedger(runDir, options, previous);
  }

  /** USD recorded so far in this run (all jobs that wrote to this folder). */
  get totalUsd(): number {
    return this.spent;
  }

  /** USD set aside for batches in flight. */
  get reservedUsd(): number {
    return this.reserved;
  }

  get hasCap(): boolean {
    return this.budgetUsd > 0;
  }

  /** Dollars left under the cap after what is spent and reserved; Infinity without a cap. */
  get remainingUsd(): number {
    return this.hasCap ? this.budgetUsd - this.spent - this.reserved : Infinity;
  }

  /** What these tokens cost at this ledger's prices. */
  costOf(tokens: TokenCounts): number {
    return costUsd(this.prices, tokens);
  }

  /** Throws BudgetExceededError when spending `estimateUsd` more would take the run over its cap. */
  ensureCanSpend(estimateUsd: number, what?: string): void {
    if (!this.hasCap || estimateUsd <= 0) return;
    if (overBudget(this.budgetUsd, this.spent + this.reserved, estimateUsd)) {
      throw new BudgetExceededError(this.budgetUsd, this.spent + this.reserved, estimateUsd, what);
    }
  }

  /** ensureCanSpend, then holds the estimate until the batch is recorded (pass it to record) or released. */
  reserve(estimateUsd: number, what?: string): Reservation {
    this.ensureCanSpend(estimateUsd, what);
    const usd = Math.max(0, estimateUsd);
    this.reserved += usd;
    let held = true;
    return {
      usd,
      release: () => {
        if (!held) return;
        held = false;
        this.reserved = Math.max(0, this.reserved - usd);
      },
    };
  }

  /** Appends one batch's line (one write) and returns it. Recording never refuses: the money is spent. */
  record(input: RecordInput): LedgerEntry {
    input.reservation?.release();
    const tokens = { prefill: input.prefill ?? 0, sampled: input.sampled ?? 0, trained: input.trained ?? 0 };
    const usd = input.usd ?? this.costOf(tokens);
    this.spent += usd;
    const entry: LedgerEntry = {
      time: new Date().toISOString(),
      kind: input.kind,
      tokens,
      usd,
      cumulative_usd: this.spent,
      ...(input.reservation ? { estimate_usd: input.reservation.usd } : {}),
      ...(input.label !== undefined ? { label: input.label } : {}),
    };
    appendJsonl(this.file, entry);
    return entry;
  }
}
