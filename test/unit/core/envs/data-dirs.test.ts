/**
 * What an environment's prepared data folder must hold (envs/data-dirs.ts), checked on folders the
 * real `prepare` wrote, and each environment's declared prepare sources against what its data step
 * and `agent-lab prepare` actually take.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOTPOT_CONFIG, HOTPOT_REPO } from "../../../../src/core/envs/hotpotqa/hub";
import { ENVIRONMENT_INFO } from "../../../../src/core/envs/catalog";
import {
  environmentData,
  missingCorpusLine,
  missingDataLine,
  missingIndexLine,
} from "../../../../src/core/envs/data-dirs";
import { GSM8K_CONFIG, GSM8K_REPO } from "../../../../src/core/envs/gsm8k/data";
import { PREPARE_STEP } from "../../../../src/core/steps/catalog/catalog";
import { prepareHotpot, writeSyntheticWorld } from "../../../../src/core/envs/hotpotqa/world-files";
import { indexCorpus } from "../../../../src/core/steps/recipe/stages";
import { prepareFixtureTwin } from "./gsm8k/fixture";

describe("envs/data-dirs: an environment's prepared data, and its declared prepare sources", function () {
  this.timeout(60_000);
  let ws: string;
  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-data-dirs-"));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it("an empty workspace: every environment lacks its three splits and splits.json, and the line says where", () => {
    for (const e of ENVIRONMENT_INFO) {
      assert.deepEqual(environmentData(e.name, join(ws, "data")).missing, [
        "train.jsonl",
        "val.jsonl",
        "test.jsonl",
        "splits.json",
      ]);
    }
    assert.equal(
      missingDataLine(ws, { dataDir: "data" }, "gsm8k"),
      "gsm8k has no prepared data (nothing in data/gsm8k)",
    );
    assert.equal(
      missingDataLine(ws, { dataDir: "data" }, "hotpotqa"),
      "hotpotqa has no prepared data (nothing in data)",
    );
    assert.equal(missingCorpusLine(ws, { dataDir: "data" }), "no corpus to index: data/corpus.jsonl is missing");
  });

  it("after the real prepare (GSM8K's fixture twin): ready; a split taken away is named", async () => {
    await prepareFixtureTwin(join(ws, "data"), join(ws, "raw"));
    assert.deepEqual(environmentData("gsm8k", join(ws, "data")).missing, []);
    assert.equal(missingDataLine(ws, { dataDir: "data" }, "gsm8k"), undefined);
    unlinkSync(join(ws, "data", "gsm8k", "val.jsonl"));
    assert.equal(
      missingDataLine(ws, { dataDir: "data" }, "gsm8k"),
      "gsm8k's data is not all prepared: data/gsm8k lacks val.jsonl",
    );
    // An absolute dataDir is used as it is.
    assert.deepEqual(environmentData("gsm8k", join(ws, "data")).missing, ["val.jsonl"]);
    assert.match(missingDataLine("/elsewhere", { dataDir: join(ws, "data") }, "gsm8k")!, /lacks val\.jsonl$/);
  });

  it("the files splits.json records count too (HotpotQA's corpus), and a torn splits.json is left to the step that reads it", async () => {
    const world = writeSyntheticWorld(join(ws, "world"), { seed: 1, train: 40, dev: 30 });
    await prepareHotpot(
      join(ws, "data"),
      { trainFiles: [world.trainFile], devFiles: [world.devFile], source: "synthetic" },
      () => undefined,
      { test: 10, val: 10 },
    );
    assert.deepEqual(environmentData("hotpotqa", join(ws, "data")).missing, []);
    assert.equal(missingCorpusLine(ws, { dataDir: "data" }), undefined);
    // It searches an index of that corpus: not built yet, then built by the index step's own function.
    assert.equal(
      missingIndexLine(ws, { dataDir: "data" }, "hotpotqa"),
      "hotpotqa searches the index in data/bm25, which is not built yet",
    );
    await indexCorpus(join(ws, "data"), { workers: 0 });
    assert.equal(missingIndexLine(ws, { dataDir: "data" }, "hotpotqa"), undefined);
    assert.equal(missingIndexLine(ws, { dataDir: "data" }, "gsm8k"), undefined, "no tools, no index");
    unlinkSync(join(ws, "data", "corpus.jsonl"));
    assert.deepEqual(environmentData("hotpotqa", join(ws, "data")).missing, ["corpus.jsonl"]);
    writeFileSync(join(ws, "data", "splits.json"), '{"files": {"corpus.js');
    assert.deepEqual(environmentData("hotpotqa", join(ws, "data")).missing, []);
  });

  it("every environment declares where prepare takes its records: the hub dataset its data step downloads, local roles prepare has flags for", () => {
    const listFlags = Object.entries(PREPARE_STEP.flags)
      .filter(([, f]) => f.type === "list")
      .map(([n]) => n);
    for (const e of ENVIRONMENT_INFO) {
      const s = e.prepareSources;
      assert.ok(s, `${e.name} declares prepareSources`);
      assert.ok(s.local.roles.length > 0 && s.local.extensions.length > 0, e.name);
      for (const r of s.local.roles) assert.ok(listFlags.includes(r.flag), `${e.name}: --${r.flag} is a prepare flag`);
      assert.ok(
        s.local.roles.some((r) => r.flag === "train"),
        `${e.name} takes train files`,
      );
    }
    const by = Object.fromEntries(ENVIRONMENT_INFO.map((e) => [e.name, e.prepareSources!]));
    assert.deepEqual(by.gsm8k.hub, { repo: GSM8K_REPO, config: GSM8K_CONFIG });
    assert.deepEqual(by.hotpotqa.hub, { repo: HOTPOT_REPO, config: HOTPOT_CONFIG });
    assert.deepEqual(
      by.gsm8k.local.roles.map((r) => r.flag),
      ["train", "test"],
    );
    assert.deepEqual(
      by.hotpotqa.local.roles.map((r) => r.flag),
      ["train", "dev"],
    );
  });
});
