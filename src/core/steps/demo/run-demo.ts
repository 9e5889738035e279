/**
 * The main job with no account and no network: write the default environment's demo world (its
 * folder's offline.ts declares it), prepare it exactly like the real data, build the BM25 index,
 * evaluate the environment's honest scripted reader on val with search and closed-book. Every
 * number it prints is a stand-in for the pipeline's shape, not a model's score.
 *
 * Its five stages run on the recipe engine: a rerun in a finished folder skips them all, an
 * interrupted one continues where it stopped (an eval resumes its run), and DIR/progress.json says
 * which stage runs with one ETA, as the pipeline's does.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { writeFileAtomic, writeJsonAtomic } from "../../base/util/atomic-write";
import { CONFIG_FILE, type AgentLabConfig } from "../../base/config";
import { loadConfig } from "../../envs/config";
import { SPLITS_FILE } from "../../base/data/splits";
import type { DemoWorld, OfflineWorld } from "../../harness/offline-world";
import { UserError } from "../../base/errors";
import { ProgressWriter, type ProgressStatus } from "../../base/runs/progress";
import { readJsonFile, readSummary } from "../../base/runs/run-files";
import { lockRunFolder, runFile } from "../../base/runs/run-folder";
import type { RunSummary } from "../../base/runs/summary";
import { buildIndex, indexIsCurrent } from "../../base/search";
import { environmentMetrics } from "../../envs/catalog";
import { evalSplit } from "../eval/eval-split";
import { Recipe, type Stage, type StageRecord } from "../recipe/engine";
import { defaultWorld, evalComplete } from "../recipe/stages";

/** Marks a folder as made by `agent-lab demo`, so a rerun may continue in it. */
export const DEMO_MARKER = ".agent-lab-demo";
/** What ran: each finished stage's record (seconds, when, what it read and wrote), as the pipeline keeps its own. */
export const DEMO_RECORD = "demo.json";

/** The default environment's world and its demo (a world with tools: the demo evaluates with search and closed-book). */
function demoWorld(): { world: OfflineWorld; demo: DemoWorld; index: { corpus: string; dir: string } } {
  const world = defaultWorld();
  if (!world.demo || !world.tools)
    throw new Error(`${world.env.name}: the default environment's offline world declares no demo with tools`);
  return { world, demo: world.demo, index: world.tools.index };
}

export const DEMO_SEED: number = demoWorld().demo.seed;

export interface DemoOptions {
  dir: string;
  /** Progress and step lines. */
  log: (line: string) => void;
  signal?: AbortSignal;
  /** Questions in the generated dev file: 700 gives the recipe's 500 test + 200 val. */
  devQuestions?: number;
  trainQuestions?: number;
  concurrency?: number;
}

/** One of the demo's eval runs, as its folder holds it (run now or by an earlier demo in the folder). */
export interface DemoRun {
  runDir: string;
  summary: RunSummary;
}

export interface DemoResult {
  withSearch: DemoRun;
  closedBook: DemoRun;
  seconds: number;
}

export async function runDemo(o: DemoOptions): Promise<DemoResult> {
  const started = Date.now();
  claimFolder(o.dir);
  // One demo at a time in a folder (each eval's run is locked by its step as well).
  const lock = lockRunFolder(o.dir, `agent-lab demo --dir ${o.dir}`);
  let status: ProgressStatus = "failed";
  let progress: ProgressWriter | undefined;
  const config = loadConfig(o.dir, o.concurrency ? { concurrency: o.concurrency } : {});
  const runs = join(o.dir, config.runsDir);
  try {
    const stages = demoStages(o, config);
    const doneAtStart = stages.filter((st) => st.isDone()).length;
    progress = new ProgressWriter(o.dir, {
      step: "demo",
      label: "demo",
      unit: "stage",
      planned: stages.length,
      done: doneAtStart,
    });
    const recordFile = join(o.dir, DEMO_RECORD);
    const recipe = new Recipe({
      names: stages.map((st) => st.name),
      log: o.log,
      signal: o.signal,
      progress,
      // What is done is read from the stages' outputs; the record keeps what ran (and its times, for the ETA of a rerun).
      records: readJsonFile<{ stages?: Record<string, StageRecord> }>(recordFile)?.stages ?? {},
      save: (stages) => writeJsonAtomic(recordFile, { stages }),
      doneAtStart,
      // The demo's own lines: "[1.2s] WHAT", and nothing when a stage ends.
      starting: (st, resuming) => `${st.what}${resuming ? " (resuming)" : ""}`,
      finished: () => undefined,
      skipped: "done earlier, skipped",
    });
    await recipe.runAll(stages);
    status = "done";
  } catch (e) {
    if (o.signal?.aborted) status = "interrupted";
    throw e;
  } finally {
    progress?.finish(status);
    lock.release();
  }
  return {
    withSearch: demoRun(join(runs, "heuristic")),
    closedBook: demoRun(join(runs, "closed-book")),
    seconds: (Date.now() - started) / 1000,
  };
}

