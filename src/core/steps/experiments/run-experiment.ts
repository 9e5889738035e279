/**
 * `agent-lab experiment run SPEC.json`: every phase of an experiment through the same core
 * functions the single steps call, in one folder laid out as a workspace (agent-lab.json, data/,
 * runs/). Each arm is a normal run folder under runs/ (`<name>-<arm>`), every evaluation too
 * (`<name>-eval-base`, `<name>-eval-<arm>`), and the record goes to runs/<name>/experiment.json.
 *
 * Phases: world, prepare, index (offline: the synthetic world, as the pipeline writes it) or data
 * (an environment whose splits are its records alone: the hub's or --train/--test files, test locked
 * by hash) → init (the base model, a
 * state, or a shared SFT warm-up every arm starts from; "base" is scored as this point) → tasks
 * (gen-tasks for arms trained on generated tasks; the solve rate tried by the init policy) → per arm its SFT
 * (data from the teacher, a file or runs already scored) and/or its GRPO (from the SFT checkpoint
 * when there is one; an environment that trains on task sets reads them as its own items, `--train-tasks`)
 * → eval (base and every
 * arm on the same items, same decoding) → the numbers, the verdict, the provenance, the validation.
 *
 * Money: `budget_usd` caps the whole experiment — refused up front when the estimate is over it,
 * checked before every phase against the spend so far (the finished phases' ledgers), and each
 * step gets what is left as its own cap. `--rehearse` (rehearsal.ts) runs a Tinker spec at tiny
 * sizes against TINKER_BASE_URL with the stand-in tokenizer; without it a spec runs as written.
 *
 * The phases are one list, declared before any runs and run by the recipe engine: a finished phase is
 * recorded in runs/<name>/phases.json and skipped, an unfinished one resumes through its step's own
 * resume, and the record folder's progress.json says phase i/n, the phase's own steps and one ETA.
 * One writer per experiment (the record folder's lock).
 *
 * A sweep (sweep-spec.ts) is an experiment whose arms were expanded from one: the shared phases run
 * first (with eval:base), then each arm's own phases as a chain, up to max_concurrent_arms chains at
 * once (sweep-run.ts), the engine reserving each running phase's estimate against the one budget.
 *
 * On the synthetic world every run records the world's own environment name (catalog.ts worldOf), as
 * the pipeline's runs do, so views and ablate keep them apart from runs on the real dataset; a folder
 * an earlier build started under the real environment's name keeps it (runsEnvironment).
 */
import type { StartLocalBackend } from "../../base/tinker/local-backend";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { ablate, loadAblationInputs } from "../ablate";
import { loadTokenizerSource, STAND_IN_TOKENIZER } from "../../base/chat";
import { resolveCheckpointPath } from "../../base/checkpoints/registry";
import { CONFIG_FILE, type AgentLabConfig } from "../../base/config";
import { loadConfig } from "../../envs/config";
import { environmentInfo, worldOf, environmentMetrics } from "../../envs/catalog";
import { environmentByName, offlineWorld } from "../../envs/registry";
import type { OfflineWorld } from "../../harness/offline-world";
import type { EnvItem } from "../../harness/environment";
import { UserError } from "../../base/errors";
import { evalSplit } from "../eval/eval-split";
import { budgetLeftUsd, readLedger } from "../../base/ledger";
import { OFFLINE_PROMPT } from "../pipeline/run-pipeline";
import { readStepRewards, rewardTrend } from "../pipeline/reward-trend";
import { pricedFor, rehearsalNote, rehearsalTarget } from "../pipeline/rehearsal-target";
import { sha256File, sha256Hex, type RunManifest } from "../../base/runs/manifest";
import { bindRunToSpec } from "./spec-binding";
import { ProgressWriter, type ProgressStatus } from "../../base/runs/progress";
import { readJsonFile, readEpisodes } from "../../base/runs/run-files";
import { hasOneMetric, metricRoles, metricValue } from "../../base/runs/metrics";
import { manifestEnvironment } from "../../envs/manifest-environment";
import { writeJsonAtomic } from "../../base/util/atomic-write";
import { openRunForWriting, refuseWriteIntoRun, runFile } from "../../base/runs/run-folder";
import { Recipe, type Stage, type StageContext, type StageRecord } from "../recipe/engine";
import { indexCorpus, openLocalBackend, TEACHER_SFT } from "../recipe/stages";
import { SPLITS_FILE } from "../../base/data/splits";
import { indexIsCurrent } from "../../base/search";
import { collectSftData, sftFromRuns } from "../sft";
import { type TaskRecord } from "../tasks/filter";
import { TASKS_FILE, AUDIT_FILE } from "../../base/task-sets/files";
import type { GenTasksAudit } from "../tasks/gen-tasks";
import { trainGrpo, trainSft } from "../train";
import { readJsonl } from "../../base/util/jsonl";
import { decideVerdict, experimentNumbers } from "./analysis";
import { estimateExperiment, type ExperimentEstimate } from "./estimate";
import { evaluatorFromManifest, evaluatorId, itemManifestText } from "./evaluator";
import { adaptationRecord, armInitialisation } from "./adaptation";
import { generateArmTasks } from "./arm-tasks";
import { experimentMetric } from "./metric";
import { describeEdited, regradeRun } from "./regrade";
import {
  EXPERIMENT_FILES,
  EXPERIMENT_RECORD_FORMAT,
  type ArmRecord,
  type ExperimentRecord,
  type PhaseRecord,
  type ScoredRun,
} from "./record";
import { rehearsalSpecText } from "./rehearsal";
import {
  armCheckpointName,
  armEnv,
  EXPERIMENTS_DIR,
  generateOf,
  parseExperimentSpecText,
  readExperimentSpec,
  type ArmSpec,
  type ExperimentSpec,
  type GenerateRecipe,
  type SftRecipe,
} from "./spec";
import { validateExperiment } from "./validate";
import { runChains, sweepPlanLines } from "./sweep-run";
import { sweepNumbers } from "./sweep-analysis";

