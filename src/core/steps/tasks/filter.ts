/**
 * The task filters behind `agent-lab gen-tasks`: candidates in, `tasks.jsonl`, `rejected.jsonl` and
 * `audit.json` out. Each candidate gets the first reason in FILTER_ORDER that it fails, or is
 * accepted:
 *
 *   eval-overlap → sandbox (error, timeout, memory, blocked:*, crash) → non-numeric → duplicate → solve-rate
 *
 * Overlap comes first so contaminated code never runs; duplicates are judged among candidates that
 * ran and gave a number, so a broken first copy does not shadow a working second one; the solve
 * rate, the only filter that costs money, comes last.
 *
 * Resumable and deterministic: the expensive results (sandbox outcomes, solve-rate tries) are
 * appended to DIR/results.jsonl keyed by the candidate's content hash, and every run decides all
 * candidates again in file order from them. A rerun after a crash, or with more candidates appended,
 * only executes what is new, and the same input gives the same bytes; only audit.json's `timings`
 * differ between runs.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { UserError } from "../../base/errors";
import { sha256File, sha256Hex } from "../../base/runs/manifest";
import { repairTornTail } from "../../base/runs/run-files";
import { writeFileAtomic, writeJsonAtomic } from "../../base/util/atomic-write";
import { appendJsonl, parseJsonl } from "../../base/util/jsonl";
import { answerOf, type AnswerFormat } from "./answer";
import { readCandidates, readEvalItems, type Candidate } from "../../base/task-sets/candidates";
import { EvalOverlapIndex, OVERLAP_NGRAM } from "../../base/task-sets/eval-overlap";
import { SANDBOX_REASONS, type SandboxOutcome } from "./sandbox/protocol";
import { DEFAULT_SANDBOX_LIMITS, PythonSandbox, type SandboxLimits, type TaskSandbox } from "./sandbox/sandbox";
import { solveRateVerdict, type SolveRate } from "./solve-rate";
import { normalizeText } from "../../base/task-sets/text";
import { TASKS_FILE, REJECTED_FILE, AUDIT_FILE, RESULTS_FILE, AUDIT_FORMAT } from "../../base/task-sets/files";

export const FILTER_ORDER = [
  "eval-overlap",
  ...SANDBOX_REASONS,
  "non-numeric",
  "non-text",
  "duplicate",
  "solve-rate:all-solved",
  "solve-rate:none-solved",
] as const;
export type FilterReason = (typeof FILTER_ORDER)[number];

export interface SolveRateFilter {
  /** Names the policy and decoding (e.g. model and checkpoint): cached tries are reused only for the same id. */
  id: string;
  tries: number;
  solve: SolveRate;
}

export interface FilterOptions {
  candidatesFile: string;
  outDir: string;
  evalItemsFile?: string;
  /** Absent: the solve-rate filter is off. */
  solveRate?: SolveRateFilter;
  limits?: Partial<SandboxLimits>;
  /** Runs the solutions (default: a PythonSandbox with `limits`). */
  sandbox?: TaskSandbox;
  /** sha256 of the generation prompt, when the candidates came from one. */
  generationPromptSha256?: string | null;
  /** What a solution must return (default "number": math word problems). */
  answerFormat?: AnswerFormat;
  onProgress?(done: number, total: number): void;
  /** Aborted: stop before the next candidate (what ran is cached, so a rerun continues), throwing its reason. */
  signal?: AbortSignal;
}

export interface TaskRecord {
  id: string;
  problem: string;
  answer: string;
  solution_sha256: string;
  solve_rate: number | null;
}

export interface RejectedRecord {
  id: string;
  line: number;
  reason: FilterReason;
  detail: string;
  problem: string;
}

export interface FilterAudit {
  format: string;
  candidates: { file: string; sha256: string; count: number };
  accepted: number;
  rejected: number;
  yield: number;
  filter_order: readonly FilterReason[];
  counts: Record<FilterReason, number>;
  eval_overlap: null | {
    file: string;
    sha256: string;
    items: number;
    ngram: number;
    count: number;
    exact: number;
    ngram_matches: number;
  };
  answer_format: AnswerFormat;
  solve_rate: { mode: "off" } | { mode: "policy"; policy: string; tries: number; histogram: Record<string, number> };
  hashes: {
    generation_prompt_sha256: string | null;
    sandbox_code_sha256: string;
    tasks_sha256: string;
    rejected_sha256: string;
  };
  limits: { timeout_ms: number; memory_bytes: number };
  /** The only field that differs between two runs on the same input. */
  timings: {
    total_ms: number;
    sandbox_ms: number;
    solve_rate_ms: number;
    executed: number;
    reused: number;
    worker_starts: number;
  };
}

type CachedResult = { key: string; sandbox: SandboxOutcome } | { key: string; policy: string; tries: boolean[] };

