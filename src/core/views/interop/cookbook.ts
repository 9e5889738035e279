/**
 * Reads a tinker-cookbook `log_path` folder so its runs appear in Agent Lab's views beside Agent
 * Lab's own, with no configuration. What the cookbook writes there (its ml_log, rl/train.py,
 * checkpoint_utils and logtree modules):
 *
 *   config.json                          the run's config (model_name, log_path, learning_rate, …)
 *   metrics.jsonl                        one object per step: {"step": N, "env/all/reward/total": …,
 *                                        "env/all/by_group/frac_mixed": …, "optim/kl_sample_train_v1": …,
 *                                        "progress/done_frac": …, "time/…": …}
 *   checkpoints.jsonl                    {name, batch?, epoch?, final?, state_path?, sampler_path?}
 *   iteration_NNNNNN/train_rollout_summaries.jsonl, eval_<name>_rollout_summaries.jsonl
 *                                        one object per trajectory: {group_idx, traj_idx,
 *                                        total_reward, final_reward, steps: [{ob_len, ac_len, reward,
 *                                        episode_done, stop_reason?, metrics, logs}], …}
 *   iteration_NNNNNN/<base>_logtree.json {title, started_at, path, root: node}, a node being
 *                                        {tag, attrs, children: (node | html string)[], data?}; a
 *                                        conversation's node carries data {type: "conversation",
 *                                        messages: [{role, content}]}.
 *
 * Everything is read tolerantly (a torn last line while the trainer appends is skipped) and bad
 * input is named by file and line. Lines are read as Python's json.loads reads them (NaN,
 * Infinity: the cookbook's json.dumps writes them). metrics.jsonl is streamed a chunk at a time,
 * never read whole (a long run's is hundreds of MB); a line over MAX_METRICS_LINE_BYTES is
 * skipped, and what was skipped is said.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync, type Dirent } from "node:fs";
import { basename, join } from "node:path";
import { FileFormatError } from "../../base/errors";
import { RUN_FILES } from "../../base/runs/run-folder";
import type { GroupRecord } from "../trace/dashboard-view";
import { pyJsonParse } from "../../base/data/python-json";
import { parseJsonlLines, type JsonlRow } from "../../base/util/jsonl";
import { streamJsonl, streamJsonlAsync, type StreamedJsonl } from "../../base/util/jsonl-stream";
import { markdownText } from "../../base/util/markdown-text";
import { cookbookEnvironment, type CookbookEnvironment } from "./cookbook-environment";

export const COOKBOOK_CONFIG_FILE = "config.json";
// The cookbook names these files as Agent Lab does (its ml_log and checkpoint_utils).
const METRICS_FILE = RUN_FILES.metrics;
const CHECKPOINTS_FILE = RUN_FILES.checkpoints;
const MANIFEST_FILE = RUN_FILES.manifest;
/** iteration_000012 → 12 (the cookbook pads to six digits). */
export const ITERATION_DIR = /^iteration_(\d+)$/;
/** train_rollout_summaries.jsonl, eval_<name>_rollout_summaries.jsonl → "train", "eval_<name>". */
export const ROLLOUT_SUMMARIES = /^(train|eval_.+)_rollout_summaries\.jsonl$/;
export const LOGTREE = /^(.+)_logtree\.json$/;
/** The cookbook's mean total reward per step (env/all: over every environment tag). */
export const REWARD_KEY = "env/all/reward/total";

/** Folders never searched for cookbook runs (dependencies, VCS, caches). */
const SKIP_DIRS = new Set(["node_modules", ".git", ".venv", "venv", "__pycache__", ".cache", "dist", "out"]);

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // vanished between listing and stat
  }
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // unreadable folder: nothing to show from it
  }
}

function iterationDirs(dir: string): { iteration: number; dir: string }[] {
  return list(dir)
    .filter((d) => d.isDirectory() && ITERATION_DIR.test(d.name))
    .map((d) => ({ iteration: Number(ITERATION_DIR.exec(d.name)![1]), dir: join(dir, d.name) }))
    .sort((a, b) => a.iteration - b.iteration);
}