export interface RunExperimentOptions {
  specFile: string;
  /** The experiment's workspace folder (default experiments/<name>, the rehearsal's name when rehearsing). */
  dir?: string;
  dryRun?: boolean;
  yes?: boolean;
  localPort?: number;
  /** Starts or reuses the local backend (`--backend local`); the CLI passes the server's. */
  startLocalBackend?: StartLocalBackend;
  /**
   * A Tinker spec at tiny sizes (rehearsal.ts) through the Tinker client against TINKER_BASE_URL,
   * with the stand-in tokenizer; priced at $0 when the server is Agent Lab's local stand-in.
   */
  rehearse?: boolean;
  /** Local records instead of the hub for an environment the experiment prepares (as `agent-lab prepare --env NAME --train/--test` reads them). */
  trainFiles?: string[];
  testFiles?: string[];
  signal?: AbortSignal;
  log: (line: string) => void;
}

export interface RunExperimentResult {
  dir: string;
  estimate: ExperimentEstimate;
  record?: ExperimentRecord;
}

export function experimentRecordDir(workspaceDir: string, config: AgentLabConfig, name: string): string {
  return join(workspaceDir, config.runsDir, name);
}

/** The spec as it will run: the file's, or its rehearsal (checked by the same parser, since it becomes the record's spec.json). */
function specToRun(o: RunExperimentOptions): { spec: ExperimentSpec; text: string } {
  const read = readExperimentSpec(o.specFile);
  if (!o.rehearse) return read;
  if (read.spec.backend !== "tinker")
    throw new UserError(
      `--rehearse rehearses a Tinker spec; ${o.specFile} runs on the local backend already (leave out --rehearse)`,
    );
  const text = rehearsalSpecText(read.spec);
  return parseExperimentSpecText(`${o.specFile} (--rehearse)`, text);
}

export async function runExperiment(o: RunExperimentOptions): Promise<RunExperimentResult> {
  const { spec, text } = specToRun(o);
  // Absolute from here on: every step resolves the paths it is given against this workspace folder.
  const dir = resolve(o.dir ?? join(EXPERIMENTS_DIR, spec.name));
  // A rehearsal asks its server what it is first (through the client every phase uses): the local stand-in is free.
  const target = o.rehearse && !o.dryRun ? await rehearsalTarget(o.signal) : undefined;
  const estimate = estimateExperiment(spec, {
    free: target?.standIn,
    resolve: (p) => (isAbsolute(p) ? p : join(dir, p)),
  });
  const note = o.rehearse
    ? rehearsalNote(STAND_IN_TOKENIZER, (await loadTokenizerSource(STAND_IN_TOKENIZER)).name, target)
    : undefined;
  o.log(`experiment ${spec.name}: ${spec.title}`);
  if (note) o.log(note);
  o.log(`hypothesis: ${spec.hypothesis}`);
  for (const line of estimate.lines) o.log(`  ${line.phase}: ${line.what} — ≈ $${line.usd.toFixed(2)}`);
  o.log(
    `estimated cost: ≈ $${estimate.usd.toFixed(2)} (upper bound)${spec.budget_usd > 0 ? `; budget cap $${spec.budget_usd.toFixed(2)} for the whole experiment` : ""}`,
  );
  for (const line of sweepPlanLines(spec, estimate)) o.log(line);
  if ((o.trainFiles?.length || o.testFiles?.length) && !preparesData(spec))
    throw new UserError(
      `--train/--test give the records of an environment the experiment prepares itself (one without tools: its splits are its records); ${spec.name} ${spec.world ? "builds its synthetic world" : `evaluates on ${spec.evaluation.env}, prepared with agent-lab prepare`}`,
    );
  if (o.dryRun) return { dir, estimate };
  if (spec.budget_usd > 0 && estimate.usd > spec.budget_usd)
    throw new UserError(
      `the estimate ($${estimate.usd.toFixed(2)}) is over the spec's budget_usd ($${spec.budget_usd.toFixed(2)}, the cap for all phases together); raise it or shrink the arms`,
    );
  if (spec.backend === "tinker" && estimate.usd > 0 && !o.yes)
    throw new UserError(
      `this experiment would spend up to ≈ $${estimate.usd.toFixed(2)} on Tinker; pass --yes to confirm`,
    );

  // The experiment's workspace holds runs; it is never inside one.
  if (o.dir !== undefined) refuseWriteIntoRun(o.dir, { flag: "--dir" });
  const env = runsEnvironment(spec, dir);
  claimWorkspace(dir, spec, env);
  // Each step's own cap is set phase by phase to what is left of the experiment's (Context.stepConfig).
  const config = pricedFor(loadConfig(dir, spec.budget_usd > 0 ? { budgetUsd: spec.budget_usd } : {}), target);
  const recordDir = experimentRecordDir(dir, config, spec.name);
  const manifest = {
    kind: "experiment" as const,
    spec_sha256: sha256Hex(text),
    name: spec.name,
    created: new Date().toISOString(),
  };
  const lock = openRunForWriting<typeof manifest>({
    runDir: recordDir,
    resume: existsSync(runFile(recordDir, "manifest")),
    what: `agent-lab experiment run ${o.specFile}${o.rehearse ? " --rehearse" : ""}`,
    create: manifest,
    changes: (stored) =>
      stored.spec_sha256 === manifest.spec_sha256
        ? []
        : [{ field: "spec_sha256", was: stored.spec_sha256, now: manifest.spec_sha256 }],
  });
  writeFileSync(join(recordDir, EXPERIMENT_FILES.spec), text);
  const phasesFile = join(recordDir, EXPERIMENT_FILES.phases);
  const phases: Record<string, PhaseRecord> = readJsonFile<Record<string, PhaseRecord>>(phasesFile) ?? {};
  const ctx = new Context(
    o,
    spec,
    env,
    dir,
    config,
    recordDir,
    phases,
    estimate,
    o.rehearse ? STAND_IN_TOKENIZER : undefined,
    manifest.spec_sha256,
  );
  const plan = ctx.plan();
  const stages = [...plan.first, ...plan.chains.flat()];
  const progress = new ProgressWriter(recordDir, {
    step: "experiment",
    label: "experiment",
    unit: "phase",
    planned: stages.length,
    budgetUsd: spec.budget_usd,
    done: stages.filter((st) => st.isDone()).length,
  });
  let status: ProgressStatus = "failed";
  try {
    const record = await ctx.run(plan, progress, phasesFile);
    if (note) o.log(note);
    status = "done";
    return { dir, estimate, record };
  } catch (e) {
    if (o.signal?.aborted) status = "interrupted";
    throw e;
  } finally {
    progress.finish(status);
    lock.release();
  }
}

