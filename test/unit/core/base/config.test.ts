import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pricesFor } from "../../../../src/core/base/config";
import { DEFAULT_CONFIG, loadConfig } from "../../../../src/core/envs/config";
import { FileFormatError, UserError } from "../../../../src/core/base/errors";
import { ENVIRONMENT_NAMES } from "../../../../src/core/envs/catalog";
import { CONFIG_SCHEMA_TEMPLATE, configSchema } from "../../../../src/core/envs/config-schema";
import { REPO } from "../../../helpers/repo";

function workspace(config?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-lab-config-"));
  if (config !== undefined) writeFileSync(join(dir, "agent-lab.json"), config);
  return dir;
}

describe("config", () => {
  it("has the recipe's defaults", () => {
    const c = loadConfig(workspace());
    assert.equal(c.model, "Qwen/Qwen3.5-4B");
    assert.equal(c.localModel, "Qwen/Qwen3.5-0.8B");
    assert.deepEqual([c.topK, c.maxSearches, c.maxTokens, c.loraRank], [3, 5, 512, 32]);
    assert.deepEqual(c.prices["Qwen/Qwen3.5-4B"], { prefill: 0.33, sample: 1.005, train: 0.737 });
  });

  it("layers workspace file under explicit overrides", () => {
    const dir = workspace(JSON.stringify({ topK: 5, maxSearches: 2 }));
    const c = loadConfig(dir, { topK: 1 });
    assert.equal(c.topK, 1);
    assert.equal(c.maxSearches, 2);
  });

  it("merges prices per model so defaults survive", () => {
    const dir = workspace(JSON.stringify({ prices: { "m/x": { prefill: 1, sample: 2, train: 3 } } }));
    const c = loadConfig(dir);
    assert.equal(pricesFor(c, "m/x").train, 3);
    assert.equal(pricesFor(c, "Qwen/Qwen3.5-4B").prefill, 0.33);
  });

  it("refuses a model without a price, saying how to add one", () => {
    assert.throws(
      () => pricesFor(loadConfig(workspace()), "meta/unknown"),
      (e: Error) =>
        e instanceof UserError &&
        /no price for model "meta\/unknown"/.test(e.message) &&
        /agent-lab\.json/.test(e.message),
    );
  });

  it("names file and line for invalid JSON and bad values", () => {
    assert.throws(
      () => loadConfig(workspace('{\n  "topK": 3,\n  oops\n}')),
      (e: Error) => e instanceof FileFormatError && e.line === 3 && e.message.includes("agent-lab.json:3"),
    );
    assert.throws(
      () => loadConfig(workspace('{\n  "topK": 0\n}')),
      (e: Error) => e instanceof FileFormatError && e.line === 2 && /positive integer/.test(e.message),
    );
    assert.throws(() => loadConfig(workspace('{"topk": 3}')), /not a setting/);
  });

  it("defaults env to a registered environment (not an offline world)", () => {
    assert.ok(ENVIRONMENT_NAMES.includes(DEFAULT_CONFIG.env), DEFAULT_CONFIG.env);
  });

  it("ships a JSON schema that matches the defaults (the built one: the template plus the environments)", () => {
    const schema = configSchema(JSON.parse(readFileSync(join(REPO, CONFIG_SCHEMA_TEMPLATE), "utf8"))) as {
      properties: Record<string, { default?: unknown }>;
    };
    const props = Object.keys(schema.properties)
      .filter((k) => k !== "$schema")
      .sort();
    assert.deepEqual(props, Object.keys(DEFAULT_CONFIG).sort());
    for (const key of props) assert.deepEqual(schema.properties[key].default, (DEFAULT_CONFIG as any)[key], key);
  });
});
