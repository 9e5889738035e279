/**
 * `agent-lab pipeline`: the whole recipe in one command, through the same core functions the
 * single-step commands call (prepare, index, eval, sft-data, train-sft, train-grpo, ablate).
 *
 * Local backend (default): the environment's invented world (its folder's offline.ts; with no --env,
 * the default environment's), the local Tinker-compatible stand-in with its tiny model, a scripted
 * teacher for the SFT data — no account, no network, minutes on a laptop. Tinker: the default
 * environment's real data (its declared recipe data), Qwen3.5-4B, the recipe's sizes, cost confirmed
 * first.
 *
 * Every stage writes into the pipeline folder and is skipped when its outputs are complete, or
 * resumed when they are partial (each step's own resume), so rerunning the command continues.
 */
import type { LocalBackendHandle, StartLocalBackend } from "../../base/tinker/local-backend";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative } from "node:path";
import { ablate, loadAblationInputs, renderAblationTable, renderMarkdownReport, type AblationReport } from "../ablate";
import { ORIGIN_EXPECT } from "../ablate/compare-origin";
import { loadTokenizerSource } from "../../base/chat";
import { registryPath, resolveCheckpointPath } from "../../base/checkpoints/registry";
import { reportEnvironment } from "../ablate/report-environment";
import { DEFAULT_ENVIRONMENT_INFO, environmentInfo, environmentRoles } from "../../envs/catalog";
import type { EnvItem, Environment } from "../../harness/environment";
import type { RealDataSource } from "../../harness/offline-world";
import { buildIndex } from "../../base/search";
import { CONFIG_FILE, validateOverrides, type AgentLabConfig } from "../../base/config";
import { loadConfig, mergeConfig } from "../../envs/config";
import { readSplitsRecord } from "../../base/data/splits";
import { UserError } from "../../base/errors";
import { evalSplit } from "../eval/eval-split";
import { readJsonFile } from "../../base/runs/run-files";
import { metricRoles, metricValue } from "../../base/runs/metrics";
import { manifestEnvironment } from "../../envs/manifest-environment";
import { writeFileAtomic, writeJsonAtomic } from "../../base/util/atomic-write";
import { lockRunFolder, runFile } from "../../base/runs/run-folder";
import { ProgressWriter, type ProgressStatus } from "../../base/runs/progress";
import { collectSftData } from "../sft";
import { trainGrpo, trainSft } from "../train";
import {
  ABLATION_FILE,
  planPipeline,
  renderPlan,
  REPORT_FILE,
  RUN_NAMES,
  settingsDeclaration,
  settingsRecipeData,
  settingsWorld,
  STATE_FILE,
  PIPELINE_RUNS_DIR,
  type PipelinePlan,
  type StageName,
} from "./plan";
import { pricedFor, rehearsalNote, rehearsalTarget, type RehearsalTarget } from "./rehearsal-target";
import { readStepRewards, rewardTrend, renderTrend, type RewardTrend } from "./reward-trend";
import { kindBreakdown, renderKindBreakdown, type KindRow } from "./by-kind";
import { checkSettings, defaultSettings, PIPELINE_EVAL, type PipelineBackend, type PipelineSettings } from "./settings";
import { otherPipelineRun } from "./folder-conflict";
import { Recipe, type Stage, type StageRecord } from "../recipe/engine";
import { openLocalBackend } from "../recipe/stages";

import { OFFLINE_CLOSED_BOOK_PROMPT, OFFLINE_PROMPT, PIPELINE_MARKER } from "./pipeline-folder";

export { OFFLINE_CLOSED_BOOK_PROMPT, OFFLINE_PROMPT, PIPELINE_MARKER };

/** Said at the start and in the report of every local run (`dataset`: the real environment's, e.g. its info's). */
export function localStandInNote(dataset: string): string {
  return (
    "The local backend is a stand-in for Tinker: a tiny CPU model on an invented world. Its numbers show that the " +
    `pipeline and its statistics work end to end, not how Qwen3.5-4B does on ${dataset}; real results come from ` +
    "`agent-lab pipeline --backend tinker`."
  );
}

