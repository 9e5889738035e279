/**
 * The pipeline's stages, in order, with what each writes, its size, its estimated cost and whether
 * its outputs already exist (a rerun skips or resumes those). `--dry-run` prints exactly this plan.
 */
import { SPLITS_FILE } from "../../base/data/splits";
import { defaultWorld, evalComplete } from "../recipe/stages";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentLabConfig, ModelPrices } from "../../base/config";
import { pricesFor } from "../../base/config";
import {
  estimateEpisodesUsd,
  estimateRlStepUsd,
  estimateSftUsd,
  TYPICAL_EPISODE,
  TYPICAL_EPISODE_SEQUENCE,
} from "../../base/ledger";
import { readJsonFile } from "../../base/runs/run-files";
import { RUN_FILES, runFile } from "../../base/runs/run-folder";
import type { PipelineSettings } from "./settings";
import { indexIsCurrent } from "../../base/search";
import { environmentRoles } from "../../envs/catalog";
import { offlineWorld } from "../../envs/registry";
import type { OfflineWorld, RealDataSource, RecipeData } from "../../harness/offline-world";

/** The declaration a run's settings are about: `env`'s, else the default environment's (its world, or its real data). */
export function settingsDeclaration(s: PipelineSettings): OfflineWorld {
  const world = s.env !== undefined ? offlineWorld(s.env) : defaultWorld();
  if (!world) throw new Error(`pipeline.json names ${s.env}, which declares no offline world`);
  return world;
}

/** The offline world a run is on (undefined: the recipe on real data, tinker). */
export function settingsWorld(s: PipelineSettings): OfflineWorld | undefined {
  return s.data.source === "synthetic" ? settingsDeclaration(s) : undefined;
}

/** The real data a paid run prepares (its environment's declaration). */
export function settingsRecipeData(s: PipelineSettings): RecipeData {
  const data = settingsDeclaration(s).recipeData;
  if (!data) throw new Error(`${settingsDeclaration(s).env.name} declares no real data for the paid path`);
  return data;
}

/** The stages a declaration without tools leaves out: it has no corpus to index, and no tools to take away. */
const TOOL_STAGES: readonly StageName[] = ["index", "eval-closed-book"];

export type StageName =
  | "world"
  | "prepare"
  | "index"
  | "eval-closed-book"
  | "eval-base"
  | "sft-data"
  | "train-sft"
  | "eval-sft"
  | "train-grpo"
  | "eval-grpo"
  | "ablate";

/** Run folders under runsDir, one per stage that writes a run. */
export const RUN_NAMES = {
  closedBook: "closed-book",
  base: "base",
  sftData: "sft-data",
  sft: "sft",
  sftEval: "sft-final",
  grpo: "grpo",
  grpoEval: "grpo-final",
} as const;

export const REPORT_FILE = "report.md";
/** The runs folder of a pipeline's folder (its agent-lab.json's runsDir). */
export const PIPELINE_RUNS_DIR = "runs";
export const ABLATION_FILE = "ablation.json";
export const STATE_FILE = "pipeline.json";

export type StageStatus = "done" | "partial" | "todo";

export interface PlannedStage {
  name: StageName;
  /** One line: what the stage does, with its size. */
  what: string;
  /** Paths (relative to the pipeline folder) the stage writes. */
  outputs: string[];
  /** USD estimate (0 on the local backend); an upper bound like the recipe's. */
  usd: number;
  status: StageStatus;
}

export interface PipelinePlan {
  settings: PipelineSettings;
  stages: PlannedStage[];
  totalUsd: number;
  /** Still to spend: the stages not done (partial ones counted whole, an upper bound). */
  remainingUsd: number;
}

/** Closed-book episodes are one short turn: no results in the prompt. */
const CLOSED_BOOK_EPISODE = Object.freeze({ prefill: 250, generated: 20 });

/** Status of a run folder: its completion file, else any file in it, else nothing. */
function runStatus(runDir: string, complete: () => boolean): StageStatus {
  if (complete()) return "done";
  return existsSync(runDir) ? "partial" : "todo";
}

function trainComplete(runDir: string, finalMarker: (row: Record<string, unknown>) => boolean): boolean {
  const file = runFile(runDir, "checkpoints");
  if (!existsSync(file)) return false;
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .some((l) => {
      try {
        return finalMarker(JSON.parse(l) as Record<string, unknown>);
      } catch {
        return false;
      }
    });
}

