/**
 * What files naming no environment mean, now that the environment declares it (hotpotqa's info:
 * impliedVersion) instead of base/ naming it: a manifest without `environment` still reads as
 * hotpotqa v1, new hotpotqa v1 manifests still omit the field (their fingerprints match the runs
 * made before environments existed), run readers resolve an unnamed run to it, and the config's
 * default `env` and every default setting are unchanged, serialised byte for byte.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SETTING_DEFAULTS, SETTING_NAMES } from "../../../../src/core/base/config";
import { recordedEnvironment } from "../../../../src/core/base/runs/environment-id";
import { runMetrics } from "../../../../src/core/base/runs/run-files";
import {
  ENVIRONMENT_INFO,
  environmentInfo,
  environmentMetrics,
  IMPLIED_ENVIRONMENT,
  WORLD_INFO,
} from "../../../../src/core/envs/catalog";
import { DEFAULT_CONFIG, mergeConfig } from "../../../../src/core/envs/config";
import {
  environmentField,
  manifestEnvironment,
  runEnvironmentName,
} from "../../../../src/core/envs/manifest-environment";
import { DEFAULT_ENVIRONMENT } from "../../../../src/core/envs/registry";

describe("the implied environment (files that name none)", () => {
  it("is hotpotqa v1, the one environment whose info declares it", () => {
    assert.deepEqual(IMPLIED_ENVIRONMENT, { name: "hotpotqa", version: "1" });
    assert.deepEqual(
      [...ENVIRONMENT_INFO, ...WORLD_INFO].filter((e) => e.impliedVersion !== undefined).map((e) => e.name),
      ["hotpotqa"],
    );
    assert.equal(environmentInfo("hotpotqa-world")?.impliedVersion, undefined, "the world's runs always name it");
  });

  it("a manifest without `environment` reads as hotpotqa v1; base reads it as recording none", () => {
    for (const manifest of [{}, { split: {} }, { fingerprint: {} }, undefined, null, "x"]) {
      assert.deepEqual(manifestEnvironment(manifest), { name: "hotpotqa", version: "1" });
      assert.equal(recordedEnvironment(manifest), undefined);
    }
    const gsm8k = { environment: { name: "gsm8k", version: "1" } };
    assert.deepEqual(recordedEnvironment(gsm8k), gsm8k.environment);
    assert.deepEqual(manifestEnvironment(gsm8k), gsm8k.environment);
  });

  it("new hotpotqa v1 manifests omit the field; another version or environment writes it", () => {
    assert.deepEqual(environmentField({ name: "hotpotqa", version: "1" }), {});
    assert.deepEqual(environmentField({ name: "hotpotqa", version: "2" }), {
      environment: { name: "hotpotqa", version: "2" },
    });
    assert.deepEqual(environmentField({ name: "gsm8k", version: "1" }), {
      environment: { name: "gsm8k", version: "1" },
    });
  });

  it("a run folder whose manifest names none (or that has none) is hotpotqa's, its metrics hotpotqa's", () => {
    const dir = mkdtempSync(join(tmpdir(), "implied-env-"));
    try {
      assert.equal(runEnvironmentName(dir), "hotpotqa");
      assert.deepEqual(runMetrics(dir, environmentMetrics), environmentInfo("hotpotqa")!.metrics);
      writeFileSync(join(dir, "manifest.json"), JSON.stringify({ environment: { name: "gsm8k", version: "1" } }));
      assert.equal(runEnvironmentName(dir), "gsm8k");
      assert.deepEqual(runMetrics(dir, environmentMetrics), environmentInfo("gsm8k")!.metrics);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the config's defaults", () => {
  it("env is hotpotqa, the registry's default, and every default serialises as before", () => {
    assert.equal(DEFAULT_CONFIG.env, "hotpotqa");
    assert.equal(DEFAULT_CONFIG.env, DEFAULT_ENVIRONMENT);
    assert.ok(Object.isFrozen(DEFAULT_CONFIG));
    assert.equal(
      JSON.stringify(DEFAULT_CONFIG),
      '{"model":"Qwen/Qwen3.5-4B","localModel":"Qwen/Qwen3.5-0.8B","topK":3,"maxSearches":5,"maxTokens":512,' +
        '"loraRank":32,"concurrency":32,"budgetUsd":0,"prices":{"Qwen/Qwen3.5-4B":{"prefill":0.33,"sample":1.005,' +
        '"train":0.737}},"dataDir":"data","runsDir":"runs","systemPromptFile":"","env":"hotpotqa","thinking":false,' +
        '"formatPenalty":0,"searchUrl":""}',
    );
    assert.equal(JSON.stringify(mergeConfig()), JSON.stringify(DEFAULT_CONFIG));
  });

  it("base's defaults are the same values but env, and its names are every setting's in order", () => {
    const { env: _env, ...rest } = DEFAULT_CONFIG;
    assert.equal(JSON.stringify(SETTING_DEFAULTS), JSON.stringify(rest));
    assert.deepEqual(SETTING_NAMES, Object.keys(DEFAULT_CONFIG));
  });
});