/**
 * Whether the experiment writes its environment's splits itself (from the hub or --train/--test
 * files): when its splits are all it needs. One with tools needs more (a search index over its
 * corpus), which `agent-lab prepare` and `index` make before the experiment runs.
 */
const preparesData = (spec: ExperimentSpec) => !spec.world && !environmentInfo(spec.evaluation.env)?.hasTools;

/** The runs of an experiment whose manifests record its environment (evals, GRPO, SFT data; an SFT training run records none). */
function environmentRunNames(spec: ExperimentSpec): string[] {
  const names = ["eval-base", "init-data"];
  for (const a of spec.arms) names.push(`eval-${a.name}`, a.name, `${a.name}-sft-data`);
  return names.map((n) => `${spec.name}-${n}`);
}

/**
 * The environment every run of the experiment records: the evaluation's, or on the synthetic world
 * the world's own name — unless the folder holds a run an earlier build made under the real name
 * (before worlds had one), whose remaining runs then keep it so they resume and compare with it.
 */
export function runsEnvironment(spec: ExperimentSpec, dir: string): string {
  const real = spec.evaluation.env;
  const world = spec.world ? worldOf(real) : undefined;
  if (!world) return real;
  const runsDir = join(dir, loadConfig(dir).runsDir);
  const earlier = environmentRunNames(spec)
    .map((n) => readJsonFile<unknown>(runFile(join(runsDir, n), "manifest")))
    .find((m) => m !== undefined);
  return earlier !== undefined && manifestEnvironment(earlier).name === real ? real : world;
}

/**
 * The offline world of the experiment's environment (its folder's offline.ts): the synthetic world
 * a `world` spec is written from, and its scripted teacher, index and short prompts.
 */
function declaredWorld(spec: ExperimentSpec): OfflineWorld {
  const world = offlineWorld(spec.evaluation.env);
  if (!world) throw new UserError(`${spec.evaluation.env} declares no offline world (its folder has no offline.ts)`);
  return world;
}

/** Phases that need no model: the local backend starts after them, when a later phase is still to run. */
const PREPARATION = new Set(["world", "prepare", "index", "data"]);

/** A fresh folder, or one this experiment made; its agent-lab.json holds the spec's harness settings and the runs' environment. */
function claimWorkspace(dir: string, spec: ExperimentSpec, env: string): void {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, CONFIG_FILE);
  if (!existsSync(config)) {
    const harness = {
      ...spec.harness,
      loraRank: spec.lora_rank,
      model: spec.backend === "tinker" ? spec.base_model : undefined,
      env,
    };
    // Offline, the short system prompt the tiny stand-in can follow: the one the environment's world declares.
    const prompt = spec.backend === "local" ? declaredWorld(spec).tools?.prompts.system : undefined;
    const offline = prompt !== undefined;
    writeFileSync(
      config,
      JSON.stringify(
        { dataDir: "data", runsDir: "runs", ...harness, ...(offline ? { systemPromptFile: OFFLINE_PROMPT } : {}) },
        null,
        2,
      ) + "\n",
    );
    if (offline) {
      mkdirSync(join(dir, "prompts"), { recursive: true });
      writeFileSync(join(dir, OFFLINE_PROMPT), prompt);
    }
  }
}

class Context {
  private readonly runsDir: string;
  private readonly dataDir: string;
  private local: { url: string; close(): Promise<void> } | undefined;

  constructor(
    private readonly o: RunExperimentOptions,
    private readonly spec: ExperimentSpec,
    /** The environment every run records (runsEnvironment): the world's on the synthetic world. */
    private readonly env: string,
    private readonly dir: string,
    private readonly config: AgentLabConfig,
    private readonly recordDir: string,
    private readonly phases: Record<string, PhaseRecord>,
    private readonly estimate: ExperimentEstimate,
    /** A rehearsal's stand-in tokenizer, used and recorded by every phase. */
    private readonly tokenizer: string | undefined,
    /** The spec's hash (the experiment's manifest's), recorded in every run a phase writes. */
    private readonly specSha256: string,
  ) {
    this.runsDir = join(dir, config.runsDir);
    this.dataDir = join(dir, config.dataDir);
  }

