/**
 * The main job with no account and no network: write the synthetic dataset, prepare it exactly
 * like HotpotQA, build the BM25 index, evaluate the honest heuristic reader on val with search and
 * closed-book. Every number it prints is a stand-in for the pipeline's shape, not a model's score.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILE, loadConfig } from "../../base/config";
import { UserError } from "../../base/errors";
import { HOTPOTQA_INFO } from "../../envs/catalog";
import { worldEnvironment } from "../../envs/registry";
import { evalSplit, type EvalSplitResult } from "../eval/eval-split";
import { indexCorpus, prepareHotpot, WORLD_DIR, writeSyntheticWorld } from "../recipe/stages";

/** Marks a folder as made by `agent-lab demo`, so a rerun may replace what it wrote. */
export const DEMO_MARKER = ".agent-lab-demo";
export const DEMO_SEED = 20261129;

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

export interface DemoResult {
  withSearch: EvalSplitResult;
  closedBook: EvalSplitResult;
  seconds: number;
}

export async function runDemo(o: DemoOptions): Promise<DemoResult> {
  const started = Date.now();
  prepareFolder(o.dir);
  const step = (what: string) => o.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${what}`);

  step("writing a synthetic multi-hop dataset (invented people, companies, towns) in HotpotQA's JSON shape");
  const { trainFile, devFile } = writeSyntheticWorld(o.dir, {
    seed: DEMO_SEED,
    train: o.trainQuestions ?? 300,
    dev: o.devQuestions ?? 700,
    devFile: "synthetic_dev_distractor.json",
  });

  step("prepare: splits (test 500, val 200, train) and the paragraph corpus, as for HotpotQA");
  const workspace = o.dir;
  writeFileSync(
    join(workspace, "agent-lab.json"),
    // The world's environment, so `agent-lab eval` run in the folder afterwards records the same one.
    JSON.stringify({ dataDir: "data", runsDir: "runs", env: worldEnvironment(HOTPOTQA_INFO.name)?.name }, null, 2) +
      "\n",
  );
  const config = loadConfig(workspace, o.concurrency ? { concurrency: o.concurrency } : {});
  const dataDir = join(workspace, config.dataDir);
  const prepared = await prepareHotpot(dataDir, {
    trainFiles: [trainFile],
    devFiles: [devFile],
    source: `agent-lab demo synthetic dataset (seed ${DEMO_SEED})`,
  });
  const c = prepared.counts;
  o.log(`  corpus ${c.corpus} paragraphs | train ${c.train} | val ${c.val} | test ${c.test}`);

  step("index: BM25 over the corpus");
  // One thread: the corpus is small, and the demo must not compete for a laptop's cores.
  const index = await indexCorpus(dataDir, { workers: 0 });
  o.log(`  ${index.documents} paragraphs, ${index.terms} terms`);

  const common = {
    workspaceDir: workspace,
    // The synthetic world's runs are recorded under the world's own environment name, not HotpotQA's.
    env: worldEnvironment(HOTPOTQA_INFO.name),
    config,
    split: "val" as const,
    resume: false,
    temperature: 0,
    backend: "scripted",
    signal: o.signal,
    log: o.log,
  };
  step("eval on val: the scripted heuristic reader, with search (runs/heuristic)");
  const withSearch = await evalSplit({
    ...common,
    name: "heuristic",
    closedBook: false,
    command: ["agent-lab", "demo", "(eval heuristic)"],
  });
  if (o.signal?.aborted) throw new UserError("demo interrupted; rerun it to start over");
  step("eval on val: the same reader closed-book, the floor (runs/closed-book)");
  const closedBook = await evalSplit({
    ...common,
    name: "closed-book",
    closedBook: true,
    command: ["agent-lab", "demo", "(eval closed-book)"],
  });
  if (o.signal?.aborted) throw new UserError("demo interrupted; rerun it to start over");
  return { withSearch, closedBook, seconds: (Date.now() - started) / 1000 };
}

/** A fresh folder, or one an earlier demo made (its outputs are replaced); anything else is refused. */
function prepareFolder(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    if (!existsSync(join(dir, DEMO_MARKER))) {
      throw new UserError(
        `${dir} exists and was not made by "agent-lab demo"; choose another --dir (the demo writes a fresh folder)`,
      );
    }
    for (const name of [WORLD_DIR, "data", "runs", CONFIG_FILE])
      rmSync(join(dir, name), { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, DEMO_MARKER),
    "Made by `agent-lab demo`; rerunning the demo replaces hotpot/, data/ and runs/ here.\n",
  );
}