export interface PlanContext {
  /** The pipeline folder (workspace). */
  dir: string;
  config: AgentLabConfig;
  settings: PipelineSettings;
}

export function planPipeline({ dir, config, settings: s }: PlanContext): PipelinePlan {
  const prices: ModelPrices | null = s.backend === "tinker" ? pricesFor(config, config.model) : null;
  const runs = (name: string) => join(dir, config.runsDir, name);
  const dataDir = join(dir, config.dataDir);
  const declared = settingsDeclaration(s);
  const world = settingsWorld(s);
  const d = s.data;
  const real = d.source === "synthetic" ? undefined : settingsRecipeData(s);
  // The eval size of a world without split sizes of its own: the default environment's recipe's, as before worlds had their own.
  const splits = s.splits ?? (real ?? declared.recipeData ?? defaultWorld().recipeData)?.splits ?? { test: 0, val: 0 };
  // An upper bound: a dev set smaller than test + val leaves val short (the pipeline refuses an empty one).
  const valN = Math.min(s.evalLimit ?? splits.val, splits.val);
  const evalUsd = estimateEpisodesUsd(prices, valN, TYPICAL_EPISODE);
  const tools = declared.tools;
  const envData = declared.env.data.dir(dataDir);
  const envDataRel = relativeTo(dataDir, envData);
  const dataPath = (f: string) => `${config.dataDir}/${envDataRel ? `${envDataRel}/` : ""}${f}`;
  const primary = environmentRoles(declared.env.name).primary;
  const keep =
    primary.kind === "continuous" ? `keep ${primary.label} ≥ ${s.sftData.minF1}` : "keep those it gets right";
  const every: PlannedStage[] = [
    {
      name: "world",
      what: world && d.source === "synthetic" ? world.describe(d) : real!.describe(d as RealDataSource),
      outputs: world ? [...world.files] : real!.outputs(d as RealDataSource),
      usd: 0,
      status: (world ? world.written(dir) : existsSync(join(envData, SPLITS_FILE))) ? "done" : "todo",
    },
    {
      name: "prepare",
      what: world ? world.prepareWhat : real!.prepareWhat(splits),
      outputs: [dataPath(declared.preparedFiles ?? "{train,val,test}.jsonl")],
      usd: 0,
      status: existsSync(join(envData, SPLITS_FILE)) ? "done" : "todo",
    },
    {
      name: "index",
      what: "BM25 index over the corpus",
      outputs: [dataPath(`${tools?.index.dir}/`)],
      usd: 0,
      status: tools && indexIsCurrent(join(envData, tools.index.dir)) ? "done" : "todo", // an older format is rebuilt
    },
    {
      name: "eval-closed-book",
      what: `eval the base model closed-book on val (${valN} questions): the floor`,
      outputs: [`${config.runsDir}/${RUN_NAMES.closedBook}/`],
      usd: estimateEpisodesUsd(prices, valN, CLOSED_BOOK_EPISODE),
      status: runStatus(runs(RUN_NAMES.closedBook), () => evalComplete(runs(RUN_NAMES.closedBook))),
    },
    {
      name: "eval-base",
      what: `eval the base model${tools ? " with search" : ""} on val (${valN} questions)`,
      outputs: [`${config.runsDir}/${RUN_NAMES.base}/`],
      usd: evalUsd,
      status: runStatus(runs(RUN_NAMES.base), () => evalComplete(runs(RUN_NAMES.base))),
    },
    {
      name: "sft-data",
      what:
        s.sftData.role === "teacher"
          ? `SFT data from ${declared.teacherWhat}: ${s.sftData.questions} train questions, ${keep}`
          : `SFT data by rejection sampling: ${s.sftData.questions} train questions × ${s.sftData.tries} tries at T=${s.sftData.temperature}, keep the shortest trace with ${primary.label} ≥ ${s.sftData.minF1}${s.sftData.requireSearch === false ? "" : " that searched"}`,
      outputs: [`${config.runsDir}/${RUN_NAMES.sftData}/${RUN_FILES.sft}`],
      usd:
        s.sftData.role === "teacher"
          ? 0
          : estimateEpisodesUsd(prices, s.sftData.questions * s.sftData.tries, TYPICAL_EPISODE),
      status: runStatus(runs(RUN_NAMES.sftData), () => sftDataComplete(runs(RUN_NAMES.sftData))),
    },
    {
      name: "train-sft",
      what: `LoRA SFT: ${s.sft.epochs} epochs, batch ${s.sft.batch}, lr ${s.sft.lr} (linear decay)`,
      outputs: [`${config.runsDir}/${RUN_NAMES.sft}/`, `checkpoints ${RUN_NAMES.sft}-e1…e${s.sft.epochs}`],
      // Upper bound: every question kept, each a typical episode long.
      usd: estimateSftUsd(prices, s.sftData.questions * TYPICAL_EPISODE_SEQUENCE, s.sft.epochs),
      status: runStatus(runs(RUN_NAMES.sft), () => trainComplete(runs(RUN_NAMES.sft), (r) => r.epoch === s.sft.epochs)),
    },
    {
      name: "eval-sft",
      what: `eval the last SFT checkpoint (${RUN_NAMES.sft}-e${s.sft.epochs}) on val`,
      outputs: [`${config.runsDir}/${RUN_NAMES.sftEval}/`],
      usd: evalUsd,
      status: runStatus(runs(RUN_NAMES.sftEval), () => evalComplete(runs(RUN_NAMES.sftEval))),
    },
    {
      name: "train-grpo",
      what: `GRPO from the SFT state: ${s.grpo.steps} steps × ${s.grpo.questions} questions × ${s.grpo.group} episodes, lr ${s.grpo.lr}, T=${s.grpo.temperature}, train questions from ${s.sftData.questions}`,
      outputs: [`${config.runsDir}/${RUN_NAMES.grpo}/`, `checkpoint ${RUN_NAMES.grpo}-s${s.grpo.steps}`],
      usd: s.grpo.steps * estimateRlStepUsd(prices, s.grpo.questions * s.grpo.group),
      status: runStatus(runs(RUN_NAMES.grpo), () =>
        trainComplete(runs(RUN_NAMES.grpo), (r) => r.batch === s.grpo.steps),
      ),
    },
    {
      name: "eval-grpo",
      what: `eval the GRPO checkpoint (${RUN_NAMES.grpo}-s${s.grpo.steps}) on val`,
      outputs: [`${config.runsDir}/${RUN_NAMES.grpoEval}/`],
      usd: evalUsd,
      status: runStatus(runs(RUN_NAMES.grpoEval), () => evalComplete(runs(RUN_NAMES.grpoEval))),
    },
    {
      name: "ablate",
      what: tools
        ? "paired comparison on val (closed-book, base, SFT, GRPO; Δ against base with 95% bootstrap CIs) and the GRPO reward trend (always redone: cheap, and it prints the table)"
        : "paired comparison on val (base, SFT, GRPO; Δ against base with 95% CIs, the environment's tests) and the GRPO reward trend (always redone: cheap, and it prints the table)",
      outputs: [REPORT_FILE, ABLATION_FILE],
      usd: 0,
      status: "todo",
    },
  ];
  const stages = every.filter((st) => tools !== undefined || !TOOL_STAGES.includes(st.name));
  const totalUsd = stages.reduce((t, st) => t + st.usd, 0);
  const remainingUsd = stages.filter((st) => st.status !== "done").reduce((t, st) => t + st.usd, 0);
  return { settings: s, stages, totalUsd, remainingUsd };
}

