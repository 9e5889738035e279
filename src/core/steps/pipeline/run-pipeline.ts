/**
 * `agent-lab pipeline`: the whole recipe in one command, through the same core functions the
 * single-step commands call (prepare, index, eval, sft-data, train-sft, train-grpo, ablate).
 *
 * Local backend (default): a synthetic multi-hop world, the local Tinker-compatible stand-in with
 * its tiny model, a scripted teacher for the SFT data — no account, no network, minutes on a
 * laptop. Tinker: HotpotQA from the hub, Qwen3.5-4B, the recipe's sizes, cost confirmed first.
 *
 * Every stage writes into the pipeline folder and is skipped when its outputs are complete, or
 * resumed when they are partial (each step's own resume), so rerunning the command continues.
 */
import { requireLocalBackend, type StartLocalBackend } from "../../base/tinker/local-backend";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative } from "node:path";
import { ablate, loadAblationInputs, renderAblationTable, renderMarkdownReport, type AblationReport } from "../ablate";
import { ORIGIN_EXPECT } from "../ablate/compare-origin";
import { loadTokenizerSource, offlineTokenizer } from "../../base/chat";
import { registryPath, resolveCheckpointPath } from "../../base/checkpoints/registry";
import { reportEnvironment, SYNTHETIC_REPORT, SYNTHETIC_WORLD_SOURCE } from "../ablate/report-environment";
import { HOTPOTQA_INFO } from "../../envs/catalog";
import { CONFIG_FILE, loadConfig, mergeConfig, validateOverrides, type AgentLabConfig } from "../../base/config";
import { generateSyntheticHotpot } from "../../envs/hotpotqa/synthetic-world";
import { localBackendDir } from "../eval/backends";
import { prepareData } from "../../envs/hotpotqa/prepare";
import { readSplitsRecord } from "../../base/data/splits";
import { UserError } from "../../base/errors";
import { evalSplit } from "../eval/eval-split";
import { readJsonFile } from "../../base/runs/run-files";
import { writeFileAtomic, writeJsonAtomic } from "../../base/util/atomic-write";
import { lockRunFolder, runFile } from "../../base/runs/run-folder";
import { ProgressWriter, type Progress, type ProgressStatus } from "../../base/runs/progress";
import { buildIndex } from "../../base/search";
import { collectSftData } from "../sft";
import { trainGrpo, trainSft } from "../train";
import { ABLATION_FILE, planPipeline, renderPlan, REPORT_FILE, RUN_NAMES, STATE_FILE, type PipelinePlan, type StageName } from "./plan";
import { pricedFor, rehearsalNote, rehearsalTarget, type RehearsalTarget } from "./rehearsal-target";
import { readStepRewards, rewardTrend, renderTrend, type RewardTrend } from "./reward-trend";
import { kindBreakdown, renderKindBreakdown, type KindRow } from "./by-kind";
import { checkSettings, defaultSettings, type PipelineBackend, type PipelineSettings } from "./settings";
import { TeacherPolicy } from "../../envs/hotpotqa/teacher";

/** Marks a folder as a pipeline's, so a rerun may continue in it. */
export const PIPELINE_MARKER = ".agent-lab-pipeline";
export const OFFLINE_PROMPT = "prompts/offline-system.md";
export const OFFLINE_CLOSED_BOOK_PROMPT = "prompts/offline-closed-book.md";

/** Said at the start and in the report of every local run. */
export const LOCAL_STAND_IN_NOTE =
  "The local backend is a stand-in for Tinker: a tiny CPU model on an invented world. Its numbers show that the " +
  "pipeline and its statistics work end to end, not how Qwen3.5-4B does on HotpotQA; real results come from " +
  "`agent-lab pipeline --backend tinker`.";

/** Short prompts for the offline world (written to files: every run's manifest records their hash). */
const OFFLINE_SYSTEM_TEXT =
  "Answer the question about an invented world by searching.\nReply with one action: <search>words</search> or <answer>answer</answer>.\n";
const OFFLINE_CLOSED_BOOK_TEXT = "Answer the question about an invented world from memory; you cannot search.\nReply with <answer>answer</answer>.\n";

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
  /** Synthetic world only: SFT → GRPO per question kind, from the eval episodes. */
  byKind?: KindRow[];
  /** The printed ablation table. */
  table?: string;
  seconds: number;
  stageSeconds: Partial<Record<StageName, number>>;
}

interface PipelineState {
  format: 1;
  settings: PipelineSettings;
  stages: Partial<Record<StageName, { seconds: number; finished: string }>>;
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
  const configNow = () => pricedFor(existsSync(join(o.dir, CONFIG_FILE)) ? loadConfig(o.dir) : loadConfigInMemory(settings), target);
  const plan = planPipeline({ dir: o.dir, config: configNow(), settings });

