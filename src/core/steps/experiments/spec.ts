/**
 * An experiment spec (data/schema/experiment.schema.json): a hypothesis, the arms that test it
 * (each a training recipe and its data source, named by environment), one shared evaluation, the
 * metric, and the success criterion as data. `readExperimentSpec` refuses a bad spec with one line
 * naming file:line and what to write instead.
 */
import { readFileSync, existsSync } from "node:fs";
import { isAbsolute, normalize, win32 } from "node:path";
import { FileFormatError, quoteValue } from "../../base/errors";
import { jsonErrorLine } from "../../base/config";
import { TEST_SIZE, VAL_SIZE } from "../../base/data/split-sizes";
import { ENVIRONMENT_NAMES, worldOf } from "../../envs/catalog";
import { jsonValueLines, lineOfPath } from "./json-lines";
import { experimentMetric, metricChoices } from "./metric";
import { GRPO_RANGES, SFT_RANGES, OFFSET_RANGE, inRange, rangeText, type NumberRange } from "./recipe-ranges";
import { ARM_NAME, expandSweep, parseSweep, type SweepReader, type SweepSpec } from "./sweep-spec";
import {
  OFFSET_MAX,
  QUESTIONS_MAX,
  SAVE_EVERY_MAX,
  SEED_MAX,
  concurrency,
  maxSearches,
  maxTokens,
  topK,
} from "../specs/common-flags";

/**
 * The largest value each size and seed of a spec may take, refused when the spec is read (a world
 * of 1e9 questions priced at $0.00 and died of memory three phases later; a seed of 1e300 failed
 * as an internal error). data/schema/experiment.schema.json states the same maxima.
 */
export const SPEC_MAX = {
  seed: SEED_MAX,
  /** Questions in a synthetic world's train or dev split. */
  worldSplit: QUESTIONS_MAX,
  /** Questions an SFT teacher answers, an evaluation scores. */
  questions: QUESTIONS_MAX,
  /** Tasks a generate phase writes. */
  tasks: QUESTIONS_MAX,
  /** The first train question an arm starts at. */
  offset: OFFSET_MAX,
  saveEvery: SAVE_EVERY_MAX,
  topK: topK.max!,
  maxSearches: maxSearches.max!,
  maxTokens: maxTokens.max!,
  concurrency: concurrency.max!,
} as const;

export const EXPERIMENT_SPEC_FORMAT = "agent-lab.experiment/1";
/** Where `experiment run` lays out an experiment's workspace when no --dir is given (relative to the working directory). */
export const EXPERIMENTS_DIR = "experiments";
/** The environments an experiment evaluates and trains on: the real ones the folders declare (an offline world is `world`). */
export const EXPERIMENT_ENVS: readonly string[] = ENVIRONMENT_NAMES;
export type ExperimentEnv = string;
/** A metric of the evaluated environment, as metric.ts reads it: a declared name, a role, or (older specs) a label. */
export type Metric = string;
export const STATS = ["arm_minus_base", "reference_minus_base", "arm_minus_reference", "recovery"] as const;
export type Stat = (typeof STATS)[number];
export const BOUNDS = ["point", "ci_lo", "ci_hi"] as const;
export const OPS = [">=", ">", "<=", "<"] as const;

export interface GrpoRecipe {
  steps: number;
  questions: number;
  group: number;
  lr: number;
  temperature: number;
  seed: number;
  save_every?: number;
  normalize_advantages?: boolean;
}

export interface SftRecipe {
  epochs: number;
  batch: number;
  lr: number;
  /**
   * Where the SFT data comes from: a scripted teacher over the env's train split (offline world
   * only), an sft.jsonl file (or sft-data run folder), or runs already scored (sft-data --from-runs:
   * the best `best_of` episodes per question at reward ≥ `min_reward`). Paths and run names are
   * relative to the experiment's workspace.
   */
  data:
    | { kind: "teacher"; questions: number }
    | { kind: "file"; path: string }
    | { kind: "runs"; runs: string[]; min_reward: number; best_of: number };
}

