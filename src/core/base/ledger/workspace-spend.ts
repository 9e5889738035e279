/**
 * What a workspace has spent: every run folder's ledger.jsonl summed, per run and in total. Runs
 * written before the ledger existed (or by a job that does not keep one) count through their
 * summary.json `usd_total`, so older eval runs are not silently left out.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readSummaryHead } from "../runs/run-files";
import { LEDGER_FILE, readLedger, type LedgerKind } from "./ledger";

export interface RunSpend {
  /** Folder name under the runs directory. */
  name: string;
  usd: number;
  /** USD per kind of work (ledger runs only). */
  byKind: Partial<Record<LedgerKind, number>>;
  tokens: { prefill: number; sampled: number; trained: number };
  /** Where the number came from. */
  source: "ledger" | "summary";
  /** Time of the newest counted line (or the summary's update time). */
  last?: string;
}

export interface WorkspaceSpend {
  runs: RunSpend[];
  totalUsd: number;
  /** The `since` bound applied, if any (ISO). */
  since?: string;
}

export interface SpendOptions {
  /** Count only ledger lines at or after this time (summary-only runs: by their last update). */
  since?: Date;
}

/** Start of the local calendar day of `now`, the bound `agent-lab spend --today` uses. */
export function startOfToday(now: Date = new Date()): Date {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate());
}

/** Sums every run's spend under `runsDir` (absent folder = nothing spent); runs with $0 and no tokens are left out. */
export function workspaceSpend(runsDir: string, options: SpendOptions = {}): WorkspaceSpend {
  const since = options.since?.getTime();
  const runs: RunSpend[] = [];
  const names = existsSync(runsDir)
    ? readdirSync(runsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
  for (const name of names) {
    const dir = join(runsDir, name);
    const spend = existsSync(join(dir, LEDGER_FILE)) ? fromLedger(name, dir, since) : fromSummary(name, dir, since);
    if (spend && (spend.usd > 0 || spend.tokens.prefill + spend.tokens.sampled + spend.tokens.trained > 0))
      runs.push(spend);
  }
  return {
    runs,
    totalUsd: runs.reduce((s, r) => s + r.usd, 0),
    ...(options.since ? { since: options.since.toISOString() } : {}),
  };
}

function fromLedger(name: string, dir: string, since: number | undefined): RunSpend {
  const spend: RunSpend = {
    name,
    usd: 0,
    byKind: {},
    tokens: { prefill: 0, sampled: 0, trained: 0 },
    source: "ledger",
  };
  for (const e of readLedger(dir)) {
    if (since !== undefined && !(Date.parse(e.time) >= since)) continue;
    const usd = Number(e.usd) || 0;
    spend.usd += usd;
    spend.byKind[e.kind] = (spend.byKind[e.kind] ?? 0) + usd;
    spend.tokens.prefill += e.tokens?.prefill ?? 0;
    spend.tokens.sampled += e.tokens?.sampled ?? 0;
    spend.tokens.trained += e.tokens?.trained ?? 0;
    if (!spend.last || e.time > spend.last) spend.last = e.time;
  }
  return spend;
}

function fromSummary(name: string, dir: string, since: number | undefined): RunSpend | undefined {
  const summary = readSummaryHead(dir);
  if (!summary || typeof summary.usd_total !== "number") return undefined;
  if (since !== undefined && !(Date.parse(summary.updated) >= since)) return undefined;
  return {
    name,
    usd: summary.usd_total,
    byKind: { eval: summary.usd_total },
    tokens: { prefill: 0, sampled: 0, trained: 0 },
    source: "summary",
    last: summary.updated,
  };
}