/** The note of the pipeline's own world (the default environment's). */
export const LOCAL_STAND_IN_NOTE = localStandInNote(DEFAULT_ENVIRONMENT_INFO.dataset);

/** The real environment a run's settings are about (no `env`: the default environment). */
function realInfo(s: PipelineSettings) {
  return (s.env !== undefined ? environmentInfo(s.env) : undefined) ?? DEFAULT_ENVIRONMENT_INFO;
}

export interface PipelineOptions {
  dir: string;
  backend: PipelineBackend;
  /** Sizes; default the backend's (settings.ts). Tests pass a miniature. */
  settings?: PipelineSettings;
  /** Print the plan (stages, sizes, cost) and stop. */
  dryRun?: boolean;
  /** Skip the spending confirmation (tinker). */
  yes?: boolean;
  /** Asks the user; absent = cannot ask (a paid run then needs `yes`). */
  confirm?: (question: string) => Promise<boolean>;
  /** Local backend port: reuse a running `agent-lab serve-local`, else 0 = start one in-process. */
  localPort?: number;
  /** Starts or reuses the local backend (`--backend local`); the CLI passes the server's. */
  startLocalBackend?: StartLocalBackend;
  /** Bootstrap resamples of the ablation (default ablate's). */
  resamples?: number;
  signal?: AbortSignal;
  log: (line: string) => void;
}

export interface PipelineResult {
  plan: PipelinePlan;
  /** Absent after a dry run. */
  report?: AblationReport;
  grpoVsSft?: AblationReport;
  trend?: RewardTrend;
  /** Invented world only: SFT → GRPO per question kind, from the eval episodes. */
  byKind?: KindRow[];
  /** The printed ablation table. */
  table?: string;
  seconds: number;
  stageSeconds: Partial<Record<StageName, number>>;
}

interface PipelineState {
  format: 1;
  settings: PipelineSettings;
  /** Per stage: seconds and when it finished (the engine's record adds what it wrote). */
  stages: Partial<Record<StageName, StageRecord>>;
  /** 1/5/15-minute load averages when the last run started (cores: os.cpus()). */
  load?: number[];
}

export async function runPipeline(o: PipelineOptions): Promise<PipelineResult> {
  const started = Date.now();
  const settings = o.settings ?? defaultSettings(o.backend);
  if (settings.backend !== o.backend) throw new Error(`settings are for ${settings.backend}, the run for ${o.backend}`);
  checkSettings(settings);
  const log = o.log;

  const existing = readJsonFile<PipelineState>(join(o.dir, STATE_FILE));
  // A rehearsal asks its server what it is first, through the client every stage uses: an
  // unreachable TINKER_BASE_URL fails before anything is written, and the local stand-in is free.
  const target = settings.rehearsal && !o.dryRun ? await rehearsalTarget(o.signal) : undefined;
  if (!o.dryRun) checkFolder(o.dir, settings, existing);
  // Nothing is written before the plan is printed and the spending confirmed: the config comes from memory until then.
  const configNow = () =>
    pricedFor(existsSync(join(o.dir, CONFIG_FILE)) ? loadConfig(o.dir) : loadConfigInMemory(settings), target);
  const plan = planPipeline({ dir: o.dir, config: configNow(), settings });

  if (o.backend === "local") log(localStandInNote(realInfo(settings).dataset));
  // The name every manifest will record for the stand-in, said up front.
  const note = settings.rehearsal
    ? rehearsalNote(
        settings.rehearsal.tokenizer,
        (await loadTokenizerSource(settings.rehearsal.tokenizer)).name,
        target,
      )
    : undefined;
  if (note) log(note);
  log(`pipeline in ${o.dir} (${o.backend} backend${settings.rehearsal ? ", rehearsal sizes" : ""}):`);
  log(renderPlan(plan));
  if (o.dryRun) return { plan, seconds: (Date.now() - started) / 1000, stageSeconds: {} };

  if (o.backend === "tinker") await confirmSpending(plan, o, target);
  claimFolder(o.dir, settings);
  const config = configNow();
  // One pipeline at a time in a folder (each stage's run is locked by its step as well).
  const lock = lockRunFolder(o.dir, `agent-lab pipeline --dir ${o.dir}`);
  const progress = new ProgressWriter(o.dir, {
    step: "pipeline",
    label: "pipeline",
    unit: "stage",
    planned: plan.stages.length,
    done: plan.stages.filter((st) => st.status === "done").length,
  });
  let status: ProgressStatus = "failed";
  try {
    const result = await runStages(o, { started, settings, existing, config, plan, progress, note });
    status = "done";
    return result;
  } catch (e) {
    if (o.signal?.aborted) status = "interrupted";
    throw e;
  } finally {
    progress.finish(status);
    lock.release();
  }
}

