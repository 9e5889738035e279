/**
 * `node <bundle of this file> ROOT`: writes ROOT/dist/schema/agent-lab.schema.json and
 * experiment.schema.json from their templates and the environment folders
 * (src/core/envs/config-schema.ts, src/core/steps/experiments/spec-schema.ts). scripts/build.mjs
 * bundles and runs it, so the schemas list the folders the bundles hold.
 */
import { writeConfigSchema } from "../src/core/envs/config-schema";
import { writeExperimentSchema } from "../src/core/steps/experiments/spec-schema";

const root = process.argv[2] ?? process.cwd();
writeConfigSchema(root);
writeExperimentSchema(root);
