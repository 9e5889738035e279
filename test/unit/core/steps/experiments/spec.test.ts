/**
 * Experiment specs: the shipped examples read, the shipped JSON schema and the reader agree on the
 * fields, and a bad spec is refused with one line naming file:line and the field.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { estimateExperiment } from "../../../../../src/core/steps/experiments/estimate";
import { readExperimentSpec } from "../../../../../src/core/steps/experiments/spec";
import {
  CHOICES_KEY,
  EXPERIMENT_SCHEMA_TEMPLATE,
  experimentSchema,
} from "../../../../../src/core/steps/experiments/spec-schema";
import { ENVIRONMENT_NAMES } from "../../../../../src/core/envs/catalog";
import { miniatureSpec, writeSpec } from "./fixtures";
import { REPO } from "../../../../helpers/repo";

describe("experiments: spec", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-spec-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the shipped offline and GSM8K specs, the seed's arms and criterion in the latter", () => {
    const offline = readExperimentSpec(join(REPO, "examples", "offline-experiment.json")).spec;
    assert.equal(offline.backend, "local");
    assert.deepEqual(
      offline.arms.map((a) => a.data?.kind),
      ["tasks", "env-train"],
    );
    const g = readExperimentSpec(join(REPO, "examples", "gsm8k-self-generated.json")).spec;
    assert.equal(g.base_model, "Qwen/Qwen3.5-4B");
    assert.equal(g.lora_rank, 32);
    assert.deepEqual(
      g.arms.map((a) => [a.name, a.grpo]),
      [
        ["selfgen", { steps: 100, questions: 32, group: 8, lr: 4e-5, temperature: 1, seed: 0, save_every: 25 }],
        ["gsm8k", { steps: 100, questions: 32, group: 8, lr: 4e-5, temperature: 1, seed: 0, save_every: 25 }],
      ],
    );
    assert.deepEqual(
      g.criterion.supported.map((c) => [c.stat, c.op, c.value]),
      [
        ["arm_minus_base", ">=", 0.02],
        ["recovery", ">=", 0.5],
      ],
    );
    assert.deepEqual(
      g.criterion.refuted.map((c) => c.stat),
      ["arm_minus_base", "drift"],
    );
    assert.deepEqual(
      [g.evaluation.env, g.evaluation.split, g.evaluation.n, g.evaluation.decoding.temperature],
      ["gsm8k", "test", null, 0],
    );
  });

  it("the shipped schema lists the fields the reader accepts, and requires what it requires", () => {
    const schema = JSON.parse(readFileSync(join(REPO, "data", "schema", "experiment.schema.json"), "utf8")) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    const fields = Object.keys(schema.properties)
      .filter((k) => k !== "$schema" && k !== "comment")
      .sort();
    const spec = miniatureSpec();
    assert.deepEqual(fields, [...Object.keys(spec), "world", "sweep"].filter((k, i, a) => a.indexOf(k) === i).sort());
    // Every required field, left out, is refused by the reader too.
    for (const key of schema.required) {
      const s = miniatureSpec();
      delete s[key];
      assert.throws(() => readExperimentSpec(writeSpec(dir, s)), FileFormatError, key);
    }
  });

  it("the built schema takes its environments and metrics from the folders; the template lists none", () => {
    const text = readFileSync(join(REPO, EXPERIMENT_SCHEMA_TEMPLATE), "utf8");
    assert.doesNotMatch(text, /"hotpotqa"|"gsm8k"|"accuracy"|"enum": \[\s*"f1"/, "no hand-kept list of names");
    const built = experimentSchema(JSON.parse(text)) as {
      properties: {
        metric: { enum: string[] };
        evaluation: { properties: { env: { enum: string[] } } };
        arms: { items: { properties: { data: { oneOf: { properties: { env: { enum: string[] } } }[] } } } };
      };
    };
    assert.deepEqual(built.properties.evaluation.properties.env.enum, [...ENVIRONMENT_NAMES]);
    for (const source of built.properties.arms.items.properties.data.oneOf)
      assert.deepEqual(source.properties.env.enum, [...ENVIRONMENT_NAMES]);
    // Every metric name a shipped example uses, old ones included, is a choice.
    assert.deepEqual(built.properties.metric.enum, ["em", "f1", "primary", "binary", "correct", "accuracy"]);
    assert.ok(!JSON.stringify(built).includes(CHOICES_KEY));
  });

  it("names file:line and the field of a bad value", () => {
    const file = writeSpec(dir, miniatureSpec());
    const text = readFileSync(file, "utf8");
    const bad = text.replace('"group": 2', '"group": 1');
    writeFileSync(file, bad);
    const line = bad.split("\n").findIndex((l) => l.includes('"group": 1')) + 1;
    assert.throws(
      () => readExperimentSpec(file),
      (e: Error) => e.message === `${file}:${line}: arms[0].grpo.group: must be an integer ≥ 2 ≤ 256, got 1`,
    );
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ metric: "accuracy" }, /:\d+: metric: hotpotqa is scored by "em", "f1", "primary", "binary"; got "accuracy"$/],
      [
        { criterion: { ...(miniatureSpec().criterion as object), treatment: "nope" } },
        /criterion\.treatment: "nope" is not an arm \(arms: generated, world\)$/,
      ],
      [{ arms: [(miniatureSpec().arms as unknown[])[0]] }, /arms: must list at least two arms/],
      [
        { evaluation: { env: "gsm8k", split: "test", n: 5, decoding: { temperature: 0, max_tokens: 8 } } },
        /arms\[0\]\.data\.env: trains on hotpotqa but the evaluation is on gsm8k/,
      ],
      [{ surprise: 1 }, /:\d+: surprise: unknown field/],
      [
        { world: { kind: "synthetic", seed: 1, train: 100, dev: 400 } },
        /:\d+: world\.dev: 400 dev questions leave 0 in val \(prepare keeps the first 500 for test, then up to 200 for val\), fewer than evaluation\.n = 20$/,
      ],
    ];
    const arms = miniatureSpec().arms as Record<string, unknown>[];
    const sft = { epochs: 1, batch: 2, lr: 0.01, data: { kind: "file", path: "sft.jsonl" } };
    cases.push(
      // Per-arm SFT: an arm is SFT, GRPO or both; GRPO's data belongs to GRPO; the teacher needs the world.
      [
        { arms: [{ name: "neither", data: arms[1].data }, arms[1]] },
        /:\d+: arms\[0\]: needs a "sft" recipe, a "grpo" recipe, or both/,
      ],
      [
        { arms: [{ name: "sftonly", data: arms[1].data, sft }, arms[1]] },
        /:\d+: arms\[0\]\.data: is GRPO's training list and this arm has no "grpo" recipe/,
      ],
      [
        { arms: [{ name: "nodata", grpo: arms[1].grpo }, arms[1]] },
        /:\d+: arms\[0\]\.data: a GRPO arm needs its training list/,
      ],
      [
        { arms: [{ name: "s", sft: { ...sft, data: { kind: "runs", runs: [] } } }, arms[1]] },
        /:\d+: arms\[0\]\.sft\.data\.runs: must list at least one run/,
      ],
      [
        { arms: [{ name: "s", sft: { ...sft, data: { kind: "file", path: "a", runs: ["b"] } } }, arms[1]] },
        /:\d+: arms\[0\]\.sft\.data\.runs: unknown field \(allowed: kind, path\)/,
      ],
    );
    for (const [over, message] of cases)
      assert.throws(() => readExperimentSpec(writeSpec(dir, miniatureSpec(over))), message);
    const gsm = JSON.parse(readFileSync(join(REPO, "examples", "gsm8k-self-generated.json"), "utf8")) as {
      arms: Record<string, unknown>[];
    };
    gsm.arms[1] = { ...gsm.arms[1], sft: { ...sft, data: { kind: "teacher", questions: 4 } } };
    assert.throws(
      () => readExperimentSpec(writeSpec(dir, gsm)),
      /:\d+: arms\[1\]\.sft\.data: the scripted teacher writes the synthetic world's answers/,
    );
    // An SFT-only arm (no data) and an SFT-then-GRPO arm are read as such.
    const ok = readExperimentSpec(
      writeSpec(
        dir,
        miniatureSpec({
          arms: [
            { name: "generated", sft: { ...sft, data: { kind: "runs", runs: ["r1"] } } },
            { ...arms[1], sft },
          ],
        }),
      ),
    ).spec;
    assert.equal(ok.arms[0].data, undefined);
    assert.deepEqual(ok.arms[0].sft?.data, { kind: "runs", runs: ["r1"], min_reward: 1, best_of: 1 });
    assert.equal(ok.arms[1].sft?.epochs, 1);
    writeFileSync(file, text.replace('"title"', '"title" "x"'));
    assert.throws(
      () => readExperimentSpec(file),
      new RegExp(`^FileFormatError: ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:\\d+: not valid JSON`),
    );
  });

  it("estimates the GSM8K spec phase by phase (what README's Experiments section shows) and the offline one at $0", () => {
    const g = estimateExperiment(readExperimentSpec(join(REPO, "examples", "gsm8k-self-generated.json")).spec);
    assert.deepEqual(
      g.lines.map((l) => l.phase),
      ["tasks:selfgen", "train:selfgen", "train:gsm8k", "eval"],
    );
    assert.ok(g.usd > 50 && g.usd < 500, String(g.usd));
    assert.equal(Math.round(g.usd * 100), Math.round(g.lines.reduce((s, l) => s + l.usd, 0) * 100));
    assert.equal(estimateExperiment(readExperimentSpec(join(REPO, "examples", "offline-experiment.json")).spec).usd, 0);
  });
});