  /** The recipe engine over the phases, its record phases.json's (a phase's runs are what it wrote). */
  private recipe(stages: Stage[], progress: ProgressWriter, phasesFile: string): Recipe {
    const { o, phases } = this;
    const cap = this.spec.budget_usd;
    const records: Record<string, StageRecord> = {};
    for (const [name, p] of Object.entries(phases))
      records[name] = { seconds: p.seconds, finished: p.finished, usd: p.usd, writes: p.runs };
    return new Recipe({
      names: stages.map((st) => st.name),
      log: o.log,
      stepLog: this.stepLog,
      signal: o.signal,
      progress,
      records,
      save: (all) => {
        for (const [name, r] of Object.entries(all))
          phases[name] = { seconds: r.seconds, usd: r.usd ?? 0, runs: r.writes ?? [], finished: r.finished };
        writeJsonAtomic(phasesFile, phases);
      },
      doneAtStart: stages.filter((st) => st.isDone()).length,
      budget: { capUsd: cap, scope: "the whole experiment", keptIn: this.rel(phasesFile), noun: "phases" },
      skipped: "done earlier, skipped",
      finished: (name, _s, usd) =>
        usd > 0
          ? `${name}: $${usd.toFixed(4)}; experiment total $${this.spent().toFixed(4)}${cap > 0 ? ` of $${cap.toFixed(2)}` : ""}`
          : undefined,
    });
  }

  runName(...parts: string[]): string {
    return [this.spec.name, ...parts].join("-");
  }

  private rel(p: string): string {
    return relative(this.dir, p) || ".";
  }

  /** What the finished phases spent (their runs' ledgers, as phases.json recorded them). */
  private spent(): number {
    return Object.values(this.phases).reduce((s, p) => s + p.usd, 0);
  }

  /**
   * The settings a phase's steps run with: their own cap is what is left of the experiment's budget
   * (the engine's figure for the phase, which also leaves out what phases running beside it hold).
   */
  private stepConfig(ctx?: StageContext): AgentLabConfig {
    const cap = this.spec.budget_usd;
    return cap > 0
      ? { ...this.config, budgetUsd: ctx?.budgetLeftUsd ?? budgetLeftUsd(cap, this.spent()) }
      : this.config;
  }

  /** The runs' environment's data folder in this workspace (an arm trains on the evaluation's environment). */
  private envData(): string {
    return environmentByName(this.env).data.dir(this.dataDir);
  }

  /**
   * A phase as the recipe engine runs it (its line, the budget check before it, progress, the
   * record): done once phases.json recorded it (or `doneBefore` says an earlier build did it under
   * another name), resumed by its step when one of its runs was started; its spend is its runs' ledgers.
   */
  private phase(name: string, runs: string[], work: Stage["run"], doneBefore?: () => boolean): Stage {
    const spentUsd = () =>
      runs.reduce((sum, r) => sum + readLedger(join(this.runsDir, r)).reduce((t, e) => t + (Number(e.usd) || 0), 0), 0);
    return {
      name,
      writes: runs.map((r) => this.rel(join(this.runsDir, r))),
      isDone: () => Boolean(this.phases[name]) || (doneBefore?.() ?? false),
      isPartial: () => runs.some((r) => this.resume(r)),
      estimateUsd: this.estimate.phases[name] ?? 0,
      spentUsd,
      run: async (ctx) => {
        await work(ctx);
        // A step the stop reached returns with its work partial (an eval says "interrupted"): not a finished phase.
        this.o.signal?.throwIfAborted();
        for (const r of runs)
          bindRunToSpec(join(this.runsDir, r), { experiment: this.spec.name, spec_sha256: this.specSha256 });
      },
    };
  }

  private resume(name: string): boolean {
    return existsSync(runFile(join(this.runsDir, name), "manifest"));
  }

  private command(what: string): string[] {
    return ["agent-lab", "experiment", "run", this.o.specFile, ...(this.o.rehearse ? ["--rehearse"] : []), `(${what})`];
  }

  /**
   * Every phase, declared before any runs: the data (the world, its prepare and index, or the
   * environment's data), the init point, each generated-tasks arm's tasks, each arm's training, then
   * base and every arm evaluated. A phase reads what earlier ones made from disk when it runs (the
   * checkpoint registry, the tasks folder). `first` runs one after another, then `chains` (a sweep's
   * arms, each its own phases in order) side by side up to max_concurrent_arms; an experiment
   * without a sweep runs all its phases in `first`, in the order it always had.
   */
  plan(): { first: Stage[]; chains: Stage[][] } {
    const spec = this.spec;
    const stepLog = this.stepLog;
    const list: Stage[] = [];
    if (spec.world) list.push(...this.worldStages(spec.world, stepLog));
    if (preparesData(spec)) {
      const env = environmentByName(this.env);
      list.push(
        this.phase("data", [], async () => {
          const lines = await env.data.prepare({
            outDir: this.envData(),
            train: this.o.trainFiles,
            test: this.o.testFiles,
            log: stepLog,
          });
          lines.forEach(stepLog);
        }),
      );
    }
    list.push(...this.initStages(stepLog));
    const init = this.initPoint();
    const tasks = (a: ArmSpec) => {
      const g = generateOf(a);
      return g ? [this.tasks(a, g, stepLog)] : [];
    };
    const evalArm = (a: ArmSpec) => this.evaluate(a.name, () => this.armSampler(a), stepLog);
    if (spec.sweep) {
      list.push(this.evaluate("base", init.sampler, stepLog));
      const chains = spec.arms.map((a) => [...tasks(a), ...this.train(a, init.state, stepLog), evalArm(a)]);
      return { first: list, chains };
    }
    for (const a of spec.arms) list.push(...tasks(a));
    for (const a of spec.arms) list.push(...this.train(a, init.state, stepLog));
    list.push(this.evaluate("base", init.sampler, stepLog));
    for (const a of spec.arms) list.push(evalArm(a));
    return { first: list, chains: [] };
  }

