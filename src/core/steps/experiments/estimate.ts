/**
 * An experiment's cost before it starts, phase by phase, in the ledger's terms (upper bounds, like
 * every step's estimate): generation and solve-rate tries, each arm's SFT and GRPO, and the
 * evaluation of base and every arm. The local backend is free, and so is a rehearsal against the
 * local stand-in (`free`). `phases` gives each phase's share, so the experiment can check the
 * budget before every phase.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { pricesFor } from "../../base/config";
import { DEFAULT_CONFIG } from "../../envs/config";
import { environmentInfo } from "../../envs/catalog";
import { costUsd } from "../../base/ledger";
import { TYPICAL_EPISODE } from "../../base/ledger/estimates";
import { estimateGenTasks, estimateSftTraining, SOLVE_PROMPT_TOKENS, type Estimate } from "../specs/estimate";
import { rehearsalSpec } from "./rehearsal";
import { generateOf, readExperimentSpec, type ExperimentSpec, type SftRecipe } from "./spec";
import { RUN_FILES } from "../../base/runs/run-folder";

export interface ExperimentEstimate {
  usd: number;
  lines: { phase: string; what: string; usd: number }[];
  /** Every phase's estimate (phases.json's names; eval split evenly over base and the arms). */
  phases: Record<string, number>;
}

export interface EstimateOptions {
  /** Price everything at $0 (a rehearsal against Agent Lab's local stand-in). */
  free?: boolean;
  /** Where SFT data files are read to count their rows (the experiment's workspace). */
  resolve?: (path: string) => string;
}

/** Items a whole-split evaluation is estimated at for an environment that declares no `evalItems`. */
export const DEFAULT_EVAL_ITEMS = 1000;

/** One episode's tokens in the evaluated environment: the recipe's search episode with tools, else one reply. */
function episodeSize(spec: ExperimentSpec): { prefill: number; generated: number } {
  return environmentInfo(spec.evaluation.env)?.hasTools
    ? TYPICAL_EPISODE
    : { prefill: SOLVE_PROMPT_TOKENS, generated: spec.evaluation.decoding.max_tokens };
}

/** SFT examples a recipe trains on, when knowable before the run (a teacher's questions, a file's lines). */
function sftExamples(sft: SftRecipe, o: EstimateOptions): number | undefined {
  if (sft.data.kind === "teacher") return sft.data.questions;
  if (sft.data.kind !== "file") return undefined;
  const file = o.resolve ? o.resolve(sft.data.path) : sft.data.path;
  const sftFile = existsSync(file) && !file.endsWith(".jsonl") ? `${file}/${RUN_FILES.sft}` : file;
  return existsSync(sftFile)
    ? readFileSync(sftFile, "utf8")
        .split("\n")
        .filter((l) => l.trim()).length
    : undefined;
}