  if (o.backend === "local") log(LOCAL_STAND_IN_NOTE);
  // The name every manifest will record for the stand-in, said up front.
  const note = settings.rehearsal ? rehearsalNote(settings.rehearsal.tokenizer, (await loadTokenizerSource(settings.rehearsal.tokenizer)).name, target) : undefined;
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

async function runStages(o: PipelineOptions, { started, settings, existing, config, plan, progress, note }: Prepared): Promise<PipelineResult> {
  const log = o.log;

  const state: PipelineState = existing ?? { format: 1, settings, stages: {} };
  // Timings mean little without the machine's load: other work on a shared machine slows every stage.
  if (plan.stages.some((st) => st.status !== "done" && st.name !== "ablate")) state.load = loadavg();
  const stageSeconds: Partial<Record<StageName, number>> = {};
  const t0 = Date.now();
  const at = () => `[${((Date.now() - t0) / 1000).toFixed(1)}s]`;
  const done = new Set(plan.stages.filter((s) => s.status === "done").map((s) => s.name));
  const stageList = plan.stages.map((s) => s.name);
  // A stage's own progress (eval episodes, SFT or GRPO steps) nested in the pipeline's. Its first
  // state ("step 0/60") is written at once, so the views show what the stage plans as it starts,
  // even a stage shorter than the writer's interval.
  const onProgress = (p: Progress) => {
    const first = progress.current.current === undefined;
    progress.update({ current: { label: p.label, unit: p.unit, done: p.done, planned: p.planned, usd: p.usd, ...(p.eta_s !== undefined ? { eta_s: p.eta_s } : {}) }, usd: spentBefore + p.usd }, first);
  };
  let spentBefore = 0;
  const stage = async (name: StageName, work: () => Promise<void>) => {
    const n = stageList.indexOf(name) + 1;
    if (done.has(name)) {
      log(`${at()} ${n}/${stageList.length} ${name}: outputs complete, skipped`);
      return;
    }
    o.signal?.throwIfAborted();
    spentBefore = progress.current.usd;
    progress.update({ label: STAGE_LABELS[name], stage: { index: n, count: stageList.length, name }, current: undefined, done: n - 1 }, true);
    const partial = plan.stages.find((s) => s.name === name)?.status === "partial";
    log(`${at()} ${n}/${stageList.length} ${name}${partial ? " (resuming)" : ""}: ${plan.stages[n - 1].what}`);
    const s0 = Date.now();
    await work();
    const seconds = (Date.now() - s0) / 1000;
    stageSeconds[name] = seconds;
    state.stages[name] = { seconds, finished: new Date().toISOString() };
    writeJsonAtomic(join(o.dir, STATE_FILE), state);
    done.add(name);
    progress.update({ done: done.size, current: undefined }, true);
    log(`${at()} ${name} done in ${seconds.toFixed(1)}s`);
  };

  const runsDir = join(o.dir, config.runsDir);
  const dataDir = join(o.dir, config.dataDir);
  const s = settings;
  // A rehearsal's stand-in: every step loads it, checks the SFT data against it and records it.
  const tokenizer = s.rehearsal?.tokenizer;
  const command = (what: string) => ["agent-lab", "pipeline", `(${what})`];
  const stepLog = (line: string) => line.split("\n").forEach((l) => log(`    ${l}`));

  let hubFiles: { train: string[]; dev: string[]; description: string } | undefined;
  await stage("world", async () => {
    if (s.data.source === "synthetic") {
      const world = generateSyntheticHotpot({ seed: s.data.seed, train: s.data.train, dev: s.data.dev, style: "compact" });
      mkdirSync(join(o.dir, "hotpot"), { recursive: true });
      writeFileAtomic(join(o.dir, "hotpot", "synthetic_train.json"), JSON.stringify(world.train));
      writeFileAtomic(join(o.dir, "hotpot", "synthetic_dev.json"), JSON.stringify(world.dev));
      stepLog(`${world.train.length} train and ${world.dev.length} dev questions`);
    } else if (s.data.source === "files") {
      stepLog(`HotpotQA records from local files: train ${s.data.train.join(", ")}; dev ${s.data.dev.join(", ")}`);
    } else {
      const { downloadHotpotQA } = await import("../../base/data/hub");
      hubFiles = await downloadHotpotQA({ log: stepLog });
    }
  });
  await stage("prepare", async () => {
    let input;
    if (s.data.source === "synthetic") {
      const raw = join(o.dir, "hotpot");
      input = { trainFiles: [join(raw, "synthetic_train.json")], devFiles: [join(raw, "synthetic_dev.json")], source: `${SYNTHETIC_WORLD_SOURCE} (compact, seed ${s.data.seed})` };
    } else if (s.data.source === "files") {
      // The same reader and source line as `agent-lab prepare --train … --dev …`.
      input = { trainFiles: s.data.train, devFiles: s.data.dev, source: `local files: train ${s.data.train.join(", ")}; dev ${s.data.dev.join(", ")}` };
    } else {
      hubFiles ??= await (await import("../../base/data/hub")).downloadHotpotQA({ log: stepLog });
      input = { trainFiles: hubFiles.train, devFiles: hubFiles.dev, source: hubFiles.description };
    }
    const r = await prepareData(dataDir, input, stepLog, { sizes: s.splits });
    for (const remark of r.notes) stepLog(`note: ${remark}`);
    stepLog(`corpus ${r.counts.corpus} paragraphs | train ${r.counts.train} | val ${r.counts.val} | test ${r.counts.test}`);
  });
  // Every eval runs on val: an empty one (a small dev set at the recipe's split sizes) is said now, not as an empty table.
  const counts = readSplitsRecord(dataDir).counts;
  if (counts.val === 0) {
    throw new UserError(
      `${join(dataDir, "val.jsonl")} is empty: the dev records fill only the test split (${counts.test} questions); ` +
        `give the whole dev set, or rehearse with --rehearse, whose split sizes fit a few hundred dev questions`,
    );
  }
  await stage("index", async () => {
    // The offline corpus is small: one thread leaves the other cores to the rest of the machine.
    const r = await buildIndex(join(dataDir, "corpus.jsonl"), join(dataDir, "bm25"), s.backend === "local" || s.rehearsal ? { workers: 0 } : {});
    stepLog(`${r.documents} paragraphs, ${r.terms} terms`);
  });

  const local =
    s.backend === "local"
      ? await requireLocalBackend(o.startLocalBackend, "pipeline")({ port: o.localPort ?? 0, dir: localBackendDir(o.dir), seed: 0 })
      : undefined;
  if (local) log(`${local.started ? "started" : "using"} the local backend at ${local.url}`);
  try {
    const backend = s.backend === "local" ? "local" : "tinker";
    const runDir = (name: string) => join(runsDir, name);
    const evalRun = (name: string, closedBook: boolean, checkpoint?: string) =>
      evalSplit({
        workspaceDir: o.dir,
        config,
        name,
        split: "val",
        closedBook,
        limit: s.evalLimit,
        resume: existsSync(runFile(runDir(name), "manifest")),
        temperature: 0,
        promptFile: closedBook && s.offlinePrompts ? OFFLINE_CLOSED_BOOK_PROMPT : undefined,
        backend,
        checkpoint,
        tokenizer,
        localBackendUrl: local?.url,
        command: command(`eval ${name}`),
        signal: o.signal,
        log: stepLog,
        onProgress,
      }).then((r) => {
        if (o.signal?.aborted) throw interrupted();
        stepLog(`F1 ${r.summary.f1.toFixed(3)}  EM ${r.summary.em.toFixed(3)}  searches/q ${r.summary.searches_per_q.toFixed(2)}  ends ${JSON.stringify(r.summary.ends)}`);
      });

    await stage("eval-closed-book", () => evalRun(RUN_NAMES.closedBook, true));
    await stage("eval-base", () => evalRun(RUN_NAMES.base, false));
    await stage("sft-data", async () => {
      const r = await collectSftData({
        workspaceDir: o.dir,
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
        policy: s.sftData.role === "teacher" ? new TeacherPolicy(await offlineTokenizer("qwen3")) : undefined,
        localBackendUrl: local?.url,
        resume: existsSync(runFile(runDir(RUN_NAMES.sftData), "manifest")),
        command: command("sft-data"),
        signal: o.signal,
        log: stepLog,
        onProgress,
      });
      if (r.budgetStop) throw new UserError(`sft-data stopped at the budget cap: ${r.budgetStop.message}`);
      if (o.signal?.aborted) throw interrupted();
      stepLog(r.finalLine);
    });
    await stage("train-sft", async () => {
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
        resume: existsSync(runFile(runDir(RUN_NAMES.sft), "manifest")),
        backend,
        baseUrl: local?.url,
        command: command("train-sft"),
        signal: o.signal,
        log: stepLog,
        onProgress,
      });
      if (r.status !== "done") throw interrupted();
    });
    const sftCheckpoint = `${RUN_NAMES.sft}-e${s.sft.epochs}`;
    await stage("eval-sft", () => evalRun(RUN_NAMES.sftEval, false, resolveCheckpointPath(runsDir, sftCheckpoint, "sampler")));
    await stage("train-grpo", async () => {
      const r = await trainGrpo({
        workspaceDir: o.dir,
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
        resume: existsSync(runFile(runDir(RUN_NAMES.grpo), "manifest")),
        backend,
        baseUrl: local?.url,
        command: command("train-grpo"),
        signal: o.signal,
        log: stepLog,
        onProgress,
      });
      if (r.status === "interrupted") throw interrupted();
      if (r.status !== "done") throw new UserError(`train-grpo stopped (${r.status})${r.message ? `: ${r.message}` : ""}`);
    });
    await stage("eval-grpo", () => evalRun(RUN_NAMES.grpoEval, false, resolveCheckpointPath(runsDir, `${RUN_NAMES.grpo}-s${s.grpo.steps}`, "sampler")));
  } finally {
    await local?.close();
  }

  // The comparison is cheap and always redone, so every run prints the table.
  const result: PipelineResult = { plan, seconds: 0, stageSeconds };
  const labels = ["base", "closed-book", "SFT", "GRPO"];
  const dirs = [RUN_NAMES.base, RUN_NAMES.closedBook, RUN_NAMES.sftEval, RUN_NAMES.grpoEval].map((n) => join(runsDir, n));
  // Each comparison differs from base in the thing under test: the checkpoint, or search itself.
  const expect = [...ORIGIN_EXPECT.pipeline];
  let report!: AblationReport;
  let grpoVsSft!: AblationReport;
  let trend!: RewardTrend;
  // The question kinds are the synthetic world's templates; HotpotQA's questions have none.
  const byKind = s.data.source === "synthetic" ? kindBreakdown(dirs[2], dirs[3]) : undefined;
  await stage("ablate", async () => {
    report = ablate(loadAblationInputs(dirs), { resamples: o.resamples, expect });
    grpoVsSft = ablate(loadAblationInputs([dirs[2], dirs[3]]), { resamples: o.resamples, expect });
    trend = rewardTrend(readStepRewards(runFile(join(runsDir, RUN_NAMES.grpo), "metrics")));
    writeJsonAtomic(join(o.dir, ABLATION_FILE), report);
  });
  writeFileAtomic(join(o.dir, REPORT_FILE), renderReport({ o, settings, report, grpoVsSft, trend, byKind, labels, state, note }));
  const table = renderAblationTable(report);
  log("");
  log(table);
  log("");
  log(grpoLine(grpoVsSft));
  if (byKind) log(renderKindBreakdown(byKind));
  log(renderTrend(trend));
  if (o.backend === "local") log(`\n${LOCAL_STAND_IN_NOTE}`);
  if (note) log(`\n${note}`);
  log(`\nreport: ${join(o.dir, REPORT_FILE)}  (full comparison: ${join(o.dir, ABLATION_FILE)})`);
  result.report = report;
  result.grpoVsSft = grpoVsSft;
  result.trend = trend;
  result.byKind = byKind;
  result.table = table;
  result.seconds = (Date.now() - started) / 1000;
  log(`pipeline finished in ${result.seconds.toFixed(1)}s`);
  return result;
}

