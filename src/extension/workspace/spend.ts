/**
 * Spend shown in the status bar and by "Show Spend": the ledger's `workspaceSpend` (every run's
 * ledger.jsonl, or summary.json usd_total for runs without a ledger), today = since local midnight.
 */
import { startOfToday, workspaceSpend } from "../../core/base/ledger/workspace-spend";

export interface SpendReport {
  todayUsd: number;
  totalUsd: number;
  perRun: { name: string; usd: number; todayUsd: number; source: "ledger" | "summary" }[];
}

export function spendReport(runsDir: string, now: Date = new Date()): SpendReport {
  const total = workspaceSpend(runsDir);
  const today = workspaceSpend(runsDir, { since: startOfToday(now) });
  const todayByRun = new Map(today.runs.map((r) => [r.name, r.usd]));
  return {
    todayUsd: today.totalUsd,
    totalUsd: total.totalUsd,
    perRun: total.runs.map((r) => ({
      name: r.name,
      usd: r.usd,
      todayUsd: todayByRun.get(r.name) ?? 0,
      source: r.source,
    })),
  };
}