export interface GenerateRecipe {
  generator: "scripted" | "model";
  count: number;
  seed: number;
  prompt?: string;
  temperature?: number;
  max_tokens?: number;
  /** Sandbox wall time per solution (default the sandbox's). */
  timeout_ms?: number;
  solve_rate: { mode: "policy" | "scripted" | "off"; tries: number };
}

export type DataSource =
  | { kind: "env-train"; env: ExperimentEnv; offset?: number }
  | { kind: "tasks"; env: ExperimentEnv; dir?: string; generate?: GenerateRecipe };

/**
 * An arm: SFT, GRPO, or SFT then GRPO (from the SFT checkpoint). `data` is GRPO's training list;
 * an SFT-only arm has none (its SFT data is its training data) and trains on the evaluation's env.
 */
export interface ArmSpec {
  name: string;
  data?: DataSource;
  grpo?: GrpoRecipe;
  sft?: SftRecipe;
}

/** The gen-tasks settings an arm's tasks are generated with as a phase, if any. */
export function generateOf(arm: ArmSpec): GenerateRecipe | undefined {
  return arm.data?.kind === "tasks" ? arm.data.generate : undefined;
}

/**
 * The checkpoint an arm's evaluation scores, by its registry name: its GRPO run's last step, else
 * its SFT run's last epoch (the runs are `<experiment>-<arm>` and `<experiment>-<arm>-sft`).
 */
export function armCheckpointName(experiment: string, arm: ArmSpec): string {
  if (arm.grpo) return `${experiment}-${arm.name}-s${arm.grpo.steps}`;
  return `${experiment}-${arm.name}-sft-e${arm.sft!.epochs}`;
}

/** The environment an arm trains in. */
export function armEnv(arm: ArmSpec, spec: Pick<ExperimentSpec, "evaluation">): ExperimentEnv {
  return arm.data?.env ?? spec.evaluation.env;
}

export interface Condition {
  stat: Stat | "drift";
  op?: (typeof OPS)[number];
  value?: number;
  bound?: (typeof BOUNDS)[number];
}

export interface ExperimentSpec {
  format: string;
  name: string;
  title: string;
  hypothesis: string;
  backend: "local" | "tinker";
  base_model: string;
  lora_rank: number;
  /** Offline: the synthetic world the experiment builds in its folder. */
  world?: { kind: "synthetic"; seed: number; train: number; dev: number };
  /** Harness settings for every phase (offline: the compact world's). */
  harness?: { topK?: number; maxSearches?: number; maxTokens?: number; concurrency?: number };
  /** What every arm starts from (and what "base" is scored as): the base model, a state, or a shared SFT warm-up. */
  init: { kind: "base" } | { kind: "checkpoint"; state: string; sampler: string } | { kind: "sft"; sft: SftRecipe };
  arms: ArmSpec[];
  evaluation: {
    env: ExperimentEnv;
    split: "val" | "test" | "train";
    n: number | null;
    decoding: { temperature: number; max_tokens: number };
  };
  metric: Metric;
  criterion: { treatment: string; reference: string; supported: Condition[]; refuted: Condition[] };
  budget_usd: number;
  resamples: number;
  seed: number;
  /** A sweep (sweep-spec.ts): `arms` then holds its expanded arms in the template's place. */
  sweep?: SweepSpec;
}

type Json = unknown;

/** Whether a spec's path leaves the workspace it is resolved in: absolute, or climbing out with "..". */
function outsideWorkspace(p: string): boolean {
  const n = normalize(p.replace(/\\/g, "/"));
  return isAbsolute(p) || win32.isAbsolute(p) || n === ".." || n.startsWith("../");
}

