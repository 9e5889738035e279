/**
 * The workspace ledger against the service's billing usage for the same hours (`agent-lab spend
 * --tinker`): training, prefill and sampled tokens per kind, with every difference named. The
 * service reports whole UTC hours in windows of at most 14 days, so the period starts on the hour
 * at or before `since` and ends on the hour after now; the ledger is read from the same start.
 */
import type { BillingUsageResponse } from "../tinker/wire/types";
import type { WorkspaceSpend } from "./workspace-spend";

const HOUR_MS = 3_600_000;
/** The service's longest window (spec §6). */
export const BILLING_WINDOW_MAX_MS = 14 * 24 * HOUR_MS;

export type ReconciledKind = "training" | "prefill" | "sampled";
export const RECONCILED_KINDS: readonly ReconciledKind[] = ["training", "prefill", "sampled"];
export const KIND_LABELS: Record<ReconciledKind, string> = {
  training: "training tokens",
  prefill: "prefill tokens",
  sampled: "sampled tokens",
};

export interface Reconciliation {
  start: string;
  end: string;
  /** Runs whose ledger was not counted: their manifest names another source (a scripted reader, another service). */
  leftOut: string[];
  ledger: Record<ReconciledKind, number>;
  service: Record<ReconciledKind, number>;
  /** What the service bills that the ledger does not track. */
  serviceOnly: { checkpoints: number; storageGigabyteHours: number };
  /** One sentence per kind whose counts differ; empty when all match. */
  differences: string[];
}

/**
 * The service a run's tokens went to, from its manifest: a training run's `backend`, an eval's
 * `policy.kind` ("local-backend" or "tinker"); undefined for runs that name neither (sampled from a
 * scripted reader, or written by an older build), which the comparison leaves out and lists.
 */
export function runService(manifest: unknown): "local" | "tinker" | undefined {
  if (typeof manifest !== "object" || manifest === null) return undefined;
  const m = manifest as { backend?: unknown; policy?: { kind?: unknown } };
  if (m.backend === "local" || m.backend === "tinker") return m.backend;
  const kind = m.policy?.kind;
  return kind === "local-backend" ? "local" : kind === "tinker" ? "tinker" : undefined;
}

/** The hour-aligned period [floor(since), the hour after now). */
export function billingPeriod(since: Date, now = new Date()): { start: Date; end: Date } {
  const start = new Date(Math.floor(since.getTime() / HOUR_MS) * HOUR_MS);
  const end = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS);
  return { start, end: end.getTime() > start.getTime() ? end : new Date(start.getTime() + HOUR_MS) };
}

/** The period cut into windows the service accepts (≤ 14 days each, hour-aligned). */
export function billingWindows(start: Date, end: Date): { start: Date; end: Date }[] {
  const out: { start: Date; end: Date }[] = [];
  for (let t = start.getTime(); t < end.getTime(); t += BILLING_WINDOW_MAX_MS)
    out.push({ start: new Date(t), end: new Date(Math.min(end.getTime(), t + BILLING_WINDOW_MAX_MS)) });
  return out;
}

/** `counted(run name)`: whether that run's ledger used this service (runService); the rest are listed in leftOut. */
export function reconcile(
  period: { start: Date; end: Date },
  spend: WorkspaceSpend,
  usage: readonly BillingUsageResponse[],
  counted: (runName: string) => boolean = () => true,
): Reconciliation {
  const ledger = { training: 0, prefill: 0, sampled: 0 };
  const leftOut: string[] = [];
  for (const r of spend.runs) {
    if (!counted(r.name)) {
      leftOut.push(r.name);
      continue;
    }
    ledger.training += r.tokens.trained;
    ledger.prefill += r.tokens.prefill;
    ledger.sampled += r.tokens.sampled;
  }
  const service = { training: 0, prefill: 0, sampled: 0 };
  const serviceOnly = { checkpoints: 0, storageGigabyteHours: 0 };
  for (const e of usage.flatMap((u) => u.data)) {
    const i = e.event_info;
    if (i.type === "training") service.training += i.token_count;
    else if (i.type === "sampling_prefill") service.prefill += i.token_count;
    else if (i.type === "sampling_sample") service.sampled += i.token_count;
    else if (i.type === "checkpoint") serviceOnly.checkpoints += i.count;
    else if (i.type === "storage") serviceOnly.storageGigabyteHours += i.gigabyte_hours;
  }
  const differences = RECONCILED_KINDS.filter((k) => ledger[k] !== service[k]).map((k) => {
    const d = ledger[k] - service[k];
    return `${KIND_LABELS[k]} differ: ledger ${ledger[k]}, service ${service[k]} (${Math.abs(d)} more in the ${d > 0 ? "ledger" : "service's billing"})`;
  });
  return {
    start: period.start.toISOString(),
    end: period.end.toISOString(),
    leftOut,
    ledger,
    service,
    serviceOnly,
    differences,
  };
}

/** The comparison as a small table, then the differences (or that all match). */
export function renderReconciliation(r: Reconciliation, serviceName: string): string {
  const rows = RECONCILED_KINDS.map(
    (k) => `  ${KIND_LABELS[k].padEnd(16)}${String(r.ledger[k]).padStart(12)}${String(r.service[k]).padStart(12)}`,
  );
  const extra = [
    `  ${"checkpoints".padEnd(16)}${"-".padStart(12)}${String(r.serviceOnly.checkpoints).padStart(12)}`,
    `  ${"storage GB-h".padEnd(16)}${"-".padStart(12)}${r.serviceOnly.storageGigabyteHours.toFixed(4).padStart(12)}`,
  ];
  const verdict = r.differences.length ? r.differences.map((d) => `  ${d}`).join("\n") : "  all token counts match";
  return [
    `ledger vs ${serviceName}'s billing usage, ${r.start} to ${r.end}:`,
    `  ${"".padEnd(16)}${"ledger".padStart(12)}${"service".padStart(12)}`,
    ...rows,
    ...extra,
    verdict,
    ...(r.leftOut.length ? [`  not counted (their manifests name another source): ${r.leftOut.join(", ")}`] : []),
  ].join("\n");
}
