/**
 * The CLI arguments of every job, built from the step specs in core (src/core/steps/catalog/catalog.ts)
 * with `toArgv`: flag names, ranges and defaults live there only, and a value the CLI would refuse
 * is refused here with the CLI's own message. vscode-free and pure, tested in plain Node. Nothing
 * here takes or returns a key: the Tinker key travels only in the child's environment.
 */
import type { Split } from "../../core/base/data/question";
import type { PrepareFileFlag } from "../../core/harness/environment";
import type { EVAL_STEP, PREPARE_STEP, SFT_DATA_STEP } from "../../core/steps/catalog/catalog";
import { RUN_NAME_MAX_LENGTH } from "../../core/base/runs/run-name";
import { TEST_SPLIT_FLAG_NAME, TRAINING_BACKENDS } from "../../core/steps/specs/common-flags";
import { toArgv, type FlagSpecs, type FlagValues } from "../../core/steps/specs/flags";
import type { StepSpec } from "../../core/steps/specs/spec";

/** Values of a step's flags as a command sets them: any subset, typed by the spec. */
export type StepValues<S extends { flags: FlagSpecs }> = Partial<FlagValues<S["flags"]>>;

/** argv for a step (the step's name first), validated by the CLI's validator. */
export function stepArgs<F extends FlagSpecs>(
  spec: StepSpec<F>,
  values: Partial<FlagValues<F>>,
  positionals: readonly string[] = [],
): string[] {
  return toArgv(spec.name, spec.flags, values, positionals);
}

/** The test split needs the CLI's explicit flag; the command asks the user before it sets `split: "test"`. */
export function evalValues(values: StepValues<typeof EVAL_STEP>): StepValues<typeof EVAL_STEP> {
  return { ...values, [TEST_SPLIT_FLAG_NAME]: values.split === "test" };
}

/** Local record files by the prepare flag that takes them (the environment's info names its roles); none = the hub. */
export type PrepareFiles = Partial<Record<PrepareFileFlag, string[]>>;

/** `prepare --env ENV`: `--hub`, or each role's files under its flag (in the order the roles were asked). */
export function prepareValues(env: string, files: PrepareFiles = {}): StepValues<typeof PREPARE_STEP> {
  const given = Object.entries(files).filter(([, list]) => list && list.length > 0);
  return given.length === 0 ? { env, hub: true } : { env, ...Object.fromEntries(given) };
}

/** The model samples its own data (--backend), or a teacher is distilled (--teacher): never both. */
export function sftDataValues(values: StepValues<typeof SFT_DATA_STEP>): StepValues<typeof SFT_DATA_STEP> {
  if (!values.teacher) return values;
  const rest = { ...values };
  delete rest.backend;
  delete rest["model-path"];
  return rest;
}

export interface FromRunsChoice {
  name: string;
  env: string;
  /** Blank in the box = the CLI's default (--min-f1). */
  minReward?: number;
  bestOf?: number;
}

/** `sft-data --from-runs`: no sampling, so no backend, model or tries; the runs are the positionals. */
export function fromRunsValues(c: FromRunsChoice): StepValues<typeof SFT_DATA_STEP> {
  return { name: c.name, env: c.env, "from-runs": true, "min-reward": c.minReward, "best-of": c.bestOf };
}

type TrainingBackend = (typeof TRAINING_BACKENDS)[number];

/** Training runs on Tinker or on the local stand-in; the sampling-only backends train locally. */
export function trainingBackend(backend: string): TrainingBackend {
  return (TRAINING_BACKENDS as readonly string[]).includes(backend) ? (backend as TrainingBackend) : "local";
}

/** Run names become folder names: keep them to core's run-name rule (checkRunName). */
export function sanitizeRunName(raw: string): string {
  return raw
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-._]+|-+$/g, "")
    .slice(0, RUN_NAME_MAX_LENGTH);
}

/** A name that is not taken yet: `base`, `base-2`, `base-3`, … */
export function uniqueRunName(base: string, taken: ReadonlySet<string>): string {
  const clean = sanitizeRunName(base) || "run";
  if (!taken.has(clean)) return clean;
  for (let i = 2; ; i++) if (!taken.has(`${clean}-${i}`)) return `${clean}-${i}`;
}

/** The default run name for an eval, like the recipe's (`base`, `closed`, `sft-e2`, `test-grpo`). */
export function defaultEvalName(split: Split, closedBook: boolean, checkpointName?: string): string {
  const what = closedBook ? "closed" : (checkpointName ?? "base");
  return split === "val" ? what : `${split}-${what}`;
}
