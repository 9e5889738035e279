/**
 * Which of our environments a tinker-cookbook run trained on, read from what the cookbook writes
 * in its log_path and matched against each environment's declared `cookbookNames` (its info.ts):
 * no environment is named here.
 *
 * The cookbook's ml_log dumps the training Config to config.json (chz fields as a nested object,
 * callables as "module.name"), so a dataset builder's fields are there, and sometimes its class
 * path; its RL recipes name the run "<env>-<model>-…" (wandb_name, and log_path's last folder),
 * name the recipe in recipe_name ("recipe_math_rl"), and tag each rollout and `env/<tag>/…`
 * metric with the dataset. Names found in order of how plainly they say it:
 *
 *   1. a dataset or env name: config `env` / `dataset_name` (or the builder's), a builder class
 *      ("…MathDatasetBuilder" → "math"), the run name's first word, the rollout and metric tags;
 *   2. the recipe (recipe_name without "recipe_").
 *
 * The first kind that names exactly one environment decides; two environments named is ambiguous
 * and none named is unknown: both leave it undefined, and Evaluate asks (never a default).
 */
import { basename } from "node:path";
import { ENVIRONMENT_INFO } from "../../envs/catalog";

export interface CookbookEnvironment {
  /** Our environment's name. */
  name: string;
  /** What in the folder said so, for tooltips and the picker: `config.json recipe_name "recipe_math_rl"`. */
  from: string;
}

/** Words as the cookbook spells a name: lower case, "DatasetBuilder"/"Builder" and separators dropped. */
function word(s: string): string {
  const last = s.split(/[.:/]/).filter(Boolean).pop() ?? s;
  return last
    .replace(/(Rl)?(Dataset)?Builder$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "");
}

interface Clue {
  word: string;
  from: string;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Keys under which a config names a dataset or an environment outright. */
const NAME_KEYS = ["env", "env_name", "dataset", "dataset_name"];
/** Keys under which a dumped object may record its class. */
const TYPE_KEYS = ["__chz_type__", "__class__", "_type", "_target_", "type", "class", "builder"];

/** Class paths in a dumped builder: strings that end in a …Builder class name, or a type key's value. */
function builderClues(builder: unknown, path: string, depth = 0): Clue[] {
  if (depth > 4) return [];
  const b = obj(builder);
  if (!b) {
    const s = str(builder);
    return s && /Builder$/.test(s) ? [{ word: word(s), from: `${path} "${s}"` }] : [];
  }
  const out: Clue[] = [];
  for (const [k, v] of Object.entries(b)) {
    const s = str(v);
    if (s && (NAME_KEYS.includes(k) || TYPE_KEYS.includes(k) || /Builder$/.test(s)))
      out.push({ word: word(s), from: `${path}.${k} "${s}"` });
    else if (obj(v)) out.push(...builderClues(v, `${path}.${k}`, depth + 1));
  }
  return out;
}

/** The run name's first word: the cookbook's RL recipes name runs "<env>-<model>-…". */
function runNameClue(value: unknown, key: string): Clue[] {
  const s = str(value);
  if (!s) return [];
  const name = key === "log_path" ? basename(s.replace(/[\\/]+$/, "")) : s;
  const first = name.split(/[-_ ]/)[0];
  return first ? [{ word: word(first), from: `config.json ${key} "${name}"` }] : [];
}

/** Dataset and env names a folder's config.json (and its tags) hold, plainest first. */
export function cookbookNameClues(config: Record<string, unknown>, tags: readonly string[] = []): Clue[] {
  const clues: Clue[] = [];
  for (const k of NAME_KEYS) {
    const s = str(config[k]);
    if (s) clues.push({ word: word(s), from: `config.json ${k} "${s}"` });
  }
  clues.push(...builderClues(config.dataset_builder, "config.json dataset_builder"));
  clues.push(...runNameClue(config.wandb_name, "wandb_name"), ...runNameClue(config.log_path, "log_path"));
  for (const t of tags) if (t !== "all") clues.push({ word: word(t), from: `rollout tag "${t}"` });
  return clues;
}

/** The one environment the clues name, or undefined when they name none or several. */
function decide(clues: readonly Clue[], names: (e: (typeof ENVIRONMENT_INFO)[number]) => readonly string[]) {
  const hits = new Map<string, Clue>();
  for (const c of clues)
    for (const e of ENVIRONMENT_INFO)
      if (names(e).some((n) => word(n) === c.word) && !hits.has(e.name)) hits.set(e.name, c);
  if (hits.size !== 1) return { hits: hits.size };
  const [[name, clue]] = [...hits];
  return { env: { name, from: clue.from } };
}

/**
 * The environment of a cookbook run from its config.json (parsed) and the tags of its rollouts and
 * `env/<tag>/` metrics; undefined when nothing names one of ours, or more than one is named.
 */
export function cookbookEnvironment(
  config: Record<string, unknown>,
  tags: readonly string[] = [],
): CookbookEnvironment | undefined {
  const named = decide(cookbookNameClues(config, tags), (e) => e.cookbookNames?.datasets ?? []);
  if (named.env) return named.env;
  if (named.hits > 1) return undefined; // named two of ours: not ours to pick
  const recipe = str(config.recipe_name);
  if (!recipe) return undefined;
  const bare = recipe.replace(/^recipe_/, "");
  return decide(
    [{ word: word(bare), from: `config.json recipe_name "${recipe}"` }],
    (e) => e.cookbookNames?.recipes ?? [],
  ).env;
}