/** `to` relative to `from` ("" when they are the same folder). */
const relativeTo = (from: string, to: string) =>
  to === from ? "" : to.startsWith(from + "/") ? to.slice(from.length + 1) : to;

function sftDataComplete(runDir: string): boolean {
  return readJsonFile<{ status?: string }>(runFile(runDir, "manifest"))?.status === "done";
}

/** The plan as the dry run and the start of a run print it. */
export function renderPlan(plan: PipelinePlan): string {
  const paid = plan.settings.backend === "tinker";
  const lines = plan.stages.map((st, i) => {
    const mark = st.status === "done" ? "done, skipped" : st.status === "partial" ? "partial, resumed" : "to do";
    const cost = paid ? `  ≈ $${st.usd.toFixed(2)}` : "";
    return `${String(i + 1).padStart(2)}. ${st.name.padEnd(17)} [${mark}]${cost}\n      ${st.what}\n      → ${st.outputs.join(", ")}`;
  });
  const total = paid
    ? `\nestimated cost: ≈ $${plan.totalUsd.toFixed(2)} in all, ≈ $${plan.remainingUsd.toFixed(2)} still to spend (upper bounds: no prefix cache, every SFT question kept)`
    : "\ncost: $0 (the local backend is free)";
  return lines.join("\n") + total;
}
