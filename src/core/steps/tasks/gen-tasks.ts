/**
 * `agent-lab gen-tasks` as a core function: candidates from a generator (a model with the
 * generation prompt, or the scripted generator) or from a file, then the counted filters, the
 * solve-rate filter trying each surviving task with the base policy. The output folder is a run
 * folder: manifest.json (what decides the result), the writer lock, progress.json, ledger.jsonl,
 * and the filter's files (tasks.jsonl, rejected.jsonl, audit.json, results.jsonl).
 *
 * Resumable: generation appends one row per draw to generation.jsonl (the draft inside), and the
 * filter caches every sandbox outcome and solve-rate try; a rerun of the same command continues
 * where the last stopped, and a rerun with other settings is refused naming the fields.
 * Budget: each draw and each task's tries is checked against the cap before it is sent.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ModelPrices } from "../../base/config";
import { UserError } from "../../base/errors";
import { BudgetExceededError, CostLedger, costUsd } from "../../base/ledger";
import { sha256File, sha256Hex } from "../../base/runs/manifest";
import { ProgressWriter, type ProgressStatus } from "../../base/runs/progress";
import { repairTornTail } from "../../base/runs/run-files";
import { writeFileAtomic, writeJsonAtomic } from "../../base/util/atomic-write";
import { openRunForWriting, refuseWriteIntoRun, runFile, type FieldChange } from "../../base/runs/run-folder";
import { appendJsonl, parseJsonl } from "../../base/util/jsonl";
import { readCandidates, readEvalItems } from "../../base/task-sets/candidates";
import { filterCandidates, type FilterAudit } from "./filter";
import { AUDIT_FILE } from "../../base/task-sets/files";
import type { TaskGenerator } from "./generators/generator";
import type { SandboxLimits, TaskSandbox } from "./sandbox/sandbox";
import type { TaskSolver } from "./solvers";
import { TASK_ANSWER_FORMAT, type TaskEnv } from "./task-env";
import type { StepContext } from "../specs/step-context";

/** Generated drafts, one row per draw (what a resume continues from). */
export const GENERATION_FILE = "generation.jsonl";
/** The drafts that parsed, as `{problem, solution}` lines: the filter's input. */
export const CANDIDATES_FILE = "candidates.jsonl";
export const GEN_TASKS_MANIFEST_FORMAT = "agent-lab.gen-tasks/1";

interface GenerationRow {
  index: number;
  ok: boolean;
  problem?: string;
  solution?: string;
  reason?: string;
  prefill: number;
  sampled: number;
}

export interface GenTasksManifest {
  kind: "gen-tasks";
  format: string;
  env: TaskEnv;
  source:
    | { kind: "candidates"; file: string; sha256: string }
    | { kind: "generator"; generator: string; count: number; prompt_file: string | null; prompt_sha256: string | null };
  solve_rate: { solver: string; tries: number } | null;
  eval_items: { file: string; sha256: string } | null;
  command: string[];
  created: string;
}

export interface GenTasksOptions extends StepContext {
  outDir: string;
  env: TaskEnv;
  /** `--candidates FILE`: filter these; else `generator` writes `count` draws first. */
  candidatesFile?: string;
  generator?: { generator: TaskGenerator; count: number; promptFile?: string; promptText?: string };
  evalItemsFile?: string;
  /** Absent: `--solve-rate off`. */
  solver?: TaskSolver;
  /** What one draw / one task's tries cost at most, for the cap (0 when free). */
  estimateDrawUsd?: number;
  estimateTaskUsd?: number;
  prices: ModelPrices | null;
  budgetUsd: number;
  limits?: Partial<SandboxLimits>;
  sandbox?: TaskSandbox;
}

export interface GenerationRecord {
  generator: string;
  prompt_file: string | null;
  prompt_sha256: string | null;
  requested: number;
  drawn: number;
  parsed: number;
  unparsed: number;
  unparsed_reasons: Record<string, number>;
  tokens: { prefill: number; sampled: number };
}

export interface GenTasksAudit extends FilterAudit {
  env: TaskEnv;
  generation: GenerationRecord | null;
  spend: { usd: number };
}

export interface GenTasksResult {
  status: "done" | "budget" | "interrupted";
  outDir: string;
  audit?: GenTasksAudit;
  message?: string;
}