/** The demo's stages in order: world, prepare, index, the reader with search, the same reader closed-book. */
function demoStages(o: DemoOptions, config: AgentLabConfig): Stage[] {
  const workspace = o.dir;
  const { world, demo, index } = demoWorld();
  const dataDir = join(workspace, config.dataDir);
  const envData = world.env.data.dir(dataDir);
  const size = { seed: demo.seed, train: o.trainQuestions ?? demo.train, dev: o.devQuestions ?? demo.dev };
  const worldPaths = [...demo.files];
  const common = {
    workspaceDir: workspace,
    // The invented world's runs are recorded under the world's own environment name, not the real one's.
    env: world.env,
    config,
    split: "val" as const,
    temperature: 0,
    backend: "scripted",
    signal: o.signal,
    log: o.log,
  };
  const evalStage = (name: string, closedBook: boolean, what: string): Stage => {
    const runDir = join(workspace, config.runsDir, name);
    return {
      name: `eval-${name}`,
      what,
      writes: [`${config.runsDir}/${name}/`],
      isDone: () => evalComplete(runDir),
      isPartial: () => existsSync(runFile(runDir, "manifest")),
      run: async (ctx) => {
        await evalSplit({
          ...common,
          name,
          closedBook,
          resume: existsSync(runFile(runDir, "manifest")),
          command: ["agent-lab", "demo", `(eval ${name})`],
          onProgress: ctx.onProgress,
        });
        if (o.signal?.aborted)
          throw new UserError("demo interrupted; rerun the same command to continue where it stopped");
      },
    };
  };
  return [
    {
      name: "world",
      what: demo.describe,
      writes: worldPaths,
      isDone: () => demo.written(workspace),
      run: async () => demo.write(workspace, size),
    },
    {
      name: "prepare",
      what: demo.prepareWhat,
      reads: worldPaths,
      writes: [`${config.dataDir}/`],
      isDone: () => existsSync(join(envData, SPLITS_FILE)),
      run: async () => {
        for (const line of await demo.prepare(workspace, dataDir, size)) o.log(`  ${line}`);
      },
    },
    {
      name: "index",
      what: "index: BM25 over the corpus",
      writes: [`${config.dataDir}/${relative(dataDir, join(envData, index.dir))}/`],
      isDone: () => indexIsCurrent(join(envData, index.dir)),
      run: async () => {
        // One thread: the corpus is small, and the demo must not compete for a laptop's cores.
        const built = await buildIndex(join(envData, index.corpus), join(envData, index.dir), { workers: 0 });
        o.log(`  ${built.documents} paragraphs, ${built.terms} terms`);
      },
    },
    evalStage("heuristic", false, `eval on val: ${demo.readerWhat}, with search (runs/heuristic)`),
    evalStage("closed-book", true, "eval on val: the same reader closed-book, the floor (runs/closed-book)"),
  ];
}

function demoRun(runDir: string): DemoRun {
  const summary = readSummary(runDir, environmentMetrics);
  if (!summary) throw new UserError(`${runDir} has no summary.json; rerun agent-lab demo to finish it`);
  return { runDir, summary };
}

/**
 * A fresh folder, or one an earlier demo made (its finished stages are kept and skipped); anything
 * else is refused. Marks the folder and writes its agent-lab.json when there is none yet.
 */
function claimFolder(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, DEMO_MARKER))) {
    throw new UserError(
      `${dir} exists and was not made by "agent-lab demo"; choose another --dir (the demo writes a fresh folder)`,
    );
  }
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(
    join(dir, DEMO_MARKER),
    "Made by `agent-lab demo`; rerunning the demo here continues it (finished stages are skipped).\n",
  );
  if (!existsSync(join(dir, CONFIG_FILE)))
    writeFileAtomic(
      join(dir, CONFIG_FILE),
      // The world's environment, so `agent-lab eval` run in the folder afterwards records the same one.
      JSON.stringify({ dataDir: "data", runsDir: "runs", env: defaultWorld().env.name }, null, 2) + "\n",
    );
}
