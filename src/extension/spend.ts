/**
 * Spend shown in the status bar and by "Show Spend". Until the ledger's `workspaceSpend`
 * (src/core/ledger/) lands, it sums `usd_total` of run summaries: today = runs updated since local
 * midnight (an approximation: a run that began yesterday counts whole). vscode-free.
 */
import type { RunRow } from "./runs/runs-model";

export interface SpendReport {
  todayUsd: number;
  totalUsd: number;
  perRun: { name: string; usd: number; today: boolean }[];
}

export function startOfToday(now: Date = new Date()): number {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
}

export function spendFromRuns(rows: readonly RunRow[], now: Date = new Date()): SpendReport {
  const since = startOfToday(now);
  const perRun = rows
    .filter((r) => (r.summary?.usd_total ?? 0) > 0)
    .map((r) => ({ name: r.name, usd: r.summary!.usd_total, today: r.updatedMs >= since }));
  return {
    todayUsd: perRun.filter((r) => r.today).reduce((s, r) => s + r.usd, 0),
    totalUsd: perRun.reduce((s, r) => s + r.usd, 0),
    perRun,
  };
}
