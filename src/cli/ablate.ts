/**
 * `agent-lab ablate RUN... [--resamples N] [--seed S] [--expect FIELD]... [--json OUT] [--report OUT.md]`
 * Paired comparison of runs on the questions they all share; the first run is the baseline.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { ablate, DEFAULT_RESAMPLES, loadAblationInputs, renderAblationTable, renderMarkdownReport } from "../core/analysis";
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { writeJsonAtomic } from "../core/runs/run-files";
import { intFlag, parse } from "./args";

const HELP = `usage: agent-lab ablate RUN... [options]

Compares runs on the questions they all share (by id). The first RUN is the baseline; every other
run gets a paired Δ against it.

  RUN               a run folder, or a run name under the config's runsDir
  --resamples N     bootstrap resamples (default ${DEFAULT_RESAMPLES.toLocaleString("en-US")}; also the permutation test's draws)
  --seed S          seed of the resampling (default 0)
  --expect FIELD    a fingerprint field expected to differ, e.g. policy.checkpoint or search
                    (a prefix covers its sub-fields); repeat for several. Other differences warn.
  --json OUT        write the full comparison (per-question flips included) as JSON
  --report OUT.md   write the recipe's markdown report table
  --label A,B,...   stage names for the report's rows (default: run folder names)
  --workspace DIR   folder holding agent-lab.json (default .)

Intervals are 95% percentile bootstrap; Δ F1 is tested by a paired sign-flip permutation test,
Δ EM by McNemar's exact test, Holm-adjusted across the table.`;

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(
    "ablate",
    argv,
    {
      resamples: { type: "string" },
      seed: { type: "string" },
      expect: { type: "string", multiple: true },
      json: { type: "string" },
      report: { type: "string" },
      label: { type: "string" },
      workspace: { type: "string", default: "." },
      help: { type: "boolean", short: "h" },
    },
    true,
  );
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (positionals.length === 0) throw new UserError("give the runs to compare: agent-lab ablate BASELINE RUN... (see --help)");
  const resamples = intFlag("resamples", values.resamples, 100) ?? DEFAULT_RESAMPLES;
  if (resamples > 1_000_000) throw new UserError("--resamples must be at most 1,000,000");
  const seed = intFlag("seed", values.seed, 0) ?? 0;
  const labels = values.label?.split(",").map((l) => l.trim());
  if (labels && labels.length !== positionals.length) throw new UserError(`--label has ${labels.length} names for ${positionals.length} runs`);
  const expect = (values.expect ?? []).flatMap((e) => e.split(",")).map((e) => e.trim()).filter(Boolean);

  const dirs = positionals.map((p) => resolveRunDir(p, values.workspace!));
  const report = ablate(loadAblationInputs(dirs), { resamples, seed, expect });
  console.log(renderAblationTable(report));
  if (values.json) {
    ensureParent(values.json);
    writeJsonAtomic(values.json, report);
    console.log(`\nwrote ${values.json}`);
  }
  if (values.report) {
    ensureParent(values.report);
    const tmp = `${values.report}.${process.pid}.tmp`;
    writeFileSync(tmp, renderMarkdownReport(report, { labels }));
    renameSync(tmp, values.report);
    console.log(`${values.json ? "" : "\n"}wrote ${values.report}`);
  }
}

function ensureParent(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
}

function resolveRunDir(run: string, workspace: string): string {
  if (existsSync(run)) return run;
  const runsDir = loadConfig(workspace).runsDir;
  const named = join(isAbsolute(runsDir) ? runsDir : join(workspace, runsDir), run);
  if (existsSync(named)) return named;
  throw new UserError(`no run folder "${run}" (looked at ${run} and ${named})`);
}
