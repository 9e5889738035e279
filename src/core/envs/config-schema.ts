/**
 * The JSON schema VS Code checks agent-lab.json with (package.json's jsonValidation): the template
 * in data/schema/ (every setting but the environments), completed at build time with the
 * environment folders found (scripts/write-config-schema.ts writes it into dist/), so adding a
 * folder needs no edit to a list of names.
 */
import { writeBuiltSchema } from "../base/util/built-schema";
import { DEFAULT_ENVIRONMENT_INFO, ENVIRONMENT_INFO, WORLD_INFO } from "./catalog";

/** The template, relative to the project root. */
export const CONFIG_SCHEMA_TEMPLATE = "data/schema/agent-lab.schema.json";
/** The built schema, relative to the project root (package.json's jsonValidation url names it). */
export const CONFIG_SCHEMA_BUILT = "dist/schema/agent-lab.schema.json";

interface SchemaProperty {
  type?: string;
  enum?: string[];
  default?: unknown;
  description?: string;
}

/** The template with `env`'s choices, default and description from the catalog. */
export function configSchema(template: { properties: Record<string, SchemaProperty> }): unknown {
  const env = template.properties.env;
  if (!env) throw new Error(`${CONFIG_SCHEMA_TEMPLATE} has no "env" property`);
  const names = (infos: readonly { name: string; summary: string }[]) => infos.map((e) => e.name);
  const described = ENVIRONMENT_INFO.map((e) => `${e.name} (${e.summary})`).join("; ");
  return {
    ...template,
    properties: {
      ...template.properties,
      env: {
        ...env,
        enum: [...names(ENVIRONMENT_INFO), ...names(WORLD_INFO)],
        default: DEFAULT_ENVIRONMENT_INFO.name,
        description:
          `${env.description ?? ""} One of: ${described}` +
          (WORLD_INFO.length
            ? `; or an offline world (what agent-lab pipeline and demo write into the folders they make): ${names(WORLD_INFO).join(", ")}.`
            : "."),
      },
    },
  };
}

/** Writes the built schema under `root` from the template there. */
export function writeConfigSchema(root: string): void {
  writeBuiltSchema(root, CONFIG_SCHEMA_TEMPLATE, CONFIG_SCHEMA_BUILT, configSchema);
}