interface Prepared {
  started: number;
  settings: PipelineSettings;
  existing: PipelineState | undefined;
  config: AgentLabConfig;
  plan: PipelinePlan;
  progress: ProgressWriter;
  /** A rehearsal's note: its server and stand-in tokenizer (absent otherwise). */
  note: string | undefined;
}

/** What the progress line calls each stage. */
const STAGE_LABELS: Record<StageName, string> = {
  world: "world",
  prepare: "prepare",
  index: "index",
  "eval-closed-book": "eval closed-book",
  "eval-base": "eval base",
  "sft-data": "SFT data",
  "train-sft": "SFT",
  "eval-sft": "eval SFT",
  "train-grpo": "GRPO",
  "eval-grpo": "eval GRPO",
  ablate: "ablate",
};

async function runStages(
  o: PipelineOptions,
  { started, settings, existing, config, plan, progress, note }: Prepared,
): Promise<PipelineResult> {
  const log = o.log;

  const state: PipelineState = existing ?? { format: 1, settings, stages: {} };
  // Timings mean little without the machine's load: other work on a shared machine slows every stage.
  if (plan.stages.some((st) => st.status !== "done" && st.name !== "ablate")) state.load = loadavg();
  const stepLog = (line: string) => line.split("\n").forEach((l) => log(`    ${l}`));
  const recipe = new Recipe({
    names: plan.stages.map((st) => st.name),
    log,
    stepLog,
    signal: o.signal,
    progress,
    records: state.stages as Record<string, StageRecord>,
    save: () => writeJsonAtomic(join(o.dir, STATE_FILE), state),
    doneAtStart: plan.stages.filter((st) => st.status === "done").length,
  });

  const runsDir = join(o.dir, config.runsDir);
  const dataDir = join(o.dir, config.dataDir);
  const s = settings;
  // Every stage runs from the declaration (the world offline, its real data on tinker); the environment every run records is the world's own.
  const declared = settingsDeclaration(s);
  const world = settingsWorld(s);
  const tools = declared.tools;
  const env = pipelineEnvironment(s, runsDir);
  const envData = declared.env.data.dir(dataDir);
  const primary = environmentRoles(declared.env.name).primary;
  // A rehearsal's stand-in: every step loads it, checks the SFT data against it and records it.
  const tokenizer = s.rehearsal?.tokenizer;
  const command = (what: string) => ["agent-lab", "pipeline", `(${what})`];
  const backend = s.backend === "local" ? "local" : "tinker";
  const runDir = (name: string) => join(runsDir, name);
  const resume = (name: string) => existsSync(runFile(runDir(name), "manifest"));
  let local: LocalBackendHandle | undefined;

  /** What each stage reads, for the record (what it writes is the plan's). */
  const data = (f: string) => `${config.dataDir}/${envData === dataDir ? "" : `${relative(dataDir, envData)}/`}${f}`;
  const run = (name: string) => `${config.runsDir}/${name}/`;
  const evals = [RUN_NAMES.base, RUN_NAMES.closedBook, RUN_NAMES.sftEval, RUN_NAMES.grpoEval].map(run);
  // What an episode searches besides its split (nothing for an environment without tools).
  const searched = tools ? [data(`${tools.index.dir}/`)] : [];
  const reads: Record<StageName, string[]> = {
    world: [],
    prepare: world ? [...world.files] : settingsRecipeData(s).reads(s.data as RealDataSource),
    index: tools ? [data(tools.index.corpus)] : [],
    "eval-closed-book": [data("val.jsonl")],
    "eval-base": [data("val.jsonl"), ...searched],
    "sft-data": [data("train.jsonl"), ...searched],
    "train-sft": [`${run(RUN_NAMES.sftData)}sft.jsonl`],
    "eval-sft": [data("val.jsonl"), ...searched, `checkpoint ${RUN_NAMES.sft}-e${s.sft.epochs}`],
    "train-grpo": [data("train.jsonl"), ...searched, `checkpoint ${RUN_NAMES.sft}-e${s.sft.epochs}`],
    "eval-grpo": [data("val.jsonl"), ...searched, `checkpoint ${RUN_NAMES.grpo}-s${s.grpo.steps}`],
    ablate: [...evals, `${run(RUN_NAMES.grpo)}metrics.jsonl`],
  };
  /** The plan's stage as the engine runs it: its line, inputs, outputs and status from the plan. */
  const stage = (name: StageName, work: Stage["run"]): Stage => {
    // A stage the plan leaves out (a world without tools has no index) is built but never run.
    const p = plan.stages.find((st) => st.name === name) ?? { what: "", outputs: [], usd: 0, status: "todo" };
    return {
      name,
      label: STAGE_LABELS[name],
      what: p.what,
      reads: reads[name],
      writes: p.outputs,
      estimateUsd: p.usd,
      isDone: () => p.status === "done",
      isPartial: () => p.status === "partial",
      run: work,
    };
  };

  const worldStage = stage("world", async (ctx) => {
    if (world && s.data.source === "synthetic") return ctx.log(await world.write(o.dir, s.data, ctx.signal));
    for (const line of await settingsRecipeData(s).fetch(s.data as RealDataSource, ctx.log)) ctx.log(line);
  });
  const prepare = stage("prepare", async (ctx) => {
    const lines =
      world && s.data.source === "synthetic"
        ? await world.prepare(o.dir, dataDir, s.data, ctx.log)
        : await settingsRecipeData(s).prepare(envData, s.data as RealDataSource, s.splits, ctx.log);
    for (const line of lines) ctx.log(line);
  });
  const index = stage("index", async (ctx) => {
    if (!tools) return;
    // The offline corpus is small: one thread leaves the other cores to the rest of the machine.
    const r = await buildIndex(
      join(envData, tools.index.corpus),
      join(envData, tools.index.dir),
      s.backend === "local" || s.rehearsal ? { workers: 0 } : {},
    );
    ctx.log(`${r.documents} paragraphs, ${r.terms} terms`);
  });

  const evalStage = (name: StageName, run: string, closedBook: boolean, checkpoint?: () => string) =>
    stage(name, (ctx) =>
      evalSplit({
        workspaceDir: o.dir,
        env,
        config,
        name: run,
        split: PIPELINE_EVAL.split,
        closedBook,
        limit: s.evalLimit,
        resume: resume(run),
        temperature: PIPELINE_EVAL.temperature,
        promptFile: closedBook && s.offlinePrompts ? OFFLINE_CLOSED_BOOK_PROMPT : undefined,
        backend,
        checkpoint: checkpoint?.(),
        tokenizer,
        localBackendUrl: local?.url,
        command: command(`eval ${run}`),
        signal: ctx.signal,
        log: ctx.log,
        onProgress: ctx.onProgress,
      }).then((r) => {
        if (ctx.signal?.aborted) throw interrupted();
        const roles = metricRoles(r.env.metrics);
        if (!tools)
          return ctx.log(
            `${roles.primary.label} ${metricValue(r.summary, roles.primary).toFixed(3)}  ends ${JSON.stringify(r.summary.ends)}`,
          );
        ctx.log(
          `${roles.primary.label} ${metricValue(r.summary, roles.primary).toFixed(3)}  ${roles.binary.label} ${metricValue(r.summary, roles.binary).toFixed(3)}  searches/q ${r.summary.searches_per_q.toFixed(2)}  ends ${JSON.stringify(r.summary.ends)}`,
        );
      }),
    );
  const sftCheckpoint = `${RUN_NAMES.sft}-e${s.sft.epochs}`;
  const training: Stage[] = [
    ...(tools ? [evalStage("eval-closed-book", RUN_NAMES.closedBook, true)] : []),
    evalStage("eval-base", RUN_NAMES.base, false),
    stage("sft-data", async (ctx) => {
      const r = await collectSftData({
        workspaceDir: o.dir,
        env,
        config,
        name: RUN_NAMES.sftData,
        questions: s.sftData.questions,
        offset: 0,
        tries: s.sftData.tries,
        temperature: s.sftData.temperature,
        minF1: s.sftData.minF1,
        requireSearch: s.sftData.requireSearch,
        role: s.sftData.role,
        tokenizer,
        backend,
        policy: s.sftData.role === "teacher" ? await declared.teacher() : undefined,
        localBackendUrl: local?.url,
        resume: resume(RUN_NAMES.sftData),
        command: command("sft-data"),
        signal: ctx.signal,
        log: ctx.log,
        onProgress: ctx.onProgress,
      });
      if (r.budgetStop) throw new UserError(`sft-data stopped at the budget cap: ${r.budgetStop.message}`);
      if (ctx.signal?.aborted) throw interrupted();
      ctx.log(r.finalLine);
    }),
    stage("train-sft", async (ctx) => {
      const r = await trainSft({
        workspaceDir: o.dir,
        config,
        name: RUN_NAMES.sft,
        data: runFile(runDir(RUN_NAMES.sftData), "sft"),
        epochs: s.sft.epochs,
        batch: s.sft.batch,
        lr: s.sft.lr,
        seed: 0,
        tokenizer,
        resume: resume(RUN_NAMES.sft),
        backend,
        baseUrl: local?.url,
        command: command("train-sft"),
        signal: ctx.signal,
        log: ctx.log,
        onProgress: ctx.onProgress,
      });
      if (r.status !== "done") throw interrupted();
    }),
    evalStage("eval-sft", RUN_NAMES.sftEval, false, () => resolveCheckpointPath(runsDir, sftCheckpoint, "sampler")),
    stage("train-grpo", async (ctx) => {
      const r = await trainGrpo({
        workspaceDir: o.dir,
        env,
        config,
        name: RUN_NAMES.grpo,
        initState: sftCheckpoint,
        steps: s.grpo.steps,
        questions: s.grpo.questions,
        group: s.grpo.group,
        lr: s.grpo.lr,
        temperature: s.grpo.temperature,
        seed: s.grpo.seed,
        normalizeAdvantages: s.grpo.normalizeAdvantages,
        offset: s.sftData.questions,
        saveEvery: s.grpo.saveEvery,
        tokenizerSource: tokenizer,
        resume: resume(RUN_NAMES.grpo),
        backend,
        baseUrl: local?.url,
        command: command("train-grpo"),
        signal: ctx.signal,
        log: ctx.log,
        onProgress: ctx.onProgress,
      });
      if (r.status === "interrupted") throw interrupted();
      if (r.status !== "done")
        throw new UserError(`train-grpo stopped (${r.status})${r.message ? `: ${r.message}` : ""}`);
    }),
    evalStage("eval-grpo", RUN_NAMES.grpoEval, false, () =>
      resolveCheckpointPath(runsDir, `${RUN_NAMES.grpo}-s${s.grpo.steps}`, "sampler"),
    ),
  ];

  // The comparison is cheap and always redone, so every run prints the table.
  const labels = tools ? ["base", "closed-book", "SFT", "GRPO"] : ["base", "SFT", "GRPO"];
  const dirs = (
    tools
      ? [RUN_NAMES.base, RUN_NAMES.closedBook, RUN_NAMES.sftEval, RUN_NAMES.grpoEval]
      : [RUN_NAMES.base, RUN_NAMES.sftEval, RUN_NAMES.grpoEval]
  ).map((n) => join(runsDir, n));
  const [sftDir, grpoDir] = dirs.slice(-2);
  // Each comparison differs from base in the thing under test: the checkpoint, or search itself.
  // Without tools the runs differ from base in the checkpoint only (no closed-book run, no search).
  const expect = [...(tools ? ORIGIN_EXPECT.pipeline : ORIGIN_EXPECT.checkpoint)];
  let report!: AblationReport;
  let grpoVsSft!: AblationReport;
  let trend!: RewardTrend;
  const ablateStage = stage("ablate", async () => {
    report = ablate(loadAblationInputs(dirs), { resamples: o.resamples, expect });
    grpoVsSft = ablate(loadAblationInputs([sftDir, grpoDir]), { resamples: o.resamples, expect });
    trend = rewardTrend(readStepRewards(runFile(join(runsDir, RUN_NAMES.grpo), "metrics")));
    writeJsonAtomic(join(o.dir, ABLATION_FILE), report);
  });
  const all = [worldStage, index, prepare, ...training, ablateStage].filter((st) =>
    plan.stages.some((p) => p.name === st.name),
  );
  all.sort((a, b) => plan.stages.findIndex((p) => p.name === a.name) - plan.stages.findIndex((p) => p.name === b.name));

  await recipe.run(worldStage, all);
  await recipe.run(prepare, all);
  // Every eval runs on val: an empty one (a small dev set at the recipe's split sizes) is said now, not as an empty table.
  const counts = readSplitsRecord(envData).counts;
  if (counts.val === 0) {
    throw new UserError(
      `${join(envData, "val.jsonl")} is empty: the dev records fill only the test split (${counts.test} questions); ` +
        `give the whole dev set, or rehearse with --rehearse, whose split sizes fit a few hundred dev questions`,
    );
  }
  if (tools) await recipe.run(index, all);
  local =
    s.backend === "local" ? await openLocalBackend(o.startLocalBackend, "pipeline", o.dir, o.localPort) : undefined;
  if (local) log(`${local.started ? "started" : "using"} the local backend at ${local.url}`);
  try {
    for (const st of training) await recipe.run(st, all);
  } finally {
    await local?.close();
  }
  // The question kinds are the invented world's templates; real questions have none.
  const byKind = world
    ? kindBreakdown(sftDir, grpoDir, {
        kindOf: (q) => world.kindOf(q) ?? "other",
        metric: primary.name,
        label: primary.label,
      })
    : undefined;
  await recipe.run(ablateStage, all);
  writeFileAtomic(
    join(o.dir, REPORT_FILE),
    renderReport({ o, settings, report, grpoVsSft, trend, byKind, labels, state, note }),
  );
  const table = renderAblationTable(report);
  log("");
  log(table);
  log("");
  log(grpoLine(grpoVsSft, primary.label));
  if (byKind) log(renderKindBreakdown(byKind, primary.label));
  log(renderTrend(trend));
  if (o.backend === "local") log(`\n${localStandInNote(realInfo(s).dataset)}`);
  if (note) log(`\n${note}`);
  log(`\nreport: ${join(o.dir, REPORT_FILE)}  (full comparison: ${join(o.dir, ABLATION_FILE)})`);
  const seconds = (Date.now() - started) / 1000;
  log(`pipeline finished in ${seconds.toFixed(1)}s`);
  return {
    plan,
    report,
    grpoVsSft,
    trend,
    byKind,
    table,
    seconds,
    stageSeconds: recipe.secondsHere as Partial<Record<StageName, number>>,
  };
}

