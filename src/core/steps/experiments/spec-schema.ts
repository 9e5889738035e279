/**
 * The JSON schema of experiment specs: the template in data/schema/ (every field, no list of
 * environments), completed at build time with the environment folders found (scripts/build.mjs
 * runs scripts/write-config-schema.ts, which writes it into dist/ beside agent-lab.json's), so
 * adding a folder needs no edit to a list of names. A template node marked
 * `"x-agent-lab-choices": "environments"`, `"metrics"` or `"sweep-params"` gets the choices as its `enum`.
 */
import { writeBuiltSchema } from "../../base/util/built-schema";
import { metricChoices } from "./metric";
import { EXPERIMENT_ENVS } from "./spec";
import { SWEEP_PARAMS } from "./sweep-spec";

/** The template, relative to the project root (the shipped examples' `$schema`). */
export const EXPERIMENT_SCHEMA_TEMPLATE = "data/schema/experiment.schema.json";
/** The built schema, relative to the project root (package.json's jsonValidation url names it). */
export const EXPERIMENT_SCHEMA_BUILT = "dist/schema/experiment.schema.json";
/** The template's marker of a node whose choices come from the folders. */
export const CHOICES_KEY = "x-agent-lab-choices";

/** What a marked node may list: the environments experiments run on, and every metric a spec may name for one of them. */
export function experimentChoices(): Record<string, string[]> {
  return {
    environments: [...EXPERIMENT_ENVS],
    metrics: [...new Set(EXPERIMENT_ENVS.flatMap((env) => metricChoices(env)))],
    "sweep-params": Object.keys(SWEEP_PARAMS),
  };
}

/** The template with every marked node's `enum` filled in (and its marker gone). */
export function experimentSchema(template: unknown): unknown {
  const choices = experimentChoices();
  const fill = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(fill);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) if (key !== CHOICES_KEY) out[key] = fill(value);
    const marker = (node as Record<string, unknown>)[CHOICES_KEY];
    if (marker !== undefined) {
      if (typeof marker !== "string" || !choices[marker])
        throw new Error(
          `${EXPERIMENT_SCHEMA_TEMPLATE}: ${CHOICES_KEY} ${JSON.stringify(marker)} is not one of ${Object.keys(choices).join(", ")}`,
        );
      out.enum = choices[marker];
    }
    return out;
  };
  return fill(template);
}

/** Writes the built schema under `root` from the template there. */
export function writeExperimentSchema(root: string): void {
  writeBuiltSchema(root, EXPERIMENT_SCHEMA_TEMPLATE, EXPERIMENT_SCHEMA_BUILT, experimentSchema);
}