  /** The phases' own lines, indented under the phase's line. */
  private readonly stepLog = (l: string) => l.split("\n").forEach((x) => this.o.log(`    ${x}`));

  /** The environment's declared world as the pipeline's stages write it: the world, prepare, its index (a world with tools). */
  private worldStages(w: NonNullable<ExperimentSpec["world"]>, stepLog: (l: string) => void): Stage[] {
    const world = declaredWorld(this.spec);
    const size = { seed: w.seed, train: w.train, dev: w.dev };
    const dataDir = world.env.data.dir(this.dataDir);
    // An earlier build wrote all three as one phase, "world": a folder it finished keeps them done.
    const inOldWorld = (complete: boolean) => Boolean(this.phases.world) && complete;
    const index = world.tools?.index;
    return [
      this.phase("world", [], async (ctx) => ctx.log(await world.write(this.dir, size, ctx.signal))),
      this.phase(
        "prepare",
        [],
        async () => (await world.prepare(this.dir, this.dataDir, size, stepLog)).forEach((l) => stepLog(l)),
        () => inOldWorld(existsSync(join(dataDir, SPLITS_FILE))),
      ),
      ...(index
        ? [
            this.phase(
              "index",
              [],
              async (ctx) => {
                const built = await indexCorpus(dataDir, { workers: 0 });
                ctx.log(`${built.documents} paragraphs, ${built.terms} terms`);
              },
              () => inOldWorld(indexIsCurrent(join(dataDir, index.dir))),
            ),
          ]
        : []),
    ];
  }

  async run(
    plan: { first: Stage[]; chains: Stage[][] },
    progress: ProgressWriter,
    phasesFile: string,
  ): Promise<ExperimentRecord> {
    const stages = [...plan.first, ...plan.chains.flat()];
    const recipe = this.recipe(stages, progress, phasesFile);
    // The local backend starts before the first phase still to run that needs a model (it serves every arm's client).
    const needsModel = async (st: Stage) => {
      if (this.spec.backend === "local" && !this.local && !PREPARATION.has(st.name) && !st.isDone())
        this.local = await openLocalBackend(this.o.startLocalBackend, "experiment run", this.dir, this.o.localPort);
    };
    try {
      for (const st of plan.first) {
        await needsModel(st);
        await recipe.run(st, stages);
      }
      for (const st of plan.chains.flat()) await needsModel(st);
      await runChains(plan.chains, this.spec.sweep?.max_concurrent_arms ?? 1, (st) => recipe.run(st, stages));
      const init = this.initPoint();
      const record = this.record({ ...init, sampler: init.sampler() });
      writeJsonAtomic(join(this.recordDir, EXPERIMENT_FILES.record), record);
      const validation = validateExperiment(this.recordDir);
      record.validation = validation;
      writeJsonAtomic(join(this.recordDir, EXPERIMENT_FILES.record), record);
      return record;
    } finally {
      await this.local?.close();
    }
  }

  private backend(): "local" | "tinker" {
    return this.spec.backend;
  }

  /**
   * The state every arm starts from and the sampler "base" is scored with (undefined: the base
   * model); an SFT init's sampler is read from the checkpoint registry, so only once its phases ran.
   */
  private initPoint(): { state: string | undefined; sampler: () => string | undefined; runs: string[] } {
    const init = this.spec.init;
    if (init.kind === "base") return { state: undefined, sampler: () => undefined, runs: [] };
    if (init.kind === "checkpoint") return { state: init.state, sampler: () => init.sampler, runs: [] };
    return this.sftPoint(this.runName("init-data"), this.runName("init"), init.sft);
  }

  /** The shared SFT warm-up's phases (none for a base or checkpoint init). */
  private initStages(stepLog: (l: string) => void): Stage[] {
    const init = this.spec.init;
    if (init.kind !== "sft") return [];
    return this.sft("init", this.runName("init-data"), this.runName("init"), init.sft, undefined, stepLog);
  }

  /** What an SFT phase pair leaves: the last epoch's state, its sampler (from the registry), the runs it wrote. */
  private sftPoint(
    dataRun: string,
    trainRun: string,
    sft: SftRecipe,
  ): { state: string; sampler: () => string; runs: string[] } {
    const state = `${trainRun}-e${sft.epochs}`;
    return {
      state,
      sampler: () => resolveCheckpointPath(this.runsDir, state, "sampler"),
      runs: [...(sft.data.kind !== "file" ? [dataRun] : []), trainRun],
    };
  }

  /** The sampler an arm's evaluation scores: its GRPO's last checkpoint, else its SFT's. */
  private armSampler(arm: ArmSpec): string {
    return arm.grpo || arm.sft
      ? resolveCheckpointPath(this.runsDir, armCheckpointName(this.spec.name, arm), "sampler")
      : "";
  }