class SpecReader implements SweepReader {
  private readonly lines: Map<string, number>;
  constructor(
    readonly file: string,
    text: string,
  ) {
    this.lines = jsonValueLines(text);
  }
  fail(path: string, problem: string): never {
    throw new FileFormatError(this.file, lineOfPath(this.lines, path), `${path || "spec"}: ${problem}`);
  }
  obj(v: Json, path: string): Record<string, Json> {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(path, "expected an object");
    return v as Record<string, Json>;
  }
  str(o: Record<string, Json>, key: string, path: string, choices?: readonly string[]): string {
    const v = o[key];
    const p = path ? `${path}.${key}` : key;
    if (typeof v !== "string" || !v.trim())
      this.fail(p, choices ? `must be one of ${choices.join(", ")}` : "must be a non-empty string");
    if (choices && !choices.includes(v)) this.fail(p, `must be one of ${choices.join(", ")}, got ${JSON.stringify(v)}`);
    return v;
  }
  /**
   * A path the spec gives, relative to the experiment's workspace and inside it: a spec is data
   * anyone can hand over, so it never points the experiment at a file elsewhere (paths given on a
   * command line, by the user, may go anywhere).
   */
  workspacePath(o: Record<string, Json>, key: string, path: string): string {
    return this.inWorkspace(this.str(o, key, path), path ? `${path}.${key}` : key);
  }
  inWorkspace(v: string, path: string): string {
    if (outsideWorkspace(v))
      this.fail(
        path,
        `${quoteValue(v)} is outside the experiment's workspace: give a path relative to the workspace and inside it (copy the file into the workspace first)`,
      );
    return v;
  }
  num(o: Record<string, Json>, key: string, path: string, r: NumberRange & { optional?: boolean } = {}): number {
    const v = o[key];
    const p = path ? `${path}.${key}` : key;
    if (v === undefined && r.optional) return NaN;
    if (!inRange(v, r)) this.fail(p, `must be ${rangeText(r)}, got ${JSON.stringify(v)}`);
    return v;
  }
  known(o: Record<string, Json>, path: string, keys: readonly string[]): void {
    for (const k of Object.keys(o))
      if (!keys.includes(k) && k !== "$schema" && k !== "comment")
        this.fail(path ? `${path}.${k}` : k, `unknown field (allowed: ${keys.join(", ")})`);
  }
}

export function readExperimentSpec(file: string): { spec: ExperimentSpec; text: string } {
  if (!existsSync(file)) throw new FileFormatError(file, undefined, "experiment spec not found");
  return parseExperimentSpecText(file, readFileSync(file, "utf8"));
}

/** A spec's text, checked as `readExperimentSpec` checks a file (`file` names it in errors). */
export function parseExperimentSpecText(file: string, text: string): { spec: ExperimentSpec; text: string } {
  let raw: Json;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new FileFormatError(file, jsonErrorLine(text, e as Error), `not valid JSON (${(e as Error).message})`);
  }
  return { spec: parseExperimentSpec(new SpecReader(file, text), raw), text };
}

const TOP = [
  "format",
  "name",
  "title",
  "hypothesis",
  "backend",
  "base_model",
  "lora_rank",
  "world",
  "harness",
  "init",
  "arms",
  "evaluation",
  "metric",
  "criterion",
  "budget_usd",
  "resamples",
  "seed",
  "sweep",
] as const;

