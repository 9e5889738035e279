/**
 * `node <bundle of this file> ROOT`: writes ROOT/dist/schema/agent-lab.schema.json from the template
 * and the environment folders (src/core/envs/config-schema.ts). scripts/build.mjs bundles and runs
 * it, so the schema lists the folders the bundles hold.
 */
import { writeConfigSchema } from "../src/core/envs/config-schema";

writeConfigSchema(process.argv[2] ?? process.cwd());