interface CacheHeader {
  sandbox_code_sha256: string;
  timeout_ms: number;
  memory_bytes: number;
}

export function candidateId(c: Candidate): string {
  return `task-${sha256Hex(`${c.problem}\n${c.solution}`).slice(0, 16)}`;
}

export async function filterCandidates(options: FilterOptions): Promise<FilterAudit> {
  const t0 = Date.now();
  const candidates = readCandidates(options.candidatesFile);
  const evalItems = options.evalItemsFile ? readEvalItems(options.evalItemsFile) : undefined;
  const overlapIndex = evalItems ? new EvalOverlapIndex(evalItems) : undefined;
  const sandbox = options.sandbox ?? new PythonSandbox({ ...DEFAULT_SANDBOX_LIMITS, ...options.limits });
  const limits = sandbox.limits;
  const answerFormat = options.answerFormat ?? "number";
  const cache = openCache(options.outDir, {
    sandbox_code_sha256: sandbox.codeSha256,
    timeout_ms: limits.timeoutMs,
    memory_bytes: limits.memoryBytes,
  });

  const tasks: TaskRecord[] = [];
  const rejected: RejectedRecord[] = [];
  const counts = Object.fromEntries(FILTER_ORDER.map((r) => [r, 0])) as Record<FilterReason, number>;
  const seen = new Map<string, number>();
  const histogram: Record<string, number> = {};
  if (options.solveRate) for (let i = 0; i <= options.solveRate.tries; i++) histogram[String(i)] = 0;
  let exact = 0;
  let ngram = 0;
  const timings = { sandbox_ms: 0, solve_rate_ms: 0, executed: 0, reused: 0 };

  try {
    // The sandbox first, `sandbox.concurrency` tasks at a time; the decisions below then go in file
    // order from the outcomes, so the worker that ran a task or the order they finished in changes nothing.
    const outcomes = await runSandbox(
      candidates.filter((c) => !overlapIndex?.find(c.problem)),
      sandbox,
      cache,
      timings,
      options.solveRate ? undefined : options.onProgress,
      candidates.length,
      options.signal,
    );
    for (const [i, c] of candidates.entries()) {
      options.signal?.throwIfAborted();
      const id = candidateId(c);
      const reject = (reason: FilterReason, detail: string) => {
        counts[reason]++;
        rejected.push({ id, line: c.line, reason, detail, problem: c.problem });
      };
      if (options.solveRate) options.onProgress?.(i, candidates.length);

      const overlap = overlapIndex?.find(c.problem);
      if (overlap) {
        if (overlap.kind === "exact") exact++;
        else ngram++;
        reject(
          "eval-overlap",
          overlap.kind === "exact"
            ? `same text as eval item at line ${overlap.evalLine}`
            : `shares a ${OVERLAP_NGRAM}-word run with eval item at line ${overlap.evalLine}`,
        );
        continue;
      }

      const outcome = outcomes.get(id);
      if (!outcome) throw new Error(`internal: no sandbox outcome for ${id}`);
      if (!outcome.ok) {
        reject(outcome.reason, outcome.detail);
        continue;
      }
      const answer = answerOf(outcome.value, answerFormat);
      if (answer === undefined) {
        reject(
          answerFormat === "number" ? "non-numeric" : "non-text",
          `solution() returned ${outcome.value.type}${outcome.value.repr ? ` ${outcome.value.repr}` : ""}`,
        );
        continue;
      }
      const text = normalizeText(c.problem);
      const first = seen.get(text);
      if (first !== undefined) {
        reject("duplicate", `same problem as line ${first}`);
        continue;
      }
      seen.set(text, c.line);

      let rate: number | null = null;
      if (options.solveRate) {
        const f = options.solveRate;
        let tries = cache.tries.get(`${f.id}\n${id}`);
        if (!tries) {
          const s = Date.now();
          tries = await f.solve({ id, problem: c.problem, answer });
          timings.solve_rate_ms += Date.now() - s;
          if (tries.length !== f.tries)
            throw new Error(`the solve-rate policy returned ${tries.length} tries for ${id}, expected ${f.tries}`);
          cache.add({ key: id, policy: f.id, tries });
        }
        const verdict = solveRateVerdict(tries);
        histogram[String(verdict.solved)]++;
        if (!verdict.keep) {
          reject(verdict.reason, `solved ${verdict.solved}/${verdict.tries}`);
          continue;
        }
        rate = verdict.rate;
      }
      tasks.push({ id, problem: c.problem, answer, solution_sha256: sha256Hex(c.solution), solve_rate: rate });
    }
    options.onProgress?.(candidates.length, candidates.length);
  } finally {
    sandbox.close();
  }

  const tasksText = tasks.map((t) => JSON.stringify(t) + "\n").join("");
  const rejectedText = rejected.map((r) => JSON.stringify(r) + "\n").join("");
  writeFileAtomic(join(options.outDir, TASKS_FILE), tasksText);
  writeFileAtomic(join(options.outDir, REJECTED_FILE), rejectedText);
  const audit: FilterAudit = {
    format: AUDIT_FORMAT,
    candidates: {
      file: basename(options.candidatesFile),
      sha256: sha256File(options.candidatesFile),
      count: candidates.length,
    },
    accepted: tasks.length,
    rejected: rejected.length,
    yield: candidates.length ? Number((tasks.length / candidates.length).toFixed(4)) : 0,
    filter_order: FILTER_ORDER,
    counts,
    eval_overlap:
      options.evalItemsFile && evalItems
        ? {
            file: basename(options.evalItemsFile),
            sha256: sha256File(options.evalItemsFile),
            items: evalItems.length,
            ngram: OVERLAP_NGRAM,
            count: exact + ngram,
            exact,
            ngram_matches: ngram,
          }
        : null,
    answer_format: answerFormat,
    solve_rate: options.solveRate
      ? { mode: "policy", policy: options.solveRate.id, tries: options.solveRate.tries, histogram }
      : { mode: "off" },
    hashes: {
      generation_prompt_sha256: options.generationPromptSha256 ?? null,
      sandbox_code_sha256: sandbox.codeSha256,
      tasks_sha256: sha256Hex(tasksText),
      rejected_sha256: sha256Hex(rejectedText),
    },
    limits: { timeout_ms: limits.timeoutMs, memory_bytes: limits.memoryBytes },
    timings: { total_ms: Date.now() - t0, ...timings, worker_starts: sandbox.starts },
  };
  writeJsonAtomic(join(options.outDir, AUDIT_FILE), audit);
  return audit;
}

