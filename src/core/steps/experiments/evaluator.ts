/**
 * Who scored an arm: the evaluator's identity, built from what decides a score — the code (agent-lab's
 * version, the harness and the grader, hashed), the prompt template, the decoding, the search
 * settings and the split — and the item list. Recomputed from each eval run's own manifest, so a
 * reviewer can check every arm was scored by the same evaluator on the same items. The grader is the
 * run's environment's: its scorer version and the scoring functions it declares (Environment.scoringFunctions).
 */
import { readFileSync } from "node:fs";
import { projectFile } from "../../base/chat/package-files";
import { sha256Hex } from "../../base/runs/manifest";
import type { RunManifest } from "../../base/runs/manifest";
import { environmentOfManifest } from "../../envs/registry";
import type { Environment } from "../../harness/environment";

export interface EvaluatorIdentity {
  code_version: string;
  harness_version: string;
  grader: { version: string; sha256: string };
  environment: { name: string; version: string } | null;
  prompt_template_sha256: string;
  tokenizer: string;
  decoding: { temperature: number; max_tokens: number };
  split: { name: string; sha256: string };
  /** sha256 of every other field of the eval run's fingerprint (search settings and index, the environment's own fields). */
  settings_sha256: string;
}

let version: string | undefined;
export function codeVersion(): string {
  version ??= `agent-lab@${(JSON.parse(readFileSync(projectFile("package.json"), "utf8")) as { version: string }).version}`;
  return version;
}

/**
 * sha256 of an environment's grading functions as this build runs them (recomputable by any copy of
 * the same build); undefined when it declares none. The text is hashed in a form every build of the
 * same source prints alike (bundleNeutral), so a record made by one validates in another.
 */
export function graderSha256(
  env: Pick<Environment, "scoringFunctions">,
  form: GraderHashForm = "neutral",
): string | undefined {
  const fns = env.scoringFunctions;
  const text = (f: (typeof fns & object)[number]) => (form === "neutral" ? bundleNeutral(f.toString()) : f.toString());
  return fns?.length ? sha256Hex(fns.map(text).join("\n")) : undefined;
}

/** "neutral": the hash records take now; "as-printed": the text as this build prints it, which records of earlier builds took. */
export type GraderHashForm = "neutral" | "as-printed";

/** A string literal (its text is the grader's: kept as it is), or the code between two. */
const STRING_LITERAL = /("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)/;

/**
 * A function's text without what the build changes. The CLI and extension bundles and tsx (the
 * tests) each print the same source their own way: a bundle renames identifiers that collide in it
 * by appending a number (`YES_NO` → `YES_NO2`), tsx calls an imported function as
 * `(0, import_module.name)` and drops whitespace, semicolons before `}` and an arrow's lone
 * parameter's parentheses. String literals are kept whole: their text can decide a score.
 */
export function bundleNeutral(source: string): string {
  return source
    .split(STRING_LITERAL)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part
            .replace(/\(0,\s*import_[\w$]+\.([\w$]+)\)/g, "$1")
            .replace(/\b([A-Za-z_$][\w$]*?)\d+\b/g, "$1")
            .replace(/\s+/g, "")
            .replace(/;}/g, "}")
            .replace(/\(([\w$]+)\)=>/g, "$1=>"),
    )
    .join("");
}

/** The grader of a run: hashed when this build knows its environment and scores as the run was scored. */
function graderOf(m: RunManifest, form: GraderHashForm): EvaluatorIdentity["grader"] {
  const env = environmentOfManifest(m);
  const sha = env && env.scorerVersion === m.scorer_version ? graderSha256(env, form) : undefined;
  return { version: m.scorer_version, sha256: sha ?? `(scorer ${m.scorer_version}: not hashed here)` };
}

/** Canonical JSON: keys sorted at every level, so a hash does not depend on key order. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/** The fields of an eval manifest that do not decide a score: who ran it, with which model, when. */
const NOT_EVALUATOR = new Set([
  "job",
  "policy",
  "format",
  "environment",
  "split",
  "test_split",
  "system_prompt",
  "harness_version",
  "scorer_version",
  "sampling",
  "tokenizer",
]);

export function evaluatorFromManifest(m: RunManifest, form: GraderHashForm = "neutral"): EvaluatorIdentity {
  const rest = Object.fromEntries(Object.entries(m).filter(([k]) => !NOT_EVALUATOR.has(k)));
  return {
    code_version: codeVersion(),
    harness_version: m.harness_version,
    grader: graderOf(m, form),
    environment: m.environment ?? null,
    prompt_template_sha256: m.system_prompt.sha256,
    tokenizer: m.tokenizer,
    decoding: { temperature: m.sampling.temperature, max_tokens: m.sampling.max_tokens },
    split: { name: m.split.name, sha256: m.split.sha256 },
    settings_sha256: sha256Hex(canonicalJson(rest)),
  };
}

export function evaluatorId(e: EvaluatorIdentity): string {
  return sha256Hex(canonicalJson(e));
}

/** The item manifest: the sorted item ids, one per line; its hash is the evaluation's item identity. */
export function itemManifestText(ids: readonly string[]): string {
  return [...ids]
    .sort()
    .map((id) => `${id}\n`)
    .join("");
}