/** What the first-line checks read at most: a first line longer than this tells nothing. */
const FIRST_LINE_BYTES = 64 * 1024;
/** A metrics.jsonl line longer than this is skipped (a cookbook step logs a few KB). */
export const MAX_METRICS_LINE_BYTES = 4 * 1024 * 1024;

/** The file's first line, reading at most FIRST_LINE_BYTES (never the whole file). */
function firstLine(file: string): string {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(FIRST_LINE_BYTES);
    const n = readSync(fd, buf, 0, FIRST_LINE_BYTES, 0);
    const end = buf.subarray(0, n).indexOf(10);
    return buf.subarray(0, end < 0 ? n : end).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** One line saying which metrics.jsonl lines were skipped for their size, or undefined when none. */
export function oversizeNote(file: string, streamed: StreamedJsonl, fromByte = 0): string | undefined {
  const skipped = streamed.oversize;
  if (skipped.length === 0) return undefined;
  const which = skipped
    .slice(0, 5)
    .map((s) => `${s.line} (${mib(s.bytes)})`)
    .join(", ");
  const more = skipped.length > 5 ? ` and ${skipped.length - 5} more` : "";
  const counted = fromByte > 0 ? ` (lines counted from byte ${fromByte})` : "";
  return `${file}: skipped ${skipped.length} line${skipped.length === 1 ? "" : "s"} over ${mib(MAX_METRICS_LINE_BYTES)}: line ${which}${more}${counted}`;
}

/**
 * Whether a folder is a cookbook log_path: metrics.jsonl without Agent Lab's manifest, and the
 * cookbook's marks — its config.json naming a log_path, iteration folders, or metric names with
 * slashes (Agent Lab's own trainers log flat names).
 */
export function isCookbookLogDir(dir: string): boolean {
  const metrics = join(dir, METRICS_FILE);
  if (!existsSync(metrics) || existsSync(join(dir, MANIFEST_FILE))) return false;
  const config = readCookbookConfig(dir);
  if (config && "log_path" in config) return true;
  if (iterationDirs(dir).length > 0) return true;
  try {
    const row = pyJsonParse(firstLine(metrics));
    return typeof row === "object" && row !== null && Object.keys(row).some((k) => k.includes("/"));
  } catch {
    return false; // empty, torn or unreadable first line: not enough to tell
  }
}

/** Cookbook log folders under `root`, at most `maxDepth` levels down, sorted by path. */
export function findCookbookRuns(root: string, maxDepth = 4): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (isCookbookLogDir(dir)) {
      out.push(dir);
      return; // its iteration folders are part of it
    }
    if (depth >= maxDepth) return;
    for (const d of list(dir)) {
      if (!d.isDirectory() || d.name.startsWith(".") || SKIP_DIRS.has(d.name)) continue;
      walk(join(dir, d.name), depth + 1);
    }
  };
  if (isDir(root)) walk(root, 0);
  return out.sort();
}

/** config.json as an object; undefined when absent or unreadable (being rewritten). */
export function readCookbookConfig(dir: string): Record<string, unknown> | undefined {
  const file = join(dir, COOKBOOK_CONFIG_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // being rewritten; the run still shows from its metrics
  }
}

/** Streams metrics.jsonl's object rows (from `fromByte`) to `onRow`; absent file: nothing. */
export function streamMetricRows(
  dir: string,
  onRow: (row: Record<string, unknown>) => void,
  fromByte = 0,
): { file: string; streamed: StreamedJsonl } {
  const file = join(dir, METRICS_FILE);
  if (!existsSync(file)) return { file, streamed: { lines: 0, oversize: [] } };
  return { file, streamed: streamJsonl(file, objectRows(onRow), metricsStreamOptions(fromByte)) };
}

/** The same, reading asynchronously a chunk at a time (the extension host's thread stays responsive). */
export async function streamMetricRowsAsync(
  dir: string,
  onRow: (row: Record<string, unknown>) => void,
  fromByte = 0,
): Promise<{ file: string; streamed: StreamedJsonl }> {
  const file = join(dir, METRICS_FILE);
  if (!existsSync(file)) return { file, streamed: { lines: 0, oversize: [] } };
  return { file, streamed: await streamJsonlAsync(file, objectRows(onRow), metricsStreamOptions(fromByte)) };
}