/** The fields a resume must not change: they decide which tasks come out. */
function changes(stored: GenTasksManifest, now: GenTasksManifest): FieldChange[] {
  return (["format", "env", "source", "solve_rate", "eval_items"] as const)
    .filter((k) => JSON.stringify(stored[k]) !== JSON.stringify(now[k]))
    .map((k) => ({ field: k, was: stored[k], now: now[k] }));
}

/** A tasks folder is gen-tasks' own (new, or a gen-tasks run to resume), never inside or over another run. */
export function checkTasksFolder(outDir: string): void {
  refuseWriteIntoRun(outDir, { flag: "--out", own: "gen-tasks" satisfies GenTasksManifest["kind"] });
}

export async function genTasks(o: GenTasksOptions): Promise<GenTasksResult> {
  if (!o.candidatesFile === !o.generator)
    throw new UserError("give either --candidates FILE or a generator (--generator scripted, --model or --model-path)");
  const log = o.log ?? (() => {});
  // A bad or missing file is refused before the folder becomes a run.
  if (o.candidatesFile) readCandidates(o.candidatesFile);
  if (o.evalItemsFile) readEvalItems(o.evalItemsFile);
  const promptSha = o.generator?.promptText !== undefined ? sha256Hex(o.generator.promptText) : null;
  const manifest: GenTasksManifest = {
    kind: "gen-tasks",
    format: GEN_TASKS_MANIFEST_FORMAT,
    env: o.env,
    source: o.candidatesFile
      ? { kind: "candidates", file: o.candidatesFile, sha256: sha256File(o.candidatesFile) }
      : {
          kind: "generator",
          generator: o.generator!.generator.id,
          count: o.generator!.count,
          prompt_file: o.generator!.promptFile ?? null,
          prompt_sha256: promptSha,
        },
    solve_rate: o.solver ? { solver: o.solver.id, tries: o.solver.tries } : null,
    eval_items: o.evalItemsFile ? { file: o.evalItemsFile, sha256: sha256File(o.evalItemsFile) } : null,
    command: o.command,
    created: new Date().toISOString(),
  };
  checkTasksFolder(o.outDir);
  const resume = existsSync(runFile(o.outDir, "manifest"));
  const lock = openRunForWriting<GenTasksManifest>({
    runDir: o.outDir,
    resume,
    what: o.command.join(" "),
    create: manifest,
    changes: (stored) => changes(stored, manifest),
  });
  const ledger = CostLedger.open(o.outDir, { prices: o.prices, budgetUsd: o.budgetUsd });
  const progress = new ProgressWriter(o.outDir, {
    step: "gen-tasks",
    label: o.generator ? "generate" : "filter",
    unit: "task",
    planned: o.generator?.count ?? 0,
    usd: ledger.totalUsd,
    onUpdate: o.onProgress,
  });
  let status: ProgressStatus = "failed";
  try {
    let generation: GenerationRecord | null = null;
    let candidatesFile = o.candidatesFile!;
    if (o.generator) {
      const g = await generate(o, ledger, progress, log);
      if (g.stopped) {
        status = g.stopped.status === "interrupted" ? "interrupted" : "failed";
        return { status: g.stopped.status, outDir: o.outDir, message: g.stopped.message };
      }
      generation = g.record;
      candidatesFile = join(o.outDir, CANDIDATES_FILE);
    }
    progress.update({ label: "filter", done: 0, planned: countLines(candidatesFile) }, true);
    const solver = o.solver;
    const audit = await filterCandidates({
      candidatesFile,
      outDir: o.outDir,
      evalItemsFile: o.evalItemsFile,
      answerFormat: TASK_ANSWER_FORMAT[o.env],
      limits: o.limits,
      sandbox: o.sandbox,
      generationPromptSha256: promptSha,
      solveRate: solver && {
        id: solver.id,
        tries: solver.tries,
        solve: async (task) => {
          o.signal?.throwIfAborted();
          ledger.ensureCanSpend(o.estimateTaskUsd ?? 0, `the ${solver.tries} tries at ${task.id}`);
          return solver.solve(
            task,
            (u) =>
              ledger.record({ kind: "sample", prefill: u.prefill, sampled: u.sampled, label: `solve-rate ${task.id}` }),
            o.signal,
          );
        },
      },
      onProgress: (done, total) => progress.update({ done, planned: total, usd: ledger.totalUsd }),
      signal: o.signal,
    });
    // The filter's audit, with what only gen-tasks knows: the generation record and the spend.
    const full: GenTasksAudit = { ...audit, env: o.env, generation, spend: { usd: ledger.totalUsd } };
    writeJsonAtomic(join(o.outDir, AUDIT_FILE), full);
    status = "done";
    return { status: "done", outDir: o.outDir, audit: full };
  } catch (e) {
    if (e instanceof BudgetExceededError) {
      log(e.message);
      return { status: "budget", outDir: o.outDir, message: e.message };
    }
    if (o.signal?.aborted) {
      status = "interrupted";
      return { status: "interrupted", outDir: o.outDir, message: "interrupted; rerun the same command to continue" };
    }
    throw e;
  } finally {
    progress.finish(status, { usd: ledger.totalUsd });
    o.generator?.generator.close?.();
    lock.release();
  }
}