/**
 * The environment every run of the pipeline records: the world's own, except in a folder whose runs
 * an earlier build made there under the real environment's name (before the world had its own),
 * which keeps that name so its remaining stages' runs compare with its finished ones; undefined (the
 * config's) for the real data.
 */
export function pipelineEnvironment(s: PipelineSettings, runsDir: string): Environment<EnvItem> | undefined {
  const world = settingsWorld(s);
  if (!world) return undefined;
  const earlier = Object.values(RUN_NAMES)
    .map((n) => readJsonFile<unknown>(runFile(join(runsDir, n), "manifest")))
    .find((m) => m !== undefined);
  const real = environmentInfo(world.env.name)?.worldOf;
  if (earlier !== undefined && real !== undefined && manifestEnvironment(earlier).name === real) return undefined;
  return world.env;
}

function interrupted(): UserError {
  return new UserError("pipeline interrupted; rerun the same command to continue where it stopped");
}

function grpoLine(r: AblationReport, label = "F1"): string {
  const c = r.comparisons[0];
  if (!c) return "";
  const f = c.primary;
  return `GRPO vs SFT on val: Δ ${label} ${signed(f.delta)} [95% CI ${signed(f.ci.lo)}, ${signed(f.ci.hi)}], p ${f.p.toPrecision(2)}: ${f.verdict}`;
}