function parseExperimentSpec(r: SpecReader, raw: Json): ExperimentSpec {
  const o = r.obj(raw, "");
  r.known(o, "", TOP);
  if (o.format !== EXPERIMENT_SPEC_FORMAT) r.fail("format", `must be "${EXPERIMENT_SPEC_FORMAT}"`);
  const name = r.str(o, "name", "");
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,60}$/.test(name))
    r.fail(
      "name",
      "must start with a letter or digit and hold only letters, digits, '.', '_' or '-' (it prefixes the arms' run folders), at most 61 characters",
    );
  const backend = r.str(o, "backend", "", ["local", "tinker"]) as ExperimentSpec["backend"];
  const spec: ExperimentSpec = {
    format: EXPERIMENT_SPEC_FORMAT,
    name,
    title: r.str(o, "title", ""),
    hypothesis: r.str(o, "hypothesis", ""),
    backend,
    base_model: r.str(o, "base_model", ""),
    lora_rank: r.num(o, "lora_rank", "", { int: true, min: 1, max: 512 }),
    init: parseInit(r, o.init),
    arms: [],
    evaluation: parseEvaluation(r, o.evaluation),
    metric: r.str(o, "metric", ""),
    criterion: { treatment: "", reference: "", supported: [], refuted: [] },
    budget_usd: r.num(o, "budget_usd", "", { min: 0 }),
    resamples: r.num(o, "resamples", "", { int: true, min: 100, max: 1_000_000 }),
    seed: r.num(o, "seed", "", { int: true, min: 0, max: SPEC_MAX.seed }),
  };
  if (o.world !== undefined) {
    const w = r.obj(o.world, "world");
    r.known(w, "world", ["kind", "seed", "train", "dev"]);
    r.str(w, "kind", "world", ["synthetic"]);
    spec.world = {
      kind: "synthetic",
      seed: r.num(w, "seed", "world", { int: true, min: 0, max: SPEC_MAX.seed }),
      train: r.num(w, "train", "world", { int: true, min: 10, max: SPEC_MAX.worldSplit }),
      dev: r.num(w, "dev", "world", { int: true, min: 10, max: SPEC_MAX.worldSplit }),
    };
  }
  if (o.harness !== undefined) {
    const h = r.obj(o.harness, "harness");
    r.known(h, "harness", ["topK", "maxSearches", "maxTokens", "concurrency"]);
    spec.harness = {};
    for (const k of ["topK", "maxSearches", "maxTokens", "concurrency"] as const) {
      const n = r.num(h, k, "harness", { int: true, min: 1, max: SPEC_MAX[k], optional: true });
      if (!Number.isNaN(n)) spec.harness[k] = n;
    }
  }
  if (spec.world && spec.evaluation.split !== "train") {
    // prepare keeps the first TEST_SIZE dev questions for test and the rest (up to VAL_SIZE) for val.
    const held =
      spec.evaluation.split === "test"
        ? Math.min(spec.world.dev, TEST_SIZE)
        : Math.min(Math.max(0, spec.world.dev - TEST_SIZE), VAL_SIZE);
    if (held < (spec.evaluation.n ?? 1))
      r.fail(
        "world.dev",
        `${spec.world.dev} dev questions leave ${held} in ${spec.evaluation.split} (prepare keeps the first ${TEST_SIZE} for test, then up to ${VAL_SIZE} for val), fewer than evaluation.n = ${spec.evaluation.n ?? 1}`,
      );
  }
  if (spec.world && !worldOf(spec.evaluation.env))
    r.fail(
      "world",
      `${spec.evaluation.env} declares no offline world (its folder has no world-info.ts): leave out "world"`,
    );
  if (backend === "local" && !spec.world)
    r.fail(
      "world",
      'the local backend runs on the synthetic world: add "world": {"kind": "synthetic", "seed": 1, "train": 3000, "dev": 700}',
    );
  // A sweep may write one arm, its template, and expand it into two or more.
  if (!Array.isArray(o.arms) || o.arms.length < (o.sweep === undefined ? 2 : 1))
    r.fail("arms", "must list at least two arms (a treatment and a reference)");
  spec.arms = (o.arms as Json[]).map((a, i) => parseArm(r, a, `arms[${i}]`));
  if (o.sweep !== undefined) {
    spec.sweep = parseSweep(r, o.sweep, spec.arms);
    spec.arms = expandSweep(spec.arms, spec.sweep);
    if (spec.arms.length < 2)
      r.fail("sweep", 'expands to a single arm: give at least two values, or another arm in "arms"');
  }
  const names = new Set<string>();
  spec.arms.forEach((a, i) => {
    if (a.name === "base")
      r.fail(`arms[${i}].name`, '"base" is the untrained floor every arm is compared with; name the arm otherwise');
    if (names.has(a.name)) r.fail(`arms[${i}].name`, `"${a.name}" names two arms`);
    names.add(a.name);
    if (a.data && a.data.env !== spec.evaluation.env)
      r.fail(
        `arms[${i}].data.env`,
        `trains on ${a.data.env} but the evaluation is on ${spec.evaluation.env}; an experiment's arms and evaluation share an environment`,
      );
  });
  const c = r.obj(o.criterion, "criterion");
  r.known(c, "criterion", ["treatment", "reference", "supported", "refuted"]);
  spec.criterion.treatment = r.str(c, "treatment", "criterion");
  spec.criterion.reference = r.str(c, "reference", "criterion");
  for (const k of ["treatment", "reference"] as const)
    if (!names.has(spec.criterion[k]))
      r.fail(`criterion.${k}`, `"${spec.criterion[k]}" is not an arm (arms: ${[...names].join(", ")})`);
  if (spec.criterion.treatment === spec.criterion.reference)
    r.fail("criterion.reference", "must differ from the treatment arm");
  spec.criterion.supported = parseConditions(r, c.supported, "criterion.supported", false);
  spec.criterion.refuted = parseConditions(r, c.refuted, "criterion.refuted", true);
  const teacher = [
    spec.init.kind === "sft" ? { sft: spec.init.sft, path: "init.sft.data" } : undefined,
    ...spec.arms.map((a, i) => (a.sft ? { sft: a.sft, path: `arms[${i}].sft.data` } : undefined)),
  ];
  for (const t of teacher)
    if (t && t.sft.data.kind === "teacher" && !spec.world)
      r.fail(
        t.path,
        'the scripted teacher writes the synthetic world\'s answers; on a real environment give {"kind": "file", "path": …} or {"kind": "runs", "runs": [...]}',
      );
  if (!experimentMetric(spec.evaluation.env, spec.metric))
    r.fail(
      "metric",
      `${spec.evaluation.env} is scored by ${metricChoices(spec.evaluation.env)
        .map((m) => JSON.stringify(m))
        .join(", ")}; got ${JSON.stringify(spec.metric)}`,
    );
  return spec;
}