export function estimateExperiment(spec: ExperimentSpec, o: EstimateOptions = {}): ExperimentEstimate {
  const lines: ExperimentEstimate["lines"] = [];
  const paid = spec.backend === "tinker" && !o.free;
  const config = { ...DEFAULT_CONFIG, model: spec.base_model };
  const prices = paid ? pricesFor(config, spec.base_model) : null;
  const ep = episodeSize(spec);
  const episodeUsd = costUsd(prices, { prefill: ep.prefill, sampled: ep.generated });
  const sftLine = (phase: string, sft: SftRecipe) => {
    const n = sftExamples(sft, o);
    const e = paid ? estimateSftTraining(config, spec.base_model, n ?? 0, sft.epochs) : { usd: 0, basis: "free" };
    lines.push({
      phase,
      what: `SFT ${sft.epochs} epochs on ${n === undefined ? `${sft.data.kind === "runs" ? "episodes of runs already paid for" : "data"} (rows known at run time; not in this estimate)` : `${n} examples`}: ${e.basis}`,
      usd: e.usd,
    });
  };
  if (spec.init.kind === "sft") sftLine("init:sft", spec.init.sft);
  for (const a of spec.arms) {
    const g = generateOf(a);
    if (g) {
      const calls = g.generator === "model" || g.solve_rate.mode === "policy";
      const e = !calls
        ? { usd: 0, basis: "no model calls (scripted)" }
        : paid
          ? estimateGenTasks(
              config,
              spec.base_model,
              g.count,
              g.solve_rate.tries,
              g.max_tokens ?? ep.generated,
              g.generator === "model",
              g.solve_rate.mode === "policy",
            )
          : { usd: 0, basis: "free" };
      lines.push({
        phase: `tasks:${a.name}`,
        what: `${g.count} ${g.generator} drafts, solve rate ${g.solve_rate.mode} × ${g.solve_rate.tries}: ${e.basis}`,
        usd: e.usd,
      });
    }
  }
  for (const a of spec.arms) {
    if (a.sft) sftLine(`sft:${a.name}`, a.sft);
    const g = a.grpo;
    if (!g) continue;
    const episodes = g.steps * g.questions * g.group;
    const usd = episodes * episodeUsd + costUsd(prices, { trained: episodes * (ep.prefill + ep.generated) });
    lines.push({
      phase: `train:${a.name}`,
      what: `GRPO ${g.steps} steps × ${g.questions} × ${g.group} = ${episodes} episodes (~${ep.prefill} + ${ep.generated} tokens each, all trained)`,
      usd,
    });
  }
  const n = spec.evaluation.n ?? environmentInfo(spec.evaluation.env)?.evalItems ?? DEFAULT_EVAL_ITEMS;
  const evals = spec.arms.length + 1;
  const evalUsd = evals * n * episodeUsd;
  lines.push({
    phase: "eval",
    what: `base + ${spec.arms.length} arms × ${n} items × ~${ep.prefill} + ${ep.generated} tokens${spec.evaluation.n === null ? " (the whole split)" : ""}`,
    usd: evalUsd,
  });
  const phases: Record<string, number> = {};
  for (const l of lines) if (l.phase !== "eval") phases[l.phase] = l.usd;
  for (const arm of ["base", ...spec.arms.map((a) => a.name)]) phases[`eval:${arm}`] = evalUsd / evals;
  return { usd: lines.reduce((s, l) => s + l.usd, 0), lines, phases };
}

/** A spec file's backend without the full check (for `spends`); undefined when it cannot be read (the run then says why). */
export function experimentBackend(file: string | undefined, workspaceDir?: string): string | undefined {
  if (!file) return undefined;
  const path = workspaceDir && !isAbsolute(file) ? join(workspaceDir, file) : file;
  try {
    const backend = (JSON.parse(readFileSync(path, "utf8")) as { backend?: unknown }).backend;
    return typeof backend === "string" ? backend : undefined;
  } catch (e) {
    if (e instanceof SyntaxError || (e as NodeJS.ErrnoException).code === "ENOENT") return undefined; // the estimate reads it properly and says file:line
    throw e;
  }
}

/**
 * `experiment run SPEC.json` as a step's estimate (the extension's confirmation, from the same
 * numbers `--dry-run` prints): the phases' total, each phase's share in the basis, the budget cap.
 * A rehearsal is estimated at the recipe's prices (the server is asked only when it starts).
 */
export function experimentStepEstimate(file: string, o: { rehearse?: boolean; workspaceDir?: string } = {}): Estimate {
  const path = o.workspaceDir && !isAbsolute(file) ? join(o.workspaceDir, file) : file;
  const read = readExperimentSpec(path).spec;
  const spec = o.rehearse ? rehearsalSpec(read) : read;
  const e = estimateExperiment(spec);
  const phases = e.lines.map((l) => `${l.phase} ≈ $${l.usd.toFixed(2)}`).join(", ");
  const cap =
    spec.budget_usd > 0
      ? `; budget_usd $${spec.budget_usd.toFixed(2)} caps the whole experiment (checked before every phase)`
      : "";
  return {
    usd: e.usd,
    basis: `experiment ${spec.name}${o.rehearse ? " (rehearsal, tiny sizes)" : ""}: ${phases}${cap}`,
  };
}
