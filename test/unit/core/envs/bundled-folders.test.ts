/**
 * Run from source, the environments are read from src/core/envs/ at run time; a bundle gets them as
 * static imports from scripts/env-folders.mjs's plugin. The two must find the same environments in
 * the same order: the real CLI bundle's refusal of an unknown --env, and the built schemas, against
 * the in-process lists.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../../../src/core/base/errors";
import { CONFIG_SCHEMA_BUILT, CONFIG_SCHEMA_TEMPLATE, configSchema } from "../../../../src/core/envs/config-schema";
import {
  EXPERIMENT_SCHEMA_BUILT,
  EXPERIMENT_SCHEMA_TEMPLATE,
  experimentSchema,
} from "../../../../src/core/steps/experiments/spec-schema";
import { ENVIRONMENT_NAMES } from "../../../../src/core/envs/catalog";
import { environmentByName } from "../../../../src/core/envs/registry";
import { environmentFolders } from "../../../../scripts/env-folders.mjs";
import { environmentFolders as sourceFolders } from "../../../../src/core/envs/load-folders";
import { runCli } from "../../cli/cli-process";
import { REPO } from "../../../helpers/repo";

describe("envs: the bundles find the folders the sources find", function () {
  this.timeout(120_000);
  const envsDir = join(REPO, "src", "core", "envs");

  it("the plugin's folder rule is the run-time one", () => {
    assert.deepEqual(
      environmentFolders(envsDir).map((f) => f.folder),
      sourceFolders(envsDir),
    );
    assert.deepEqual([...sourceFolders(envsDir)].sort(), [...ENVIRONMENT_NAMES].sort());
  });

  it("the bundled CLI refuses an unknown --env with the in-process list, in its order", async () => {
    const inProcess = (() => {
      try {
        environmentByName("no-such-env");
      } catch (e) {
        if (e instanceof UserError) return e.message;
        throw e;
      }
      throw new Error("an unknown environment was accepted");
    })();
    const r = await runCli(["eval", "--env", "no-such-env", "--name", "x", "--split", "val"]);
    assert.notEqual(r.code, 0);
    assert.ok(r.stderr.includes(inProcess), `${r.stderr} should hold: ${inProcess}`);
  });

  it("the bundled schema writer writes the in-process schema", async () => {
    const { build } = await import("esbuild");
    const { envFoldersPlugin } = await import("../../../../scripts/env-folders.mjs");
    const { NODE_BUNDLE } = await import("../../../../scripts/node-bundle.mjs");
    const dir = mkdtempSync(join(REPO, ".cache", "schema-writer-"));
    try {
      const writer = join(dir, "write-config-schema.cjs");
      await build({
        ...NODE_BUNDLE,
        entryPoints: [join(REPO, "scripts", "write-config-schema.ts")],
        outfile: writer,
        logLevel: "error",
        plugins: [envFoldersPlugin()],
      });
      mkdirSync(join(dir, "data", "schema"), { recursive: true });
      copyFileSync(join(REPO, CONFIG_SCHEMA_TEMPLATE), join(dir, CONFIG_SCHEMA_TEMPLATE));
      copyFileSync(join(REPO, EXPERIMENT_SCHEMA_TEMPLATE), join(dir, EXPERIMENT_SCHEMA_TEMPLATE));
      execFileSync(process.execPath, [writer, dir]);
      const template = JSON.parse(readFileSync(join(REPO, CONFIG_SCHEMA_TEMPLATE), "utf8"));
      assert.deepEqual(JSON.parse(readFileSync(join(dir, CONFIG_SCHEMA_BUILT), "utf8")), configSchema(template));
      const experiment = JSON.parse(readFileSync(join(REPO, EXPERIMENT_SCHEMA_TEMPLATE), "utf8"));
      assert.deepEqual(
        JSON.parse(readFileSync(join(dir, EXPERIMENT_SCHEMA_BUILT), "utf8")),
        experimentSchema(experiment),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