function parseInit(r: SpecReader, raw: Json): ExperimentSpec["init"] {
  const o = r.obj(raw, "init");
  const kind = r.str(o, "kind", "init", ["base", "checkpoint", "sft"]);
  if (kind === "base") {
    r.known(o, "init", ["kind"]);
    return { kind };
  }
  if (kind === "checkpoint") {
    r.known(o, "init", ["kind", "state", "sampler"]);
    return { kind, state: r.str(o, "state", "init"), sampler: r.str(o, "sampler", "init") };
  }
  r.known(o, "init", ["kind", "sft"]);
  return { kind: "sft", sft: parseSft(r, o.sft, "init.sft") };
}

function parseSft(r: SpecReader, raw: Json, path: string): SftRecipe {
  const o = r.obj(raw, path);
  r.known(o, path, ["epochs", "batch", "lr", "data"]);
  const d = r.obj(o.data, `${path}.data`);
  const dp = `${path}.data`;
  const kind = r.str(d, "kind", dp, ["teacher", "file", "runs"]);
  let data: SftRecipe["data"];
  if (kind === "teacher") {
    r.known(d, dp, ["kind", "questions"]);
    data = { kind, questions: r.num(d, "questions", dp, { int: true, min: 1, max: SPEC_MAX.questions }) };
  } else if (kind === "file") {
    r.known(d, dp, ["kind", "path"]);
    data = { kind, path: r.workspacePath(d, "path", dp) };
  } else {
    r.known(d, dp, ["kind", "runs", "min_reward", "best_of"]);
    if (!Array.isArray(d.runs) || d.runs.length === 0 || d.runs.some((x) => typeof x !== "string" || !x.trim()))
      r.fail(`${dp}.runs`, "must list at least one run folder or run name (scored eval or GRPO runs)");
    (d.runs as string[]).forEach((run, i) => r.inWorkspace(run, `${dp}.runs[${i}]`));
    const min = r.num(d, "min_reward", dp, { optional: true });
    const best = r.num(d, "best_of", dp, { int: true, min: 1, max: 64, optional: true });
    data = {
      kind: "runs",
      runs: d.runs as string[],
      min_reward: Number.isNaN(min) ? 1 : min,
      best_of: Number.isNaN(best) ? 1 : best,
    };
  }
  return {
    epochs: r.num(o, "epochs", path, SFT_RANGES.epochs),
    batch: r.num(o, "batch", path, SFT_RANGES.batch),
    lr: r.num(o, "lr", path, SFT_RANGES.lr),
    data,
  };
}