const signed = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(3);

/** A fresh folder, or one an earlier pipeline run with the same settings made; anything else is refused (nothing written). */
function checkFolder(dir: string, settings: PipelineSettings, existing: PipelineState | undefined): void {
  // Hidden entries (.vscode, .git, .cache) do not make a folder "used": an editor's empty workspace has them.
  if (existsSync(dir) && readdirSync(dir).some((name) => !name.startsWith("."))) {
    if (!existsSync(join(dir, PIPELINE_MARKER))) {
      throw new UserError(`${dir} exists and was not made by "agent-lab pipeline"; choose another --dir`);
    }
    const other = existing ? otherPipelineRun(dir, settings) : undefined;
    if (other) {
      throw new UserError(
        `${dir} holds a pipeline run with other settings (${other.backend} backend); ` +
          `rerun it with the same options to continue, or choose another --dir`,
      );
    }
  }
}

/** Marks the folder as this pipeline's and writes its settings, config and prompts (those not there yet). */
function claimFolder(dir: string, settings: PipelineSettings): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, PIPELINE_MARKER),
    "Made by `agent-lab pipeline`; rerunning the same command here continues the run.\n",
  );
  if (!existsSync(join(dir, STATE_FILE)))
    writeJsonAtomic(join(dir, STATE_FILE), { format: 1, settings, stages: {} } satisfies PipelineState);
  if (!existsSync(join(dir, CONFIG_FILE)))
    writeFileAtomic(join(dir, CONFIG_FILE), JSON.stringify(workspaceConfig(settings), null, 2) + "\n");
  const prompts = settingsDeclaration(settings).tools?.prompts;
  if (settings.offlinePrompts && prompts) {
    mkdirSync(join(dir, "prompts"), { recursive: true });
    if (!existsSync(join(dir, OFFLINE_PROMPT))) writeFileAtomic(join(dir, OFFLINE_PROMPT), prompts.system);
    if (!existsSync(join(dir, OFFLINE_CLOSED_BOOK_PROMPT)))
      writeFileAtomic(join(dir, OFFLINE_CLOSED_BOOK_PROMPT), prompts.closedBook);
  }
}