  /**
   * An SFT phase pair (`<prefix>:sft-data` for init, `sft-data:<arm>` for an arm, then the training):
   * its data from the scripted teacher, from runs already scored, or a file; trained from `initState`.
   */
  private sft(
    who: string,
    dataRun: string,
    trainRun: string,
    sft: SftRecipe,
    initState: string | undefined,
    stepLog: (l: string) => void,
  ): Stage[] {
    const [dataPhase, trainPhase] = who === "init" ? ["init:sft-data", "init:sft"] : [`sft-data:${who}`, `sft:${who}`];
    const sftFile = runFile(join(this.runsDir, dataRun), "sft");
    const produced = sft.data.kind !== "file";
    const dataStage = this.phase(dataPhase, produced ? [dataRun] : [], async (ctx) => {
      if (sft.data.kind === "teacher") {
        const r = await collectSftData({
          workspaceDir: this.dir,
          config: this.stepConfig(ctx),
          env: this.env,
          name: dataRun,
          questions: sft.data.questions,
          offset: 0,
          ...TEACHER_SFT,
          backend: this.backend(),
          policy: await declaredWorld(this.spec).teacher(),
          localBackendUrl: this.local?.url,
          resume: this.resume(dataRun),
          command: this.command(`${who} sft-data`),
          signal: this.o.signal,
          log: stepLog,
          onProgress: ctx.onProgress,
        });
        if (r.budgetStop) throw new UserError(`${who} sft-data stopped at the budget cap: ${r.budgetStop.message}`);
        stepLog(r.finalLine);
      } else if (sft.data.kind === "runs") {
        const r = sftFromRuns({
          workspaceDir: this.dir,
          config: this.config,
          env: this.env,
          name: dataRun,
          runs: sft.data.runs,
          minReward: sft.data.min_reward,
          minRewardFlag: `${who}: sft.data.min_reward`,
          bestOf: sft.data.best_of,
          perTurn: false,
          command: this.command(`${who} sft-data --from-runs`),
          log: stepLog,
        });
        for (const sk of r.skipped) stepLog(`skipped ${sk.name}: ${sk.reason}`);
        stepLog(`${r.rows} SFT rows from ${sft.data.runs.length} runs already paid for`);
      }
    });
    const data = sft.data.kind === "file" ? sftDataFile(sft.data.path, this.dir) : sftFile;
    const trainStage = this.phase(trainPhase, [trainRun], async (ctx) => {
      const r = await trainSft({
        workspaceDir: this.dir,
        config: this.stepConfig(ctx),
        name: trainRun,
        data,
        epochs: sft.epochs,
        batch: sft.batch,
        lr: sft.lr,
        seed: this.spec.seed,
        initState,
        tokenizer: this.tokenizer,
        resume: this.resume(trainRun),
        backend: this.backend(),
        baseUrl: this.local?.url,
        command: this.command(`${who} train-sft`),
        signal: this.o.signal,
        log: stepLog,
        onProgress: ctx.onProgress,
      });
      if (r.status !== "done") throw new UserError(`${who} train-sft stopped (${r.status}); rerun to continue`);
    });
    return [dataStage, trainStage];
  }

  private tasksDir(arm: ArmSpec): string {
    if (arm.data?.kind !== "tasks") throw new Error("not a tasks arm");
    return arm.data.dir ? join(this.dir, arm.data.dir) : join(this.runsDir, this.runName("tasks", arm.name));
  }

  /** A generated-tasks arm's tasks phase: drafted and tried by the init point's policy. */
  private tasks(arm: ArmSpec, g: GenerateRecipe, stepLog: (l: string) => void): Stage {
    const env = armEnv(arm, this.spec);
    const name = this.runName("tasks", arm.name);
    return this.phase(`tasks:${arm.name}`, [name], (ctx) =>
      generateArmTasks(arm.name, env, g, {
        outDir: join(this.runsDir, name),
        workspaceDir: this.dir,
        dataDir: this.dataDir,
        evalItemsFile: join(this.envData(), `${this.spec.evaluation.split}.jsonl`),
        config: this.config,
        budgetUsd: this.stepConfig(ctx).budgetUsd,
        backend: this.backend(),
        initSampler: this.initPoint().sampler(),
        tokenizer: this.tokenizer,
        localBackendUrl: this.local?.url,
        evalMaxTokens: this.spec.evaluation.decoding.max_tokens,
        command: this.command(`gen-tasks ${arm.name}`),
        signal: this.o.signal,
        log: stepLog,
        onProgress: ctx.onProgress,
      }),
    );
  }

  /** The arm's GRPO training list, in order: the env's train split from its offset, or a tasks folder's tasks. */
  private trainingList(arm: ArmSpec): { questions: EnvItem[]; source: string; sha256: string; offset: number } {
    const data = arm.data!;
    const env = environmentByName(this.env);
    if (data.kind === "env-train") {
      const file = join(this.envData(), "train.jsonl");
      return {
        questions: env.data.load(this.envData(), "train"),
        source: this.rel(file),
        sha256: sha256File(file),
        offset: data.offset ?? 0,
      };
    }
    const file = join(this.tasksDir(arm), TASKS_FILE);
    if (!existsSync(file))
      throw new UserError(`arm ${arm.name}: ${file} does not exist (run agent-lab gen-tasks into that folder first)`);
    // An environment that trains on task sets reads the folder itself (--train-tasks: the real split's prompt and grader, the eval-overlap check).
    const questions = env.data.loadTrainTasks
      ? env.data.loadTrainTasks(this.tasksDir(arm), this.envData()).items
      : readJsonl<TaskRecord>(file).map((t) => ({
          id: t.id,
          question: t.problem,
          answers: [t.answer],
          type: "generated",
          level: "generated",
        }));
    return { questions, source: this.rel(file), sha256: sha256File(file), offset: 0 };
  }