function parseGrpo(r: SpecReader, raw: Json, path: string): GrpoRecipe {
  const o = r.obj(raw, path);
  r.known(o, path, ["steps", "questions", "group", "lr", "temperature", "seed", "save_every", "normalize_advantages"]);
  const g: GrpoRecipe = {
    steps: r.num(o, "steps", path, GRPO_RANGES.steps),
    questions: r.num(o, "questions", path, GRPO_RANGES.questions),
    group: r.num(o, "group", path, GRPO_RANGES.group),
    lr: r.num(o, "lr", path, GRPO_RANGES.lr),
    temperature: r.num(o, "temperature", path, GRPO_RANGES.temperature),
    seed: r.num(o, "seed", path, GRPO_RANGES.seed),
  };
  const every = r.num(o, "save_every", path, { int: true, min: 1, max: SPEC_MAX.saveEvery, optional: true });
  if (!Number.isNaN(every)) g.save_every = every;
  if (o.normalize_advantages !== undefined) {
    if (typeof o.normalize_advantages !== "boolean") r.fail(`${path}.normalize_advantages`, "must be true or false");
    g.normalize_advantages = o.normalize_advantages;
  }
  return g;
}

function parseArm(r: SpecReader, raw: Json, path: string): ArmSpec {
  const o = r.obj(raw, path);
  r.known(o, path, ["name", "data", "grpo", "sft"]);
  const name = r.str(o, "name", path);
  if (!ARM_NAME.test(name))
    r.fail(
      `${path}.name`,
      "must be letters, digits, '_' or '-' (it names the arm's run folder), at most 31 characters",
    );
  const arm: ArmSpec = { name };
  if (o.sft !== undefined) arm.sft = parseSft(r, o.sft, `${path}.sft`);
  if (o.grpo !== undefined) arm.grpo = parseGrpo(r, o.grpo, `${path}.grpo`);
  if (!arm.grpo && !arm.sft)
    r.fail(path, 'needs a "sft" recipe, a "grpo" recipe, or both (SFT first, then GRPO from its checkpoint)');
  if (o.data === undefined) {
    if (arm.grpo)
      r.fail(
        `${path}.data`,
        'a GRPO arm needs its training list: {"kind": "env-train", "env": …} or {"kind": "tasks", "env": …, "dir" | "generate": …}',
      );
    return arm;
  }
  if (!arm.grpo)
    r.fail(
      `${path}.data`,
      'is GRPO\'s training list and this arm has no "grpo" recipe: drop "data" (the SFT data is in "sft.data") or add "grpo"',
    );
  const d = r.obj(o.data, `${path}.data`);
  const kind = r.str(d, "kind", `${path}.data`, ["env-train", "tasks"]);
  const env = r.str(d, "env", `${path}.data`, EXPERIMENT_ENVS);
  let data: DataSource;
  if (kind === "env-train") {
    r.known(d, `${path}.data`, ["kind", "env", "offset"]);
    const offset = r.num(d, "offset", `${path}.data`, { ...OFFSET_RANGE, optional: true });
    data = { kind, env, ...(Number.isNaN(offset) ? {} : { offset }) };
  } else {
    r.known(d, `${path}.data`, ["kind", "env", "dir", "generate"]);
    if ((d.dir === undefined) === (d.generate === undefined))
      r.fail(
        `${path}.data`,
        'a tasks source gives either "dir" (a gen-tasks folder) or "generate" (gen-tasks settings run as a phase of the experiment)',
      );
    data =
      d.dir !== undefined
        ? { kind: "tasks", env, dir: r.workspacePath(d, "dir", `${path}.data`) }
        : { kind: "tasks", env, generate: parseGenerate(r, d.generate, `${path}.data.generate`) };
  }
  arm.data = data;
  return arm;
}