/**
 * Each distinct candidate's sandbox outcome, from the cache or a run. A run's outcome is cached
 * only when it was clean (see TaskSandbox.run): one that may carry another task's doing would
 * otherwise outlive this run under this candidate's hash.
 */
async function runSandbox(
  candidates: Candidate[],
  sandbox: TaskSandbox,
  cache: ReturnType<typeof openCache>,
  timings: { sandbox_ms: number; executed: number; reused: number },
  onProgress: FilterOptions["onProgress"],
  total: number,
  signal: AbortSignal | undefined,
): Promise<Map<string, SandboxOutcome>> {
  const outcomes = new Map<string, SandboxOutcome>();
  const todo = new Map<string, Candidate>();
  for (const c of candidates) {
    const id = candidateId(c);
    const cached = cache.sandbox.get(id);
    if (cached) {
      timings.reused++;
      outcomes.set(id, cached);
    } else if (todo.has(id)) {
      timings.reused++; // the same problem and solution again: one run serves both
    } else todo.set(id, c);
  }
  let done = total - todo.size;
  onProgress?.(done, total);
  const s = Date.now();
  const queue = [...todo];
  let next = 0;
  const lane = async () => {
    for (let item = queue[next++]; item; item = queue[next++]) {
      signal?.throwIfAborted(); // a stop request lets the tasks running finish and starts no other
      const [id, c] = item;
      const { outcome, clean } = await sandbox.execute(c.solution);
      timings.executed++;
      outcomes.set(id, outcome);
      if (clean) cache.add({ key: id, sandbox: outcome });
      onProgress?.(++done, total);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, sandbox.concurrency) }, lane));
  timings.sandbox_ms += Date.now() - s;
  return outcomes;
}

/**
 * DIR/results.jsonl: a header line with what the sandbox outcomes depend on, then one result per
 * line. Results from another sandbox build or other limits would mix two experiments: refused.
 */
function openCache(outDir: string, header: CacheHeader) {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, RESULTS_FILE);
  const sandbox = new Map<string, SandboxOutcome>();
  const tries = new Map<string, boolean[]>();
  if (existsSync(file)) {
    repairTornTail(file);
    const [first, ...rows] = parseJsonl<CacheHeader | CachedResult>(readFileSync(file, "utf8"), file, {
      tolerateTornTail: true,
    });
    const old = first as CacheHeader | undefined;
    if (old) {
      const differs = (Object.keys(header) as (keyof CacheHeader)[]).filter((k) => old[k] !== header[k]);
      if (differs.length) {
        throw new UserError(
          `${file}: its results come from a different ${differs.join(", ")}; filter into a new --out folder (or delete this one)`,
        );
      }
    }
    for (const r of rows as CachedResult[]) {
      if ("sandbox" in r) sandbox.set(r.key, r.sandbox);
      else tries.set(`${r.policy}\n${r.key}`, r.tries);
    }
    if (!old) appendJsonl(file, header);
  } else {
    appendJsonl(file, header);
  }
  return {
    sandbox,
    tries,
    add(r: CachedResult) {
      appendJsonl(file, r);
    },
  };
}