const objectRows = (onRow: (row: Record<string, unknown>) => void) => (value: unknown) => {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) onRow(value as Record<string, unknown>);
};

const metricsStreamOptions = (fromByte: number) => ({
  parse: pyJsonParse,
  maxLineBytes: MAX_METRICS_LINE_BYTES,
  fromByte,
  tolerateTornTail: true,
});

/** Rows with their real 1-based line numbers (blank lines counted), for errors that name the line. */
function readNumberedRows(file: string): JsonlRow<Record<string, unknown>>[] {
  if (!existsSync(file)) return [];
  return parseJsonlLines<Record<string, unknown>>(readFileSync(file, "utf8"), file, {
    tolerateTornTail: true,
    parse: pyJsonParse,
  });
}

export interface CookbookCheckpoint {
  name: string;
  /** The training batch (step) it was saved after. */
  batch?: number;
  epoch?: number;
  final?: boolean;
  state_path?: string;
  sampler_path?: string;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** checkpoints.jsonl; a line without a name is refused with its line number. */
export function readCookbookCheckpoints(dir: string): CookbookCheckpoint[] {
  const file = join(dir, CHECKPOINTS_FILE);
  return readNumberedRows(file).map(({ value: r, line }) => {
    const name = str(r?.name);
    if (!name) throw new FileFormatError(file, line, 'a checkpoint record needs a "name"');
    const out: CookbookCheckpoint = { name };
    const batch = num(r.batch);
    const epoch = num(r.epoch);
    if (batch !== undefined) out.batch = batch;
    if (epoch !== undefined) out.epoch = epoch;
    if (typeof r.final === "boolean") out.final = r.final;
    if (str(r.state_path)) out.state_path = str(r.state_path);
    if (str(r.sampler_path)) out.sampler_path = str(r.sampler_path);
    return out;
  });
}

export interface CookbookRun {
  name: string;
  dir: string;
  /** "rl" when it logs environment rewards or rollouts, "sft" when it logs a training NLL. */
  kind: "rl" | "sft" | "training";
  model?: string;
  /** Metric rows written (one per step). */
  steps: number;
  lastStep?: number;
  lastReward?: number;
  /** Fraction done (progress/done_frac) at the last step. */
  doneFrac?: number;
  checkpoints: CookbookCheckpoint[];
  iterations: number[];
  config: Record<string, unknown>;
  /**
   * Which of our environments it trained on (cookbook-environment.ts: its config.json, its tags);
   * undefined when the folder does not say, and whoever needs one asks.
   */
  environment?: CookbookEnvironment;
  /** What the reader could not use and said so about: no config.json, lines skipped for their size. */
  notes: string[];
}

/** The note for a run folder without config.json (it still shows, from its metrics). */
export const NO_CONFIG_NOTE = `no ${COOKBOOK_CONFIG_FILE}: the model and settings are unknown`;

/** The dataset tags a run logs under: `env/<tag>/…` metric names and its first rollouts' `tags`. */
export function cookbookTags(dir: string, metricKeys: Iterable<string>): string[] {
  const tags = new Set<string>();
  for (const k of metricKeys) {
    const m = /^env\/([^/]+)\//.exec(k);
    if (m) tags.add(m[1]);
  }
  const first = iterationDirs(dir)[0];
  const file = first && join(first.dir, "train_rollout_summaries.jsonl");
  if (file && existsSync(file)) {
    try {
      const row = pyJsonParse(firstLine(file)) as { tags?: unknown };
      if (Array.isArray(row.tags)) for (const t of row.tags) if (typeof t === "string") tags.add(t);
    } catch {
      // a torn first line: the metric tags still tell
    }
  }
  tags.delete("all");
  return [...tags];
}

/** The run as the Runs tree and the Checkpoints view show it. */
export function readCookbookRun(dir: string): CookbookRun {
  const m = metricsSummary();
  return cookbookRunFrom(dir, m, streamMetricRows(dir, m.add));
}

/** The same, metrics.jsonl read asynchronously a chunk at a time (for a caller on the extension host's thread). */
export async function readCookbookRunAsync(dir: string): Promise<CookbookRun> {
  const m = metricsSummary();
  return cookbookRunFrom(dir, m, await streamMetricRowsAsync(dir, m.add));
}

interface MetricsSummary {
  add(row: Record<string, unknown>): void;
  steps: number;
  last: Record<string, unknown> | undefined;
  lastReward: number | undefined;
  keys: Set<string>;
}

/** What a run's line keeps of its metrics as they stream: the counts, the last row, the last reward, the metric names. */
function metricsSummary(): MetricsSummary {
  const m: MetricsSummary = {
    steps: 0,
    last: undefined,
    lastReward: undefined,
    keys: new Set<string>(),
    add: (row) => {
      m.steps++;
      m.last = row;
      m.lastReward = num(row[REWARD_KEY]) ?? m.lastReward;
      for (const k in row) m.keys.add(k);
    },
  };
  return m;
}

function cookbookRunFrom(
  dir: string,
  { steps, last, lastReward, keys }: MetricsSummary,
  { file, streamed }: { file: string; streamed: StreamedJsonl },
): CookbookRun {
  const rawConfig = readCookbookConfig(dir);
  const config = rawConfig ?? {};
  const notes = [
    ...(existsSync(join(dir, COOKBOOK_CONFIG_FILE)) ? [] : [NO_CONFIG_NOTE]),
    ...[oversizeNote(file, streamed)].filter((n): n is string => n !== undefined),
  ];
  const iterations = iterationDirs(dir).map((d) => d.iteration);
  const kind: CookbookRun["kind"] =
    [...keys].some((k) => k.startsWith("env/")) || iterations.length > 0
      ? "rl"
      : [...keys].some((k) => /nll|loss/.test(k))
        ? "sft"
        : "training";
  const environment = cookbookEnvironment(config, cookbookTags(dir, keys));
  return {
    name: basename(dir),
    dir,
    kind,
    ...(str(config.model_name) ? { model: str(config.model_name) } : {}),
    steps,
    ...(last && num(last.step) !== undefined ? { lastStep: num(last.step) } : {}),
    ...(lastReward !== undefined ? { lastReward } : {}),
    ...(last && num(last["progress/done_frac"]) !== undefined ? { doneFrac: num(last["progress/done_frac"]) } : {}),
    checkpoints: readCookbookCheckpoints(dir),
    iterations,
    config,
    ...(environment ? { environment } : {}),
    notes,
  };
}

export interface RolloutSummary {
  group_idx: number;
  traj_idx: number;
  total_reward: number;
  final_reward?: number;
  steps: { ob_len?: number; ac_len?: number; reward?: number; episode_done?: boolean; stop_reason?: string }[];
}

/** One iteration's rollout summaries of `base` ("train", "eval_<name>"); bad lines name file:line. */
export function readRolloutSummaries(dir: string, iteration: number, base = "train"): RolloutSummary[] {
  const it = iterationDirs(dir).find((d) => d.iteration === iteration);
  if (!it) return [];
  const file = join(it.dir, `${base}_rollout_summaries.jsonl`);
  return readNumberedRows(file).map(({ value: r, line }) => {
    const group = num(r?.group_idx);
    const traj = num(r?.traj_idx);
    const total = num(r?.total_reward);
    if (group === undefined || traj === undefined || total === undefined) {
      throw new FileFormatError(file, line, "a rollout summary needs numeric group_idx, traj_idx and total_reward");
    }
    return {
      group_idx: group,
      traj_idx: traj,
      total_reward: total,
      ...(num(r.final_reward) !== undefined ? { final_reward: num(r.final_reward) } : {}),
      steps: Array.isArray(r.steps) ? (r.steps as RolloutSummary["steps"]) : [],
    };
  });
}

/**
 * The train rollouts as group health: one group per (iteration, group_idx) with its trajectories'
 * total rewards in trajectory order — the same records Agent Lab's GRPO writes to groups.jsonl.
 */
export function cookbookGroups(dir: string): GroupRecord[] {
  const out: GroupRecord[] = [];
  for (const { iteration } of iterationDirs(dir)) {
    const byGroup = new Map<number, RolloutSummary[]>();
    for (const r of readRolloutSummaries(dir, iteration, "train")) {
      const g = byGroup.get(r.group_idx) ?? [];
      g.push(r);
      byGroup.set(r.group_idx, g);
    }
    for (const [group, trajs] of [...byGroup].sort((a, b) => a[0] - b[0])) {
      const rewards = trajs.sort((a, b) => a.traj_idx - b.traj_idx).map((t) => t.total_reward);
      const mean = rewards.reduce((s, v) => s + v, 0) / rewards.length;
      out.push({ step: iteration, group, rewards, mean, skipped: rewards.every((v) => v === rewards[0]) });
    }
  }
  return out;
}

export interface TranscriptMessage {
  role: string;
  text: string;
}

export interface Transcript {
  /** The logtree file's title and where in it the conversation was. */
  title: string;
  messages: TranscriptMessage[];
}

interface LogtreeNode {
  tag?: unknown;
  children?: unknown;
  data?: { type?: unknown; messages?: unknown };
}

/** A message's content as text: a string, or the text parts of a list of parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        typeof p === "string"
          ? p
          : typeof p === "object" && p !== null && typeof (p as { text?: unknown }).text === "string"
            ? (p as { text: string }).text
            : "",
      )
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

/** The conversations a `*_logtree.json` holds (nodes whose data is a conversation), in document order. */
export function readLogtreeTranscripts(file: string): Transcript[] {
  let doc: { title?: unknown; root?: unknown };
  try {
    doc = JSON.parse(readFileSync(file, "utf8")) as typeof doc;
  } catch (e) {
    throw new FileFormatError(file, undefined, `not a logtree JSON file: ${(e as Error).message}`);
  }
  const title = typeof doc.title === "string" ? doc.title : basename(file);
  const out: Transcript[] = [];
  const walk = (node: unknown, depth: number) => {
    if (depth > 200 || typeof node !== "object" || node === null) return;
    const n = node as LogtreeNode;
    if (n.data?.type === "conversation" && Array.isArray(n.data.messages)) {
      const messages = n.data.messages
        .filter((m): m is { role?: unknown; content?: unknown } => typeof m === "object" && m !== null)
        .map((m) => ({ role: typeof m.role === "string" ? m.role : "?", text: contentText(m.content) }));
      out.push({ title: `${title} · conversation ${out.length + 1}`, messages });
    }
    if (Array.isArray(n.children)) for (const c of n.children) walk(c, depth + 1);
  };
  walk(doc.root, 0);
  return out;
}

/** Every logtree file of a run: iteration, base name ("train", "eval_test") and path. */
export function logtreeFiles(dir: string): { iteration: number; base: string; file: string }[] {
  return iterationDirs(dir).flatMap(({ iteration, dir: it }) =>
    list(it)
      .filter((d) => d.isFile() && LOGTREE.test(d.name))
      .map((d) => ({ iteration, base: LOGTREE.exec(d.name)![1], file: join(it, d.name) })),
  );
}

/** Transcripts as markdown (roles as headings, titles escaped and text fenced so nothing in them renders as markup). */
export function transcriptsMarkdown(transcripts: readonly Transcript[], heading: string): string {
  const fence = (t: string) => {
    const ticks = "`".repeat(Math.max(3, ...[...t.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    return `${ticks}text\n${t}\n${ticks}`;
  };
  const out = [`# ${markdownText(heading)}`, ""];
  if (transcripts.length === 0)
    out.push("This logtree file holds no conversation with text (its nodes are HTML only).");
  for (const t of transcripts) {
    out.push(`## ${markdownText(t.title)}`, "");
    for (const m of t.messages) out.push(`**${m.role.replace(/[^\w-]/g, "")}**`, "", fence(m.text), "");
  }
  return out.join("\n");
}
