import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readEnvConfig, SETTINGS_ENV } from "../../../src/core/base/config";
import { DEFAULT_CONFIG, loadConfig } from "../../../src/core/envs/config";
import { FileFormatError } from "../../../src/core/base/errors";
import { SAMPLING_BACKENDS } from "../../../src/core/steps/specs/common-flags";
import {
  explicitValue,
  jobBackend,
  settingsEnv,
  settingsOverrides,
  type SettingLayers,
} from "../../../src/extension/settings/settings-overrides";

const REPO = resolve(__dirname, "..", "..", "..");

describe("extension: settings → jobs (AGENT_LAB_SETTINGS layer)", () => {
  it("loadConfig layers defaults < agent-lab.json < AGENT_LAB_SETTINGS < flags", () => {
    const ws = mkdtempSync(join(tmpdir(), "agent-lab-settings-"));
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ topK: 5, maxSearches: 2, loraRank: 8 }));
    const env = { [SETTINGS_ENV]: JSON.stringify({ topK: 4, maxSearches: 3, budgetUsd: 12.5 }) };
    const c = loadConfig(ws, { topK: 1 }, env);
    assert.deepEqual([c.topK, c.maxSearches, c.loraRank, c.budgetUsd], [1, 3, 8, 12.5]);
    assert.equal(loadConfig(ws, {}, {}).topK, 5, "without the variable the file decides");
    assert.equal(loadConfig(ws, {}, { [SETTINGS_ENV]: "  " }).topK, 5, "blank = unset");
  });

  it("a bad AGENT_LAB_SETTINGS is refused like a bad file, naming the variable", () => {
    assert.throws(
      () => readEnvConfig({ [SETTINGS_ENV]: "{topK: 3" }),
      (e: Error) =>
        e instanceof FileFormatError && /environment variable AGENT_LAB_SETTINGS: not valid JSON/.test(e.message),
    );
    assert.throws(
      () => readEnvConfig({ [SETTINGS_ENV]: '{"topK": 0}' }),
      /AGENT_LAB_SETTINGS.*"topK" must be a positive integer/,
    );
    assert.throws(() => readEnvConfig({ [SETTINGS_ENV]: '{"apiKey": "tml-x"}' }), /"apiKey" is not a setting/);
  });

  it("passes only what the user set (folder > workspace > user), so VS Code defaults never hide agent-lab.json", () => {
    assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 }), 3);
    assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2 }), 2);
    assert.equal(explicitValue({ globalValue: 1 }), 1);
    assert.equal(explicitValue({}), undefined);
    const layers: Record<string, SettingLayers> = {
      topK: { workspaceValue: 2 },
      budgetUsd: { globalValue: 5 },
      model: {},
    };
    const o = settingsOverrides((k) => layers[k]);
    assert.deepEqual(o, { topK: 2, budgetUsd: 5 });
    assert.deepEqual(JSON.parse(settingsEnv(o)[SETTINGS_ENV]), { topK: 2, budgetUsd: 5 });
    assert.deepEqual(settingsEnv({}), {}, "nothing set: no variable at all");
    assert.throws(
      () => settingsOverrides((k) => (k === "concurrency" ? { workspaceValue: -1 } : undefined)),
      /VS Code settings \(agentLab\.\*\).*"concurrency"/,
    );
  });

  it("backend setting: unknown values fall back to the free local backend; the setting offers the steps' backends", () => {
    assert.equal(jobBackend("tinker"), "tinker");
    assert.equal(jobBackend("gpu-farm"), "local");
    assert.equal(jobBackend(undefined), "local");
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    assert.deepEqual(
      [...pkg.contributes.configuration.properties["agentLab.backend"].enum].sort(),
      [...SAMPLING_BACKENDS].sort(),
    );
  });

  it("package.json's agentLab.* settings mirror every config key with the same default, and no key setting exists", () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    const props = pkg.contributes.configuration.properties as Record<string, { default: unknown }>;
    for (const [key, value] of Object.entries(DEFAULT_CONFIG)) {
      assert.ok(props[`agentLab.${key}`], `agentLab.${key} is contributed`);
      assert.deepEqual(props[`agentLab.${key}`].default, value, `agentLab.${key} default`);
    }
    assert.ok(props["agentLab.backend"]);
    assert.ok(!Object.keys(props).some((k) => /api.?key|secret|password/i.test(k)), "the API key is never a setting");
  });
});
