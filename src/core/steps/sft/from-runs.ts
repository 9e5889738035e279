/**
 * `agent-lab sft-data --from-runs RUN...`: SFT data from episodes that existing eval and GRPO runs
 * already sampled and scored (seed 002's idea): no new sampling, no spend.
 *
 * - Source runs must match what the model will train with: the same environment and system prompt
 *   (the one this command would send), and one tokenizer across them (token ids mean nothing under
 *   another). Runs that do not are skipped, each with its reason.
 * - Per question (a GRPO episode counts for its `question_id`): episodes with reward ≥ minReward
 *   (and, where the environment asks for it, at least one tool call — "that searched"), never a
 *   question val or test holds (by id and by normalised text), the best K by reward, the newest first
 *   among equal rewards (a later run, then a later line).
 * - Examples are the episode's own token ids with weights on sampled tokens; with `perTurn`, one
 *   example per assistant turn, the earlier turns (and what the harness inserted) as context.
 * - The lineage manifest (the sft-data shape, so every reader of sft-data runs reads it) lists the
 *   source runs with their fingerprints' sha256, and those skipped with why.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import type { AgentLabConfig } from "../../base/config";
import { UserError } from "../../base/errors";
import { describeEnvironment, environmentField, manifestEnvironment } from "../../envs/manifest-environment";
import { environmentPrompt } from "../../envs/prompt";
import type { EnvItem, Environment } from "../../harness/environment";
import { HARNESS_VERSION, resolveEnvironment } from "../eval/eval-split";
import { readEpisodes, readJsonFile, type EpisodeRecord } from "../../base/runs/run-files";
import { writeJsonAtomic } from "../../base/util/atomic-write";
import { sha256File } from "../../base/runs/manifest";
import {
  checkRunName,
  describeHolder,
  openRunForWriting,
  refuseWriteIntoRun,
  runWriter,
  RUN_FILES,
  type LockHolder,
} from "../../base/runs/run-folder";
import { HeldOutQuestions } from "./held-out";
import { SFT_MANIFEST_FORMAT, type FileHash, type SftDataManifest } from "./lineage";
import { fileSha256, sftPath, SFT_FILE, type SftRow, type TraceSource } from "./sft-files";
import { environmentMetrics } from "../../envs/catalog";

export interface FromRunsOptions {
  workspaceDir: string;
  config: AgentLabConfig;
  env?: string | Environment<EnvItem>;
  name: string;
  /** Run folders, or names under runsDir. */
  runs: string[];
  minReward: number;
  /** How the refusal names the threshold (default "--min-reward"; an experiment names its spec field). */
  minRewardFlag?: string;
  bestOf: number;
  perTurn: boolean;
  promptFile?: string;
  command: string[];
  log?: (line: string) => void;
}

export interface SourceRun {
  name: string;
  kind: string;
  /** sha256 of the source manifest without its job fields (what decides its numbers). */
  fingerprint_sha256: string;
  policy?: { kind?: string; model?: string; checkpoint?: string };
  episodes: number;
  used: number;
  /** Who was still writing the run when its episodes were read (absent: nobody; its episodes were complete). */
  being_written?: { by: string; since: string };
}

export interface SkippedRun {
  name: string;
  reason: string;
}

export interface FromRunsResult {
  runDir: string;
  manifest: SftDataManifest;
  rows: number;
  skipped: SkippedRun[];
}

const inWorkspace = (ws: string, p: string) => (isAbsolute(p) ? p : join(ws, p));

interface Candidate {
  record: EpisodeRecord;
  questionId: string;
  /** Newer is larger: (run's creation order, line). */
  age: [number, number];
  run: number;
}

interface LoadedRun {
  name: string;
  kind: string;
  manifest: Record<string, unknown>;
  created: string;
  episodes: EpisodeRecord[];
  /** The live writer of the run as it was read, if any. */
  writer: LockHolder | undefined;
}

/** Manifest fields that describe the job, not the experiment. */
const JOB_FIELDS = new Set(["job", "command", "created", "resumed", "status", "updated"]);

