/**
 * `agent-lab ablate RUN... [--resamples N] [--seed S] [--expect FIELD]... [--json OUT] [--report OUT.md]`
 * Paired comparison of runs on the questions they all share; the first run is the baseline.
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ablate, loadAblationInputs, renderAblationTable, renderMarkdownReport } from "../core/steps/ablate";
import { reportEnvironment } from "../core/steps/ablate/report-environment";
import { environmentDataDir, workspaceDataDir } from "../core/envs/data-dirs";
import { UserError } from "../core/base/errors";
import { writeFileAtomic, writeJsonAtomic } from "../core/base/util/atomic-write";
import { ABLATE_STEP } from "../core/steps/catalog/catalog";
import { resolveRunDir } from "./run-dir";
import { parseStepArgs } from "./step-args";
import { compareRunFailures, renderFailureComparisonMarkdown } from "../core/views/failures/compare-failures";
import { readEpisodes } from "../core/base/runs/run-files";
import { ABLATE_FIELDS } from "../core/base/runs/episode-record";
import { environmentMetrics } from "../core/envs/catalog";

export async function run(argv: string[]): Promise<void> {
  const args = parseStepArgs(ABLATE_STEP, argv);
  if (!args) return;
  const { values, positionals, config, workspaceDir } = args;
  if (positionals.length === 0)
    throw new UserError("give the runs to compare: agent-lab ablate BASELINE RUN... (see --help)");
  const labels = values.label?.split(",").map((l) => l.trim());
  if (labels && labels.length !== positionals.length)
    throw new UserError(`--label has ${labels.length} names for ${positionals.length} runs`);
  const expect = values.expect
    .flatMap((e) => e.split(","))
    .map((e) => e.trim())
    .filter(Boolean);

  const dirs = positionals.map((p) => resolveRunDir(p, workspaceDir, config));
  const inputs = loadAblationInputs(dirs);
  const report = ablate(inputs, { resamples: values.resamples, seed: values.seed, expect });
  // The environment's labels and limitation; the workspace's data folder tells the synthetic world apart.
  const environment = reportEnvironment(report.environment, {
    dataDir: environmentDataDir(report.environment.name, resolve(workspaceDir, config.dataDir)),
    split: report.runs[0].split,
  });
  console.log(renderAblationTable(report, environment));
  if (values.json) {
    ensureParent(values.json);
    writeJsonAtomic(values.json, report);
    console.log(`\nwrote ${values.json}`);
  }
  if (values.report) {
    ensureParent(values.report);
    // The failure labels' table (absent when the environment declares none): labels read the episodes' whole
    // records (their text), which ablate's reader leaves out.
    const whole = inputs.map((r) => ({ ...r, episodes: readEpisodes(r.dir, environmentMetrics, ABLATE_FIELDS) }));
    const failures = await compareRunFailures(whole, {
      dataDir: workspaceDataDir(workspaceDir, config),
      resamples: values.resamples,
      seed: values.seed,
    });
    const failureTable = failures ? `\n${renderFailureComparisonMarkdown(failures, labels)}` : "";
    writeFileAtomic(values.report, renderMarkdownReport(report, { labels, environment }) + failureTable);
    console.log(`${values.json ? "" : "\n"}wrote ${values.report}`);
  }
}

function ensureParent(file: string): void {
  mkdirSync(dirname(file), { recursive: true });
}
