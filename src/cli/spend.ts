/**
 * `agent-lab spend [--today | --since TIME] [--json] [--workspace DIR]`: what the workspace's runs
 * have spent, per run and in total, read from each run's ledger.jsonl (older eval runs without a
 * ledger count through summary.json). `--tinker` compares the ledger's tokens with the service's
 * billing usage for the same hours (ledger/reconcile.ts).
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { RUN_FILES } from "../core/base/runs/run-folder";
import { UserError } from "../core/base/errors";
import { readLedger, startOfToday, workspaceSpend, type WorkspaceSpend } from "../core/base/ledger";
import {
  billingPeriod,
  billingWindows,
  reconcile,
  renderReconciliation,
  runService,
} from "../core/base/ledger/reconcile";
import { chooseBackend, connectCheckpointService } from "./checkpoint-service";
import { SPEND_STEP } from "../core/steps/catalog/catalog";
import { parseStepArgs } from "./step-args";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(SPEND_STEP, argv);
  if (!args) return;
  const { values, config, workspaceDir } = args;
  if (values.today && values.since) throw new UserError("give --today or --since, not both");
  let since: Date | undefined;
  if (values.today) since = startOfToday();
  if (values.since !== undefined) {
    since = new Date(values.since);
    if (Number.isNaN(since.getTime()))
      throw new UserError(
        `--since must be a date or date-time (e.g. 2026-11-29 or 2026-11-29T09:00), got "${values.since}"`,
      );
  }
  const runsDir = isAbsolute(config.runsDir) ? config.runsDir : join(workspaceDir, config.runsDir);
  if (values.tinker) {
    const backend = await chooseBackend(values.backend, workspaceDir, undefined);
    return reconcileWithService(runsDir, since, backend, workspaceDir, values["local-port"], Boolean(values.json));
  }
  const spend = workspaceSpend(runsDir, { since });
  if (values.json) return void console.log(JSON.stringify(spend, null, 2));
  console.log(
    renderSpend(spend, values.today ? "today" : since ? `since ${since.toISOString()}` : "all time", config.budgetUsd),
  );
  if (!since && spend.runs.length > 0) {
    // The all-time table ends with today's share, the number a daily budget is checked against.
    const width = Math.max(3, ...spend.runs.map((r) => r.name.length));
    console.log(
      `  ${"today".padEnd(width)}  $${workspaceSpend(runsDir, { since: startOfToday() }).totalUsd.toFixed(4).padStart(9)}`,
    );
  }
}

/** A table of runs and their spend, then the total (and the per-run cap, when one is set). */
export function renderSpend(spend: WorkspaceSpend, period: string, budgetUsd = 0): string {
  if (spend.runs.length === 0) return `no spend recorded (${period})`;
  const width = Math.max(3, ...spend.runs.map((r) => r.name.length));
  const rows = spend.runs.map((r) => {
    const kinds = Object.entries(r.byKind)
      .map(([k, usd]) => `${k} $${(usd ?? 0).toFixed(4)}`)
      .join(", ");
    const tokens =
      r.source === "ledger"
        ? `  tokens ${r.tokens.prefill} prefill / ${r.tokens.sampled} sampled / ${r.tokens.trained} trained`
        : "  (from summary.json)";
    return `  ${r.name.padEnd(width)}  $${r.usd.toFixed(4).padStart(9)}  ${kinds}${tokens}`;
  });
  const cap = budgetUsd > 0 ? `  (budget cap per job: $${budgetUsd.toFixed(2)})` : "";
  return `spend, ${period}:\n${rows.join("\n")}\n  ${"total".padEnd(width)}  $${spend.totalUsd.toFixed(4).padStart(9)}${cap}`;
}

/** The first ledger line's time in the workspace (the start of `spend --tinker` without --since). */
function firstLedgerTime(spend: WorkspaceSpend, runsDir: string): Date | undefined {
  let first: string | undefined;
  for (const r of spend.runs) {
    if (r.source !== "ledger") continue;
    for (const e of readLedger(join(runsDir, r.name))) if (!first || e.time < first) first = e.time;
  }
  return first ? new Date(first) : undefined;
}

async function reconcileWithService(
  runsDir: string,
  since: Date | undefined,
  backend: "local" | "tinker",
  workspaceDir: string,
  port: number,
  json: boolean,
): Promise<void> {
  const from = since ?? firstLedgerTime(workspaceSpend(runsDir), runsDir) ?? startOfToday();
  const period = billingPeriod(from);
  const spend = workspaceSpend(runsDir, { since: period.start });
  const conn = await connectCheckpointService(backend, workspaceDir, port);
  try {
    const usage = [];
    for (const w of billingWindows(period.start, period.end))
      usage.push(await conn.service.billingUsage(w.start, w.end));
    const result = reconcile(period, spend, usage, (name) => runService(readManifest(join(runsDir, name))) === backend);
    if (json) console.log(JSON.stringify(result, null, 2));
    else console.log(renderReconciliation(result, backend === "local" ? "the local backend" : "Tinker"));
  } finally {
    await conn.close();
  }
}

/** A run's manifest.json, or undefined when it has none or it does not parse. */
function readManifest(runDir: string): unknown {
  try {
    return JSON.parse(readFileSync(join(runDir, RUN_FILES.manifest), "utf8"));
  } catch {
    // No manifest (or a torn one): the run names no service and is listed as not counted.
    return undefined;
  }
}