  /** An arm's training phases: its SFT, then its GRPO from there (the training list read as it starts). */
  private train(arm: ArmSpec, initState: string | undefined, stepLog: (l: string) => void): Stage[] {
    const env = this.env;
    const stages: Stage[] = [];
    let state = initState;
    if (arm.sft) {
      const dataRun = this.runName(arm.name, "sft-data");
      const trainRun = this.runName(arm.name, "sft");
      stages.push(...this.sft(arm.name, dataRun, trainRun, arm.sft, initState, stepLog));
      state = this.sftPoint(dataRun, trainRun, arm.sft).state;
    }
    const g = arm.grpo;
    if (!g) return stages;
    const name = this.runName(arm.name);
    const grpo = this.phase(`train:${arm.name}`, [name], async (ctx) => {
      // A tasks arm's list is its tasks phase's output: read when this phase starts.
      const list = this.trainingList(arm);
      const needed = list.offset + g.steps * g.questions;
      if (list.questions.length < needed)
        throw new UserError(
          `arm ${arm.name}: GRPO needs ${needed} training rows (${g.steps} steps × ${g.questions} from row ${list.offset}) and ${list.source} has ${list.questions.length}; generate more tasks or take fewer steps`,
        );
      const tasksFolder =
        arm.data?.kind === "tasks" && environmentByName(env).data.loadTrainTasks
          ? this.rel(this.tasksDir(arm))
          : undefined;
      const r = await trainGrpo({
        workspaceDir: this.dir,
        config: this.stepConfig(ctx),
        env,
        name,
        initState: state,
        steps: g.steps,
        questions: g.questions,
        group: g.group,
        lr: g.lr,
        temperature: g.temperature,
        seed: g.seed,
        normalizeAdvantages: g.normalize_advantages,
        offset: list.offset,
        saveEvery: g.save_every ?? g.steps,
        trainTasksDir: tasksFolder,
        trainQuestions: arm.data?.kind === "tasks" && !tasksFolder ? list.questions : undefined,
        tokenizerSource: this.tokenizer,
        resume: this.resume(name),
        backend: this.backend(),
        baseUrl: this.local?.url,
        command: this.command(`train-grpo ${arm.name}`),
        signal: this.o.signal,
        log: stepLog,
        onProgress: ctx.onProgress,
      });
      if (r.status !== "done")
        throw new UserError(
          `train-grpo ${arm.name} stopped (${r.status})${r.message ? `: ${r.message}` : ""}; rerun to continue`,
        );
    });
    return [...stages, grpo];
  }

  /** An evaluation phase; `sampler` is read as it starts (the registry holds it once training ran). */
  private evaluate(arm: string, sampler: () => string | undefined, stepLog: (l: string) => void): Stage {
    const name = this.runName("eval", arm);
    const e = this.spec.evaluation;
    return this.phase(`eval:${arm}`, [name], async (ctx) => {
      const c = this.stepConfig(ctx);
      const r = await evalSplit({
        workspaceDir: this.dir,
        config: { ...c, maxTokens: e.decoding.max_tokens },
        env: this.env,
        name,
        split: e.split,
        testFlag: e.split === "test" ? "--i-know-this-is-test" : undefined,
        closedBook: false,
        limit: e.n ?? undefined,
        resume: this.resume(name),
        temperature: e.decoding.temperature,
        backend: this.backend(),
        checkpoint: sampler(),
        tokenizer: this.tokenizer,
        localBackendUrl: this.local?.url,
        command: this.command(`eval ${arm}`),
        signal: this.o.signal,
        log: stepLog,
        onProgress: ctx.onProgress,
      });
      if (r.budgetStop) throw new UserError(`eval ${arm} stopped at the budget cap: ${r.budgetStop.message}`);
      const roles = metricRoles(r.env.metrics);
      const value = (m: typeof roles.primary) => `${m.label} ${metricValue(r.summary, m).toFixed(3)}`;
      stepLog(
        `${arm}: ${value(roles.primary)}${hasOneMetric(roles) ? "" : `  ${value(roles.binary)}`}  (${r.summary.n} items)`,
      );
    });
  }