function parseGenerate(r: SpecReader, raw: Json, path: string): GenerateRecipe {
  const o = r.obj(raw, path);
  r.known(o, path, ["generator", "count", "seed", "prompt", "temperature", "max_tokens", "timeout_ms", "solve_rate"]);
  const s = r.obj(o.solve_rate, `${path}.solve_rate`);
  r.known(s, `${path}.solve_rate`, ["mode", "tries"]);
  const g: GenerateRecipe = {
    generator: r.str(o, "generator", path, ["scripted", "model"]) as GenerateRecipe["generator"],
    count: r.num(o, "count", path, { int: true, min: 1, max: SPEC_MAX.tasks }),
    seed: r.num(o, "seed", path, { int: true, min: 0, max: SPEC_MAX.seed }),
    solve_rate: {
      mode: r.str(s, "mode", `${path}.solve_rate`, [
        "policy",
        "scripted",
        "off",
      ]) as GenerateRecipe["solve_rate"]["mode"],
      tries: r.num(s, "tries", `${path}.solve_rate`, { int: true, min: 1, max: 64 }),
    },
  };
  if (o.prompt !== undefined) g.prompt = r.workspacePath(o, "prompt", path);
  const t = r.num(o, "temperature", path, { min: 0, max: 2, optional: true });
  if (!Number.isNaN(t)) g.temperature = t;
  const m = r.num(o, "max_tokens", path, { int: true, min: 16, max: SPEC_MAX.maxTokens, optional: true });
  if (!Number.isNaN(m)) g.max_tokens = m;
  const ms = r.num(o, "timeout_ms", path, { int: true, min: 100, max: 600_000, optional: true });
  if (!Number.isNaN(ms)) g.timeout_ms = ms;
  return g;
}

function parseEvaluation(r: SpecReader, raw: Json): ExperimentSpec["evaluation"] {
  const o = r.obj(raw, "evaluation");
  r.known(o, "evaluation", ["env", "split", "n", "decoding"]);
  const d = r.obj(o.decoding, "evaluation.decoding");
  r.known(d, "evaluation.decoding", ["temperature", "max_tokens"]);
  const n = o.n === null ? null : r.num(o, "n", "evaluation", { int: true, min: 1, max: SPEC_MAX.questions });
  return {
    env: r.str(o, "env", "evaluation", EXPERIMENT_ENVS),
    split: r.str(o, "split", "evaluation", ["val", "test", "train"]) as "val" | "test",
    n,
    decoding: {
      temperature: r.num(d, "temperature", "evaluation.decoding", { min: 0, max: 2 }),
      max_tokens: r.num(d, "max_tokens", "evaluation.decoding", { int: true, min: 1, max: SPEC_MAX.maxTokens }),
    },
  };
}

function parseConditions(r: SpecReader, raw: Json, path: string, allowDrift: boolean): Condition[] {
  if (!Array.isArray(raw) || raw.length === 0)
    r.fail(path, 'must list at least one condition, e.g. {"stat": "arm_minus_base", "op": ">=", "value": 0.02}');
  return (raw as Json[]).map((c, i) => {
    const p = `${path}[${i}]`;
    const o = r.obj(c, p);
    r.known(o, p, ["stat", "op", "value", "bound"]);
    const stat = r.str(o, "stat", p, allowDrift ? [...STATS, "drift"] : STATS) as Condition["stat"];
    if (stat === "drift") {
      r.known(o, p, ["stat"]);
      return { stat };
    }
    return {
      stat,
      op: r.str(o, "op", p, OPS) as Condition["op"],
      value: r.num(o, "value", p),
      bound: (o.bound === undefined ? "point" : r.str(o, "bound", p, BOUNDS)) as Condition["bound"],
    };
  });
}