/**
 * The pipeline folder's agent-lab.json: its harness settings, its prompt, and its runs' environment (an
 * offline world's), so a step run by hand in the folder (`agent-lab eval --workspace DIR`) records the
 * same environment and reads the same data as the pipeline's own runs.
 */
function workspaceConfig(s: PipelineSettings): Record<string, unknown> {
  const world = settingsWorld(s);
  return {
    dataDir: "data",
    runsDir: PIPELINE_RUNS_DIR,
    ...(world ? { env: world.env.name } : {}),
    ...s.harness,
    ...(s.offlinePrompts ? { systemPromptFile: OFFLINE_PROMPT } : {}),
  };
}

function loadConfigInMemory(s: PipelineSettings): AgentLabConfig {
  return mergeConfig(validateOverrides(workspaceConfig(s), "pipeline settings"));
}

async function confirmSpending(
  plan: PipelinePlan,
  o: PipelineOptions,
  target: RehearsalTarget | undefined,
): Promise<void> {
  if (o.yes) return;
  if (target) {
    // Asked even at $0: the user confirms where every stage's requests go.
    const what = `this rehearsal sends every stage to ${target.baseUrl} and spends up to ≈ $${plan.remainingUsd.toFixed(2)}`;
    if (!o.confirm) throw new UserError(`${what}; pass --yes to confirm without a prompt`);
    if (!(await o.confirm(`${what[0].toUpperCase()}${what.slice(1)}. Continue? [y/N] `)))
      throw new UserError("stopped before any stage ran");
    return;
  }
  if (plan.remainingUsd <= 0) return;
  const question = `This spends up to ≈ $${plan.remainingUsd.toFixed(2)} on Tinker. Continue? [y/N] `;
  if (!o.confirm)
    throw new UserError(
      `this run would spend up to ≈ $${plan.remainingUsd.toFixed(2)} on Tinker; pass --yes to confirm without a prompt`,
    );
  if (!(await o.confirm(question))) throw new UserError("stopped before spending anything");
}