/** Draws up to `count` drafts (continuing after the rows already written), then writes candidates.jsonl. */
async function generate(
  o: GenTasksOptions,
  ledger: CostLedger,
  progress: ProgressWriter,
  log: (l: string) => void,
): Promise<
  { record: GenerationRecord; stopped?: undefined } | { stopped: { status: "budget" | "interrupted"; message: string } }
> {
  const { generator, count, promptFile } = o.generator!;
  const file = join(o.outDir, GENERATION_FILE);
  repairTornTail(file);
  const rows = existsSync(file)
    ? parseJsonl<GenerationRow>(readFileSync(file, "utf8"), file, { tolerateTornTail: true })
    : [];
  if (rows.length) log(`gen-tasks: ${rows.length} of ${count} drafts already drawn; continuing`);
  progress.update({ done: Math.min(rows.length, count) }, true);
  for (let i = rows.length; i < count; i++) {
    if (o.signal?.aborted)
      return { stopped: { status: "interrupted", message: `stopped after ${i} drafts; rerun to continue` } };
    try {
      ledger.ensureCanSpend(generator.paid ? (o.estimateDrawUsd ?? 0) : 0, `draft ${i}`);
    } catch (e) {
      if (e instanceof BudgetExceededError) return { stopped: { status: "budget", message: e.message } };
      throw e;
    }
    const g = await generator.generate(i, o.signal);
    const row: GenerationRow = g.ok
      ? {
          index: i,
          ok: true,
          problem: g.draft.problem,
          solution: g.draft.solution,
          prefill: g.prefill,
          sampled: g.sampled,
        }
      : { index: i, ok: false, reason: g.reason, prefill: g.prefill, sampled: g.sampled };
    appendJsonl(file, row);
    if (generator.paid) ledger.record({ kind: "sample", prefill: g.prefill, sampled: g.sampled, label: `draft ${i}` });
    rows.push(row);
    progress.update({ done: i + 1, usd: ledger.totalUsd });
  }
  const used = rows.slice(0, count);
  const parsed = used.filter((r) => r.ok);
  writeFileAtomic(
    join(o.outDir, CANDIDATES_FILE),
    parsed.map((r) => JSON.stringify({ problem: r.problem, solution: r.solution }) + "\n").join(""),
  );
  const reasons: Record<string, number> = {};
  for (const r of used) if (!r.ok) reasons[r.reason ?? "unparsed"] = (reasons[r.reason ?? "unparsed"] ?? 0) + 1;
  return {
    record: {
      generator: generator.id,
      prompt_file: promptFile ?? null,
      prompt_sha256: o.generator!.promptText !== undefined ? sha256Hex(o.generator!.promptText) : null,
      requested: count,
      drawn: used.length,
      parsed: parsed.length,
      unparsed: used.length - parsed.length,
      unparsed_reasons: reasons,
      tokens: { prefill: used.reduce((s, r) => s + r.prefill, 0), sampled: used.reduce((s, r) => s + r.sampled, 0) },
    },
  };
}

/** What one call of `tokens` costs at `prices` (0 when free): the budget check's estimate. */
export function usdFor(prices: ModelPrices | null, prefill: number, sampled: number): number {
  return costUsd(prices, { prefill, sampled });
}

function countLines(file: string): number {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim()).length;
}