function interrupted(): UserError {
  return new UserError("pipeline interrupted; rerun the same command to continue where it stopped");
}

function grpoLine(r: AblationReport): string {
  const c = r.comparisons[0];
  if (!c) return "";
  const f = c.f1;
  return `GRPO vs SFT on val: Δ F1 ${signed(f.delta)} [95% CI ${signed(f.ci.lo)}, ${signed(f.ci.hi)}], p ${f.p.toPrecision(2)}: ${f.verdict}`;
}

const signed = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(3);

/** A fresh folder, or one an earlier pipeline run with the same settings made; anything else is refused (nothing written). */
function checkFolder(dir: string, settings: PipelineSettings, existing: PipelineState | undefined): void {
  // Hidden entries (.vscode, .git, .cache) do not make a folder "used": an editor's empty workspace has them.
  if (existsSync(dir) && readdirSync(dir).some((name) => !name.startsWith("."))) {
    if (!existsSync(join(dir, PIPELINE_MARKER))) {
      throw new UserError(`${dir} exists and was not made by "agent-lab pipeline"; choose another --dir`);
    }
    if (existing && JSON.stringify(existing.settings) !== JSON.stringify(settings)) {
      throw new UserError(
        `${dir} holds a pipeline run with other settings (${existing.settings.backend} backend); ` +
          `rerun it with the same options to continue, or choose another --dir`,
      );
    }
  }
}