interface ReportParts {
  o: PipelineOptions;
  settings: PipelineSettings;
  report: AblationReport;
  grpoVsSft: AblationReport;
  trend: RewardTrend;
  byKind: KindRow[] | undefined;
  labels: string[];
  state: PipelineState;
  note: string | undefined;
}

function renderReport({ o, settings, report, grpoVsSft, trend, byKind, labels, state, note }: ReportParts): string {
  const out: string[] = [];
  out.push(`# Agent Lab pipeline report (${settings.backend} backend${settings.rehearsal ? ", rehearsal" : ""})`, "");
  if (settings.backend === "local") out.push(`> ${localStandInNote(realInfo(settings).dataset)}`, "");
  if (note) out.push(`> ${note}`, "");
  // A world's heading and caveat are its own info's (an invented world says so), the real data's its environment's.
  const world = settingsWorld(settings);
  const environment = reportEnvironment(world ? world.env : realInfo(settings));
  const table = renderMarkdownReport(report, { labels, environment }).trim();
  out.push(table, "");
  const label = environmentRoles(settingsDeclaration(settings).env.name).primary.label;
  out.push("## GRPO", "", `- ${grpoLine(grpoVsSft, label)}`);
  if (byKind) out.push(`- ${renderKindBreakdown(byKind, label).replace("\n  ", "\n- ")}`);
  out.push(`- ${renderTrend(trend).replace("\n  ", "\n- ")}`, "");
  out.push("## Stage timings (seconds, last run of each stage)", "");
  if (state.load)
    out.push(
      `Load average at the start: ${state.load.map((l) => l.toFixed(2)).join(" / ")} (1/5/15 min) on ${cpus().length} cores.`,
      "",
    );
  for (const [name, t] of Object.entries(state.stages)) out.push(`- ${name}: ${t.seconds.toFixed(1)}`);
  out.push("", "## Settings", "", "```json", JSON.stringify(settings, null, 2), "```", "");
  out.push(
    `Folder: ${relative(process.cwd(), o.dir) || "."}; checkpoints: ${relative(o.dir, registryPath(join(o.dir, "runs")))}`,
    "",
  );
  return out.join("\n");
}
