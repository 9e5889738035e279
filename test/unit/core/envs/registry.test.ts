/** The registry, the settings schema and the README agree on the environments; manifests name them. */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../../../src/core/envs/config";
import {
  describeEnvironment,
  environmentField,
  manifestEnvironment,
} from "../../../../src/core/envs/manifest-environment";
import {
  DEFAULT_ENVIRONMENT,
  environmentByName,
  environmentNames,
  environmentOfManifest,
} from "../../../../src/core/envs/registry";
import {
  ENVIRONMENT_INFO,
  ENVIRONMENT_NAMES,
  environmentRoles,
  GRADED_ENVIRONMENTS,
  WORLD_NAMES,
} from "../../../../src/core/envs/catalog";
import { GRADE_STEP } from "../../../../src/core/steps/catalog/catalog";
import { CONFIG_SCHEMA_BUILT, CONFIG_SCHEMA_TEMPLATE, configSchema } from "../../../../src/core/envs/config-schema";
import { EXPERIMENT_SCHEMA_BUILT } from "../../../../src/core/steps/experiments/spec-schema";

const REPO = join(__dirname, "..", "..", "..", "..");

describe("envs/registry", () => {
  it("lists hotpotqa (the default) and gsm8k; the built schema's enum and the config default match it", () => {
    assert.deepEqual(environmentNames(), ["hotpotqa", "gsm8k"]);
    assert.equal(DEFAULT_CONFIG.env, DEFAULT_ENVIRONMENT);
    const template = JSON.parse(readFileSync(join(REPO, CONFIG_SCHEMA_TEMPLATE), "utf8"));
    assert.equal(template.properties.env.enum, undefined, "the template keeps no hand-written list of environments");
    const schema = configSchema(template) as { properties: { env: { enum: string[]; default: string } } };
    // The offline worlds too: the folders `pipeline` and `demo` make name theirs.
    assert.deepEqual(schema.properties.env.enum, [...environmentNames(), ...WORLD_NAMES]);
    assert.equal(schema.properties.env.default, DEFAULT_CONFIG.env);
    // VS Code checks agent-lab.json and experiment specs against the built ones.
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    assert.deepEqual(
      pkg.contributes.jsonValidation.map((v: { url: string }) => v.url),
      [`./${CONFIG_SCHEMA_BUILT}`, `./${EXPERIMENT_SCHEMA_BUILT}`],
    );
  });

  it("the light list (catalog.ts) names the registered environments, and each takes its summary and metric labels from it", () => {
    assert.deepEqual([...ENVIRONMENT_NAMES], environmentNames());
    for (const info of ENVIRONMENT_INFO) {
      const env = environmentByName(info.name);
      assert.equal(env.summary, info.summary, info.name);
      assert.equal(env.version, info.version, info.name);
      assert.deepEqual(env.metrics, info.metrics, info.name);
      assert.equal(env.tools.length > 0, info.hasTools, info.name);
    }
    const labels = (name: string) => {
      const roles = environmentRoles(name);
      return { primary: roles.primary.label, binary: roles.binary.label };
    };
    assert.deepEqual(labels("gsm8k"), { primary: "accuracy", binary: "accuracy" });
    assert.deepEqual(labels("hotpotqa"), { primary: "F1", binary: "EM" });
  });

  it("grade --env offers exactly the environments the light list says have a grader, all registered", () => {
    assert.deepEqual(GRADE_STEP.flags.env.choices, GRADED_ENVIRONMENTS);
    for (const name of GRADED_ENVIRONMENTS) assert.ok(environmentNames().includes(name), name);
  });

  it("an unknown name is refused with the list", () => {
    assert.throws(
      () => environmentByName("hotpot", "--env"),
      /--env "hotpot": unknown environment; known: hotpotqa, gsm8k/,
    );
  });

  it("manifests: HotpotQA v1 writes no field (old runs resume unchanged), others name themselves; absent reads as HotpotQA", () => {
    assert.deepEqual(environmentField(environmentByName("hotpotqa")), {});
    assert.deepEqual(environmentField(environmentByName("gsm8k")), { environment: { name: "gsm8k", version: "1" } });
    assert.deepEqual(manifestEnvironment({ split: {} }), { name: "hotpotqa", version: "1" });
    assert.deepEqual(manifestEnvironment({ fingerprint: { environment: { name: "gsm8k", version: "1" } } }), {
      name: "gsm8k",
      version: "1",
    });
    assert.equal(environmentOfManifest({ environment: { name: "gsm8k", version: "1" } })?.name, "gsm8k");
    assert.equal(environmentOfManifest({ environment: { name: "elsewhere", version: "3" } }), undefined);
    assert.equal(describeEnvironment({ name: "gsm8k", version: "1" }), "gsm8k v1");
  });

  it("the README says how to add an environment", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    assert.match(readme, /## Add your own environment/);
    for (const name of environmentNames()) assert.ok(readme.includes(`--env ${name}`), `README mentions --env ${name}`);
  });
});