/** Marks the folder as this pipeline's and writes its settings, config and prompts (those not there yet). */
function claimFolder(dir: string, settings: PipelineSettings): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, PIPELINE_MARKER), "Made by `agent-lab pipeline`; rerunning the same command here continues the run.\n");
  if (!existsSync(join(dir, STATE_FILE))) writeJsonAtomic(join(dir, STATE_FILE), { format: 1, settings, stages: {} } satisfies PipelineState);
  if (!existsSync(join(dir, CONFIG_FILE))) writeFileAtomic(join(dir, CONFIG_FILE), JSON.stringify(workspaceConfig(settings), null, 2) + "\n");
  if (settings.offlinePrompts) {
    mkdirSync(join(dir, "prompts"), { recursive: true });
    if (!existsSync(join(dir, OFFLINE_PROMPT))) writeFileAtomic(join(dir, OFFLINE_PROMPT), OFFLINE_SYSTEM_TEXT);
    if (!existsSync(join(dir, OFFLINE_CLOSED_BOOK_PROMPT))) writeFileAtomic(join(dir, OFFLINE_CLOSED_BOOK_PROMPT), OFFLINE_CLOSED_BOOK_TEXT);
  }
}

/** The pipeline folder's agent-lab.json: its harness settings, its prompt. */
function workspaceConfig(s: PipelineSettings): Record<string, unknown> {
  return { dataDir: "data", runsDir: "runs", ...s.harness, ...(s.offlinePrompts ? { systemPromptFile: OFFLINE_PROMPT } : {}) };
}

