/**
 * How the offline pipeline's settings are chosen: the whole offline pipeline for each candidate on a
 * dev world (the same generator with another seed; the reported world is never looked at), scored on
 * that world's val, and one table of SFT and GRPO F1, GRPO − SFT with its paired 95% CI, then each
 * candidate's per-kind line (what GRPO gained on).
 *
 *   npx tsx bench/grpo-dev/run.ts [--only a,b] [--limit N] [--dir D]
 *
 * Each candidate runs in its own folder under D (default bench/.work/grpo-dev, git-ignored) and is
 * resumed, not redone, when its folder is complete, so a rerun only prints the table. `--limit`:
 * questions per eval (default 200, the whole val). `--checkpoints 20,40`: GRPO's saved checkpoints at
 * these steps are scored too (greedy, same questions), one row each, so the step count can be chosen.
 */
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ablate, loadAblationInputs } from "../../src/core/steps/ablate";
import { resolveCheckpointPath } from "../../src/core/base/checkpoints/registry";
import { loadConfig } from "../../src/core/envs/config";
import { evalSplit } from "../../src/core/steps/eval/eval-split";
import { localBackendDir } from "../../src/core/steps/eval/backends";
import { questionKind } from "../../src/core/envs/hotpotqa/synthetic-world";
import { kindBreakdown, renderKindBreakdown } from "../../src/core/steps/pipeline/by-kind";
import { RUN_NAMES } from "../../src/core/steps/pipeline/plan";
import { runPipeline } from "../../src/core/steps/pipeline/run-pipeline";
import { runFile } from "../../src/core/base/runs/run-folder";
import { connectOrStartLocalBackend } from "../../src/server";
import { defaultSettings, type PipelineSettings } from "../../src/core/steps/pipeline/settings";
import { startLocalBackend } from "../../test/helpers/local-backend";

/** The multi-hop world's question kinds and its primary metric (its offline.ts's kindOf; token F1). */
const MULTI_HOP = { kindOf: questionKind, metric: "f1", label: "F1" };

type Patch = (s: PipelineSettings) => void;

/** The dev world's seed: same generator and sizes as LOCAL_SETTINGS' world, other people, companies and towns. */
const DEV_SEED = 1;

/** The candidates compared; "shipped" is LOCAL_SETTINGS as they are. */
const CANDIDATES: Record<string, Patch> = {
  shipped: () => {},
};

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    checkpoints: { type: "string", default: "20,40" },
    limit: { type: "string", default: "200" },
    dir: { type: "string", default: "bench/.work/grpo-dev" },
  },
});
const names = values.only ? values.only.split(",") : Object.keys(CANDIDATES);
for (const n of names)
  if (!CANDIDATES[n]) throw new Error(`--only: no candidate "${n}" (have ${Object.keys(CANDIDATES).join(", ")})`);
const limit = Number(values.limit);
const checkpointSteps = values.checkpoints ? values.checkpoints.split(",").map(Number) : [];
const work = resolve(values.dir);

async function main(): Promise<void> {
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const name of names) {
    const settings = defaultSettings("local");
    CANDIDATES[name](settings);
    // Another world from the same generator: its val is the dev split (the reported world is never looked at).
    if (settings.data.source === "synthetic") settings.data.seed = DEV_SEED;
    settings.evalLimit = limit;
    const load = loadavg()[0];
    mkdirSync(work, { recursive: true });
    // The pipeline's own lines go to <name>.log next to its folder (tail it to follow a candidate).
    const logFile = join(work, `${name}.log`);
    const r = await runPipeline({
      startLocalBackend,
      dir: join(work, name),
      backend: "local",
      settings,
      log: (l) => appendFileSync(logFile, `${l}\n`),
    });
    const f1 = (label: string) => r.report!.runs.find((x) => x.name === label)?.primary.mean ?? NaN;
    const d = r.grpoVsSft!.comparisons[0].primary;
    const s = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(3);
    rows.push([
      name,
      f1("sft-final").toFixed(3),
      f1("grpo-final").toFixed(3),
      `${s(d.delta)} [${s(d.ci.lo)}, ${s(d.ci.hi)}]`,
      d.p.toPrecision(2),
      r.seconds.toFixed(0),
      load.toFixed(1),
    ]);
    if (r.byKind) notes.push(`${name}: ${renderKindBreakdown(r.byKind, MULTI_HOP.label)}`);
    for (const step of checkpointSteps.filter((k) => k < settings.grpo.steps && k % settings.grpo.saveEvery === 0)) {
      const row = await scoreCheckpoint(join(work, name), step, limit);
      rows.push([
        `${name} @ step ${step}`,
        f1("sft-final").toFixed(3),
        row.f1.toFixed(3),
        `${s(row.d.delta)} [${s(row.d.ci.lo)}, ${s(row.d.ci.hi)}]`,
        row.d.p.toPrecision(2),
        row.seconds.toFixed(0),
        load.toFixed(1),
      ]);
      notes.push(`${name} @ step ${step}: ${renderKindBreakdown(row.byKind, MULTI_HOP.label)}`);
    }
    console.error(`${name} done in ${r.seconds.toFixed(0)}s`);
  }

  const header = ["candidate", "SFT F1", "GRPO F1", "GRPO − SFT [95% CI]", "p", "seconds", "load (1 min)"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log(`dev world (seed ${DEV_SEED}), its val split, ${limit} questions per eval, ${cpus().length} cores`);
  console.log(line(header));
  for (const r of rows) console.log(line(r));
  for (const n of notes) console.log(`\n${n}`);
}

/** Scores GRPO's checkpoint at `step` on the candidate's val (greedy, like every pipeline eval) against its SFT eval. */
async function scoreCheckpoint(dir: string, step: number, n: number) {
  const t0 = Date.now();
  const config = loadConfig(dir);
  const runsDir = join(dir, config.runsDir);
  const evalName = `${RUN_NAMES.grpoEval}-s${step}`;
  const local = await connectOrStartLocalBackend({ port: 0, dir: localBackendDir(dir), seed: 0 });
  try {
    await evalSplit({
      workspaceDir: dir,
      config,
      name: evalName,
      split: "val",
      closedBook: false,
      limit: n,
      resume: existsSync(runFile(join(runsDir, evalName), "manifest")),
      temperature: 0,
      backend: "local",
      checkpoint: resolveCheckpointPath(runsDir, `${RUN_NAMES.grpo}-s${step}`, "sampler"),
      localBackendUrl: local.url,
      command: ["bench/grpo-dev/run.ts", `(eval ${evalName})`],
    });
  } finally {
    await local.close();
  }
  const sftDir = join(runsDir, RUN_NAMES.sftEval);
  const report = ablate(loadAblationInputs([sftDir, join(runsDir, evalName)]));
  const f1 = report.runs[1].primary.mean;
  return {
    f1,
    d: report.comparisons[0].primary,
    byKind: kindBreakdown(sftDir, join(runsDir, evalName), MULTI_HOP),
    seconds: (Date.now() - t0) / 1000,
  };
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