function fingerprintSha(manifest: Record<string, unknown>): string {
  const kept = Object.fromEntries(Object.entries(manifest).filter(([k]) => !JOB_FIELDS.has(k)));
  return createHash("sha256").update(JSON.stringify(kept)).digest("hex");
}

function loadRun(path: string, o: FromRunsOptions): LoadedRun | SkippedRun {
  const runsDir = inWorkspace(o.workspaceDir, o.config.runsDir);
  const dir = existsSync(path) ? path : join(runsDir, path);
  const name = basename(dir.replace(/[\\/]+$/, ""));
  if (!existsSync(dir)) throw new UserError(`--from-runs ${path}: no run folder (looked at ${path} and ${dir})`);
  const manifest = readJsonFile<Record<string, unknown>>(join(dir, RUN_FILES.manifest));
  if (!manifest) return { name, reason: "no manifest.json, so nothing says how its episodes were made" };
  const episodes = readEpisodes(dir, environmentMetrics);
  if (episodes.length === 0)
    return { name, reason: "no episodes.jsonl (only eval and GRPO runs hold scored episodes)" };
  // Taken before its episodes are read: a writer that finishes meanwhile still counts as one.
  const writer = runWriter(dir);
  const kind = typeof manifest.kind === "string" ? manifest.kind : "eval";
  const job = manifest.job as { created?: string } | undefined;
  const created = String(job?.created ?? manifest.created ?? "");
  return { name, kind, manifest, created, episodes, writer };
}

/** The runs as given, each once: a run named twice (by name or by path) counts once, said in `log`. */
function distinctRuns(o: FromRunsOptions): string[] {
  const runsDir = inWorkspace(o.workspaceDir, o.config.runsDir);
  const seen = new Map<string, string>();
  for (const path of o.runs) {
    const dir = resolve(existsSync(path) ? path : join(runsDir, path));
    const first = seen.get(dir);
    if (first === undefined) seen.set(dir, path);
    else o.log?.(`--from-runs: ${path} is ${first} again; each run counts once`);
  }
  return [...seen.values()];
}

