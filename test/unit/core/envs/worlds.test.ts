/**
 * The offline worlds are environments of their own: declared in their environment's folder
 * (world-info.ts), listed by the catalog beside the real ones (not as `--env` choices of the single
 * steps), registered over the real environment's code, and named in their runs' manifests, so runs
 * on a world read, label and compare apart from runs on the real dataset; manifests from before
 * (no environment field) still read as HotpotQA.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { environmentField, manifestEnvironment } from "../../../../src/core/envs/manifest-environment";
import {
  ENVIRONMENT_NAMES,
  environmentInfo,
  environmentRoles,
  PIPELINE_ENVIRONMENTS,
  WORLD_INFO,
  WORLD_NAMES,
  worldOf,
} from "../../../../src/core/envs/catalog";
import { GSM8K_WORLD_NAME } from "../../../../src/core/envs/gsm8k/world-info";
import { HOTPOTQA_WORLD_NAME } from "../../../../src/core/envs/hotpotqa/world-info";
import {
  environmentByName,
  environmentNames,
  environmentOfManifest,
  offlineWorld,
  worldEnvironment,
} from "../../../../src/core/envs/registry";
import { WORLD_SOURCE } from "../../../../src/core/envs/hotpotqa/world-files";
import {
  reportEnvironment,
  SYNTHETIC_REPORT,
  SYNTHETIC_WORLD_SOURCE,
} from "../../../../src/core/steps/ablate/report-environment";

describe("envs: the offline worlds as their own environments", () => {
  it("are declared once, in their environment's folder, and named hotpotqa-world and gsm8k-world", () => {
    assert.equal(HOTPOTQA_WORLD_NAME, "hotpotqa-world");
    assert.equal(GSM8K_WORLD_NAME, "gsm8k-world");
    assert.deepEqual([...WORLD_NAMES], [HOTPOTQA_WORLD_NAME, GSM8K_WORLD_NAME]);
    assert.deepEqual(
      WORLD_INFO.map((w) => w.worldOf),
      ["hotpotqa", "gsm8k"],
    );
    assert.deepEqual([...PIPELINE_ENVIRONMENTS], [...ENVIRONMENT_NAMES]);
    assert.equal(worldOf("gsm8k"), GSM8K_WORLD_NAME);
  });

  it("are not --env choices of the single steps, but every lookup by name finds them, with the real one's metrics", () => {
    assert.deepEqual(environmentNames(), ["hotpotqa", "gsm8k"]);
    for (const name of WORLD_NAMES) {
      const world = environmentInfo(name)!;
      const env = environmentByName(name);
      assert.equal(env.name, name);
      assert.equal(env.summary, world.summary);
      assert.deepEqual(env.metrics, environmentInfo(world.worldOf!)!.metrics);
      assert.deepEqual(environmentRoles(name), environmentRoles(world.worldOf!));
      assert.equal(worldEnvironment(world.worldOf!), env);
      // The real environment's code: same scorer and tools.
      const real = environmentByName(world.worldOf!);
      assert.equal(env.scorerVersion, real.scorerVersion);
      assert.equal(env.tools, real.tools);
    }
    assert.equal(offlineWorld("gsm8k")?.env.name, GSM8K_WORLD_NAME);
    // The first environment's world is declared in its folder like every other (the pipeline names none).
    assert.equal(offlineWorld("hotpotqa")?.env.name, HOTPOTQA_WORLD_NAME);
    assert.ok(offlineWorld("hotpotqa")?.tools, "the multi-hop world searches: an index, a closed-book floor");
    assert.equal(offlineWorld("gsm8k")?.tools, undefined);
  });

  it("the multi-hop world's prepare names its source as the ablation's report recognises it", () => {
    assert.equal(WORLD_SOURCE, SYNTHETIC_WORLD_SOURCE);
  });

  it("their manifests name them; a manifest without the field is still HotpotQA", () => {
    for (const name of WORLD_NAMES) {
      const field = environmentField(environmentByName(name));
      assert.deepEqual(field, { environment: { name, version: "1" } });
      assert.equal(environmentOfManifest(field)?.name, name);
      assert.equal(manifestEnvironment({ fingerprint: field }).name, name);
    }
    assert.equal(environmentOfManifest({ split: {} })?.name, "hotpotqa");
  });

  it("a world's data folder: the multi-hop world's is the data folder itself (as HotpotQA's), the arithmetic world's its own", () => {
    assert.equal(environmentByName(HOTPOTQA_WORLD_NAME).data.dir("/w/data"), "/w/data");
    assert.equal(environmentByName(GSM8K_WORLD_NAME).data.dir("/w/data"), join("/w/data", GSM8K_WORLD_NAME));
  });

  it("reports on a world carry its own heading and caveat (the same lines as reports on the world before it had a name)", () => {
    const r = reportEnvironment({ name: HOTPOTQA_WORLD_NAME, version: "1" });
    assert.equal(r.dataset, SYNTHETIC_REPORT.dataset);
    assert.equal(r.limitation, SYNTHETIC_REPORT.limitation);
    assert.match(reportEnvironment({ name: GSM8K_WORLD_NAME, version: "1" }).limitation, /invented offline world/);
  });
});