  private record(init: { state: string | undefined; sampler: string | undefined; runs: string[] }): ExperimentRecord {
    const spec = this.spec;
    const arms = ["base", ...spec.arms.map((a) => a.name)];
    const evalDirs = arms.map((a) => join(this.runsDir, this.runName("eval", a)));
    const episodes = evalDirs.map((d) => new Map(readEpisodes(d, environmentMetrics).map((e) => [e.id, e])));
    const ids = [...episodes[0].keys()].sort();
    if (ids.length === 0)
      throw new UserError(
        `${evalDirs[0]} scored no items: the ${spec.evaluation.split} split is empty; check the data folder (or the world's dev size)`,
      );
    episodes.forEach((m, k) => {
      if (m.size !== ids.length || ids.some((id) => !m.has(id)))
        throw new UserError(`${evalDirs[k]} was not evaluated on the same ${ids.length} items as base; rerun its eval`);
    });
    // The spec's parser checked the metric against the environment's declarations.
    const metric = experimentMetric(this.env, spec.metric)!;
    // Every score as the run's grader gives it again: a record is never built over edited episodes.
    const regraded = evalDirs.map((d) => regradeRun(d, metric));
    regraded.forEach((r, k) => {
      if (r.edited.length)
        throw new UserError(
          `${describeEdited(this.rel(evalDirs[k]), r, metric)}; the experiment's numbers come from its grader: restore the run, or rescore it (agent-lab score ${this.rel(evalDirs[k])}) and rerun`,
        );
    });
    const columns: Record<string, number[]> = {};
    arms.forEach((a, k) => (columns[a] = ids.map((id) => regraded[k].scores.get(id)!)));
    const itemsText = itemManifestText(ids);
    writeFileSync(join(this.recordDir, EXPERIMENT_FILES.items), itemsText);
    const scoresText = JSON.stringify({ metric: spec.metric, items: EXPERIMENT_FILES.items, scores: columns }) + "\n";
    writeFileSync(join(this.recordDir, EXPERIMENT_FILES.scores), scoresText);
    const numbers = experimentNumbers(columns, spec.criterion.treatment, spec.criterion.reference, {
      resamples: spec.resamples,
      seed: spec.seed,
    });
    const evaluators = evalDirs.map((d) => evaluatorFromManifest(readJsonFile<RunManifest>(runFile(d, "manifest"))!));
    const scores: Record<string, ScoredRun> = {};
    arms.forEach(
      (a, k) =>
        (scores[a] = {
          run: this.rel(evalDirs[k]),
          evaluator_id: evaluatorId(evaluators[k]),
          mean: numbers.scores[a].point,
          ci: numbers.scores[a].ci,
          episodes_sha256: sha256File(runFile(evalDirs[k], "episodes")),
        }),
    );
    const armRecords = spec.arms.map((a) => this.armRecord(a, init.state));
    const treatment = armRecords.find((a) => a.name === spec.criterion.treatment)!;
    const verdict = decideVerdict(numbers, spec, treatment.train_reward);
    const sweep = spec.sweep
      ? sweepNumbers(columns, spec.sweep, { resamples: spec.resamples, seed: spec.seed })
      : undefined;
    const totalUsd = Object.values(this.phases).reduce((s, p) => s + p.usd, 0);
    return {
      format: EXPERIMENT_RECORD_FORMAT,
      name: spec.name,
      title: spec.title,
      hypothesis: spec.hypothesis,
      spec_sha256: sha256File(join(this.recordDir, EXPERIMENT_FILES.spec)),
      record_dir: this.rel(this.recordDir),
      metric: spec.metric,
      evaluation: {
        env: this.env,
        split: spec.evaluation.split,
        n: ids.length,
        evaluator: evaluators[0],
        evaluator_id: evaluatorId(evaluators[0]),
        items_file: EXPERIMENT_FILES.items,
        items_sha256: sha256Hex(itemsText),
        scores_file: EXPERIMENT_FILES.scores,
        scores_sha256: sha256Hex(scoresText),
      },
      scores,
      numbers,
      resamples: spec.resamples,
      seed: spec.seed,
      verdict,
      criterion_arms: { treatment: spec.criterion.treatment, reference: spec.criterion.reference },
      arms: armRecords,
      init: {
        kind: spec.init.kind,
        state: init.state ?? null,
        sampler: init.sampler ?? null,
        runs: init.runs.map((r) => this.rel(join(this.runsDir, r))),
      },
      phases: this.phases,
      spend: { usd: totalUsd, budget_usd: spec.budget_usd, estimate_usd: this.estimate.usd },
      ablation: ablate(loadAblationInputs(evalDirs), {
        resamples: spec.resamples,
        seed: spec.seed,
        expect: ["policy.checkpoint"],
      }),
      backend: spec.backend,
      base_model: spec.base_model,
      ...(sweep ? { sweep } : {}),
      created: new Date().toISOString(),
    };
  }

  private armRecord(arm: ArmSpec, initState: string | undefined): ArmRecord {
    const env = this.env;
    const sftDir = arm.sft ? join(this.runsDir, this.runName(arm.name, "sft")) : undefined;
    const runDir = arm.grpo ? join(this.runsDir, this.runName(arm.name)) : sftDir!;
    const m = readJsonFile<Record<string, unknown>>(runFile(runDir, "manifest")) ?? {};
    let sftData: ArmRecord["sft_data"] = null;
    if (arm.sft) {
      const file =
        arm.sft.data.kind === "file"
          ? sftDataFile(arm.sft.data.path, this.dir)
          : runFile(join(this.runsDir, this.runName(arm.name, "sft-data")), "sft");
      sftData = { source: this.rel(file), sha256: sha256File(file), rows: readJsonl(file).length };
    }
    let generation: ArmRecord["generation_audit"] = null;
    if (arm.data?.kind === "tasks") {
      const dir = this.tasksDir(arm);
      const audit = readJsonFile<GenTasksAudit>(join(dir, AUDIT_FILE));
      if (audit) {
        const { accepted, rejected, counts, solve_rate, hashes, eval_overlap } = audit;
        generation = {
          run: this.rel(dir),
          audit_sha256: sha256File(join(dir, AUDIT_FILE)),
          tasks_sha256: sha256File(join(dir, TASKS_FILE)),
          accepted,
          rejected,
          yield: audit.yield,
          counts,
          solve_rate,
          hashes,
          generation: audit.generation,
          eval_overlap,
        };
      }
    }
    const list = arm.grpo ? this.trainingList(arm) : undefined;
    return {
      name: arm.name,
      run: this.rel(runDir),
      sft_run: sftDir ? this.rel(sftDir) : null,
      data: list
        ? { kind: arm.data!.kind, env, source: list.source, sha256: list.sha256, rows: list.questions.length }
        : { kind: "sft", env, ...sftData! },
      sft_data: sftData,
      initialisation: armInitialisation(m, { base_model: this.spec.base_model, init_state: initState ?? null }),
      adaptation: adaptationRecord(runDir, list?.questions ?? [], this.rel(runFile(runDir, "groups"))),
      generation_audit: generation,
      train_reward: arm.grpo ? trendOf(runDir) : null,
    };
  }
}

/** An SFT data path as a spec gives it (sft.jsonl or its sft-data run folder), resolved in the workspace. */
function sftDataFile(path: string, workspaceDir: string): string {
  const p = isAbsolute(path) ? path : join(workspaceDir, path);
  return existsSync(p) && statSync(p).isDirectory() ? runFile(p, "sft") : p;
}

function trendOf(runDir: string) {
  const rewards = readStepRewards(runFile(runDir, "metrics"));
  return rewards.length ? rewardTrend(rewards) : null;
}