export function sftFromRuns(o: FromRunsOptions): FromRunsResult {
  checkRunName(o.name);
  if (o.runs.length === 0) throw new UserError("--from-runs needs at least one run (a folder, or a name under runs/)");
  if (!Number.isInteger(o.bestOf) || o.bestOf < 1)
    throw new UserError(`--best-of must be an integer ≥ 1, got ${o.bestOf}`);
  if (!Number.isFinite(o.minReward)) throw new UserError(`--min-reward must be a number, got ${o.minReward}`);
  const env = resolveEnvironment(o.env, o.config);
  const dataDir = env.data.dir(inWorkspace(o.workspaceDir, o.config.dataDir));
  const runDir = join(inWorkspace(o.workspaceDir, o.config.runsDir), o.name);
  refuseWriteIntoRun(runDir, { flag: "--name", own: true });
  const prompt = environmentPrompt(env, { promptFile: o.promptFile, config: o.config, workspaceDir: o.workspaceDir });
  const heldOut = HeldOutQuestions.fromDataDir(dataDir);

  const skipped: SkippedRun[] = [];
  const runs: LoadedRun[] = [];
  let tokenizer: string | undefined;
  const given = distinctRuns(o);
  for (const path of given) {
    const r = loadRun(path, o);
    if ("reason" in r) {
      skipped.push(r);
      continue;
    }
    const runEnv = manifestEnvironment(r.manifest);
    const sp = r.manifest.system_prompt as { sha256?: string } | undefined;
    const tok = typeof r.manifest.tokenizer === "string" ? r.manifest.tokenizer : undefined;
    if (runEnv.name !== env.name || runEnv.version !== env.version)
      skipped.push({
        name: r.name,
        reason: `environment ${describeEnvironment(runEnv)}, not ${describeEnvironment(env)}`,
      });
    else if (sp?.sha256 !== prompt.manifest.sha256)
      skipped.push({
        name: r.name,
        reason: `system prompt ${String(sp?.sha256).slice(0, 12)} differs from the one training will use (${prompt.manifest.file}, ${prompt.manifest.sha256.slice(0, 12)})`,
      });
    else if (tokenizer !== undefined && tok !== tokenizer)
      skipped.push({ name: r.name, reason: `tokenizer ${tok}, not ${tokenizer} like the runs before it` });
    else {
      tokenizer = tok;
      runs.push(r);
      if (r.writer)
        o.log?.(
          `note: ${r.name} is still being written by ${describeHolder(r.writer)}: its ${r.episodes.length} episodes so far are used, and its manifest's lineage says so`,
        );
    }
  }
  for (const s of skipped) o.log?.(`skipped ${s.name}: ${s.reason}`);
  if (runs.length === 0)
    throw new UserError(
      `no usable run among ${o.runs.join(", ")}: ${skipped.map((s) => `${s.name} (${s.reason})`).join("; ")}`,
    );

  // Older runs first, so "newest wins ties" compares (run order, line).
  const order = runs.map((_, i) => i).sort((a, b) => runs[a].created.localeCompare(runs[b].created) || a - b);
  const byQuestion = new Map<string, Candidate[]>();
  const excluded = new Map<string, NonNullable<ReturnType<HeldOutQuestions["match"]>>>();
  let bestEligible = -Infinity;
  order.forEach((runIndex, rank) => {
    runs[runIndex].episodes.forEach((record, line) => {
      const questionId =
        typeof (record as { question_id?: unknown }).question_id === "string"
          ? (record as unknown as { question_id: string }).question_id
          : record.id;
      const hit = heldOut.match({ id: questionId, question: record.question });
      if (hit) return void excluded.set(questionId, hit);
      bestEligible = Math.max(bestEligible, record.reward);
      if (record.reward < o.minReward || (env.sftRequiresToolUse && record.searches.length === 0)) return;
      const list = byQuestion.get(questionId) ?? [];
      list.push({ record, questionId, age: [rank, line], run: runIndex });
      byQuestion.set(questionId, list);
    });
  });

  if (byQuestion.size === 0) {
    const names = runs.map((r) => r.name).join(", ");
    throw new UserError(
      bestEligible === -Infinity
        ? `every episode of ${names} answers a val or test question: nothing to train on; give runs on train questions`
        : `${o.minRewardFlag ?? "--min-reward"} ${o.minReward} selects no episode of ${names} (their best reward is ${bestEligible}${env.sftRequiresToolUse ? "; only episodes that called a tool count" : ""}): lower it or give other runs; no run was written`,
    );
  }
  const used = runs.map(() => 0);
  const rows: SftRow[] = [];
  for (const [questionId, candidates] of byQuestion) {
    candidates.sort((a, b) => b.record.reward - a.record.reward || b.age[0] - a.age[0] || b.age[1] - a.age[1]);
    candidates.slice(0, o.bestOf).forEach((c, k) => {
      used[c.run]++;
      const source = sourceOf(runs[c.run]);
      const id = o.bestOf > 1 ? `${questionId}#${k + 1}` : questionId;
      rows.push(...(o.perTurn ? perTurnRows(c.record, id, source) : [wholeRow(c.record, id, source)]));
    });
  }

  const lock = openRunForWriting<SftDataManifest>({
    runDir,
    resume: false,
    what: ["agent-lab", "sft-data", "--from-runs", "--name", o.name].join(" "),
    changes: () => [],
  });
  try {
    mkdirSync(runDir, { recursive: true });
    writeFileSync(sftPath(runDir), rows.map((r) => JSON.stringify(r) + "\n").join(""));
    const hash = (split: string): FileHash | undefined => {
      const file = join(dataDir, `${split}.jsonl`);
      return existsSync(file) ? { file: `${split}.jsonl`, sha256: sha256File(file) } : undefined;
    };
    const first = runs[0].manifest;
    const policy = (first.policy ?? {}) as { kind?: string; model?: string; checkpoint?: string; logprobs?: boolean };
    const rule = `from existing runs: the best ${o.bestOf} per question by reward (newest first among equals) with reward >= ${o.minReward}${env.sftRequiresToolUse ? " and at least one tool call" : ""}${o.perTurn ? ", one example per assistant turn" : ""}`;
    const now = new Date().toISOString();
    const manifest: SftDataManifest = {
      format: SFT_MANIFEST_FORMAT,
      status: "done",
      fingerprint: {
        ...environmentField(env),
        source: {
          role: "self",
          kind: "from-runs",
          model: String(policy.model ?? first.base_model ?? "?"),
          logprobs: rows.every((r) => r.logprobs !== null),
        },
        acceptance: { minF1: o.minReward, requireSearch: env.sftRequiresToolUse, tries: 0, rule },
        sampling: (first.sampling as SftDataManifest["fingerprint"]["sampling"]) ?? { temperature: 0, max_tokens: 0 },
        system_prompt: prompt.manifest,
        harness_version: HARNESS_VERSION,
        scorer_version: env.scorerVersion,
        tokenizer: tokenizer ?? "?",
        data: {
          ...(hash("train") ? { train: hash("train")! } : { train: { file: "(none)", sha256: "" } }),
          ...(hash("val") ? { val: hash("val") } : {}),
          ...(hash("test") ? { test: hash("test") } : {}),
        },
        from_runs: runs.map((r, i): SourceRun => ({
          name: r.name,
          kind: r.kind,
          fingerprint_sha256: fingerprintSha(r.manifest),
          ...(r.manifest.policy ? { policy: r.manifest.policy as SourceRun["policy"] } : {}),
          episodes: r.episodes.length,
          used: used[i],
          ...(r.writer ? { being_written: { by: r.writer.what, since: r.writer.since } } : {}),
        })),
        per_turn: o.perTurn,
        best_of: o.bestOf,
      },
      counts: {
        questions: byQuestion.size,
        tries: 0,
        episodes: runs.reduce((n, r) => n + r.episodes.length, 0),
        kept: rows.length,
        solved: byQuestion.size,
      },
      solved_at_n: 0,
      avg_searches: rows.length ? rows.reduce((s, r) => s + r.searches.length, 0) / rows.length : 0,
      usd: 0,
      output: { file: SFT_FILE, rows: rows.length, sha256: fileSha256(sftPath(runDir)) },
      held_out_excluded: [...excluded.values()],
      job: { command: o.command, created: now, updated: now, offset: 0, questions: byQuestion.size },
      skipped_runs: skipped,
    };
    writeJsonAtomic(join(runDir, RUN_FILES.manifest), manifest);
    return { runDir, manifest, rows: rows.length, skipped };
  } finally {
    lock.release();
  }
}