function loadConfigInMemory(s: PipelineSettings): AgentLabConfig {
  return mergeConfig(validateOverrides(workspaceConfig(s), "pipeline settings"));
}

async function confirmSpending(plan: PipelinePlan, o: PipelineOptions, target: RehearsalTarget | undefined): Promise<void> {
  if (o.yes) return;
  if (target) {
    // Asked even at $0: the user confirms where every stage's requests go.
    const what = `this rehearsal sends every stage to ${target.baseUrl} and spends up to ≈ $${plan.remainingUsd.toFixed(2)}`;
    if (!o.confirm) throw new UserError(`${what}; pass --yes to confirm without a prompt`);
    if (!(await o.confirm(`${what[0].toUpperCase()}${what.slice(1)}. Continue? [y/N] `))) throw new UserError("stopped before any stage ran");
    return;
  }
  if (plan.remainingUsd <= 0) return;
  const question = `This spends up to ≈ $${plan.remainingUsd.toFixed(2)} on Tinker. Continue? [y/N] `;
  if (!o.confirm) throw new UserError(`this run would spend up to ≈ $${plan.remainingUsd.toFixed(2)} on Tinker; pass --yes to confirm without a prompt`);
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

// The synthetic world's heading and caveat, in place of HotpotQA's corpus line: core's, which ablate uses too.
export { SYNTHETIC_REPORT };

function renderReport({ o, settings, report, grpoVsSft, trend, byKind, labels, state, note }: ReportParts): string {
  const out: string[] = [];
  out.push(`# Agent Lab pipeline report (${settings.backend} backend${settings.rehearsal ? ", rehearsal" : ""})`, "");
  if (settings.backend === "local") out.push(`> ${LOCAL_STAND_IN_NOTE}`, "");
  if (note) out.push(`> ${note}`, "");
  const environment = reportEnvironment(HOTPOTQA_INFO);
  const table = renderMarkdownReport(report, { labels, environment: settings.data.source === "synthetic" ? { ...environment, ...SYNTHETIC_REPORT } : environment }).trim();
  out.push(table, "");
  out.push("## GRPO", "", `- ${grpoLine(grpoVsSft)}`);
  if (byKind) out.push(`- ${renderKindBreakdown(byKind).replace("\n  ", "\n- ")}`);
  out.push(`- ${renderTrend(trend).replace("\n  ", "\n- ")}`, "");
  out.push("## Stage timings (seconds, last run of each stage)", "");
  if (state.load) out.push(`Load average at the start: ${state.load.map((l) => l.toFixed(2)).join(" / ")} (1/5/15 min) on ${cpus().length} cores.`, "");
  for (const [name, t] of Object.entries(state.stages)) out.push(`- ${name}: ${t.seconds.toFixed(1)}`);
  out.push("", "## Settings", "", "```json", JSON.stringify(settings, null, 2), "```", "");
  out.push(`Folder: ${relative(process.cwd(), o.dir) || "."}; checkpoints: ${relative(o.dir, registryPath(join(o.dir, "runs")))}`, "");
  return out.join("\n");
}