function sourceOf(r: LoadedRun): TraceSource {
  const p = (r.manifest.policy ?? {}) as { kind?: string; model?: string; checkpoint?: string };
  return {
    role: "self",
    kind: `${r.kind}-run:${r.name}`,
    model: String(p.model ?? r.manifest.base_model ?? "?"),
    ...(p.checkpoint ? { checkpoint: p.checkpoint } : {}),
  };
}

function wholeRow(e: EpisodeRecord, id: string, source: TraceSource): SftRow {
  return {
    id,
    question: e.question,
    answers: e.answers,
    prompt: e.prompt,
    tokens: e.tokens,
    sampled: e.sampled,
    logprobs: e.logprobs,
    searches: e.searches,
    reward: e.reward,
    source,
  };
}

/** One example per assistant turn: the prompt plus everything before the turn is context (weight 0). */
function perTurnRows(e: EpisodeRecord, id: string, source: TraceSource): SftRow[] {
  const turns = e.turns ?? [{ start: 0, reply_end: e.tokens.length }];
  return turns.flatMap((t, i) => {
    const sampled = e.sampled.slice(t.start, t.reply_end);
    if (!sampled.some((s) => s === 1)) return [];
    return [
      {
        id: `${id}/t${i}`,
        question: e.question,
        answers: e.answers,
        prompt: [...e.prompt, ...e.tokens.slice(0, t.start)],
        tokens: e.tokens.slice(t.start, t.reply_end),
        sampled,
        logprobs: e.logprobs ? e.logprobs.slice(t.start, t.reply_end) : null,
        searches: e.searches,
        reward: e.reward,
        source,
      },
    ];
  });
}
