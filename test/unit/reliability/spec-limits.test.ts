/**
 * Reliability: every size and seed of an experiment spec has a maximum, in the shipped schema and
 * in the reader, refused when the spec is read with the limit named (`world.train: 1e9` priced at
 * $0.00 and died of memory; `generate.count: 1e9` wrote 2.2 GB; `seed: 1e300` failed three
 * phases later as an internal error). Nothing is written: the spec file stays as it was.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../src/core/base/errors";
import { readExperimentSpec } from "../../../src/core/steps/experiments/spec";
import { EXPERIMENT_SCHEMA_TEMPLATE } from "../../../src/core/steps/experiments/spec-schema";
import { STEPS } from "../../../src/core/steps/catalog/catalog";
import { checkFlagValue } from "../../../src/core/steps/specs/flags";
import { miniatureSpec, writeSpec, type SpecObject } from "../core/steps/experiments/fixtures";
import { REPO } from "../../helpers/repo";

describe("reliability: spec sizes have a maximum", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-spec-limits-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("every integer in the shipped experiment schema has a maximum", () => {
    const missing: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${path}[${i}]`));
      if (node === null || typeof node !== "object" || Array.isArray(node)) return;
      const o = node as Record<string, unknown>;
      const type = o.type;
      if ((type === "integer" || (Array.isArray(type) && type.includes("integer"))) && typeof o.maximum !== "number")
        missing.push(path);
      for (const [k, v] of Object.entries(o)) walk(v, `${path}/${k}`);
    };
    walk(JSON.parse(readFileSync(join(REPO, EXPERIMENT_SCHEMA_TEMPLATE), "utf8")), "");
    assert.deepEqual(missing, []);
  });

  it("a size or seed over its maximum is refused at the door, naming the field and the limit", () => {
    const base = miniatureSpec();
    const arms = base.arms as SpecObject[];
    const generated = (over: SpecObject): SpecObject => {
      const data = arms[0].data as SpecObject;
      return {
        arms: [{ ...arms[0], data: { ...data, generate: { ...(data.generate as SpecObject), ...over } } }, arms[1]],
      };
    };
    const cases: [SpecObject, string, string][] = [
      [
        { world: { kind: "synthetic", seed: 7, train: 1e9, dev: 520 } },
        '"train": 1000000000',
        "world.train: must be an integer ≥ 10 ≤ 100000, got 1000000000",
      ],
      [
        generated({ count: 1e9 }),
        '"count": 1000000000',
        "arms[0].data.generate.count: must be an integer ≥ 1 ≤ 100000, got 1000000000",
      ],
      [{ seed: 1e300 }, '"seed": 1e+300', "seed: must be an integer ≥ 0 ≤ 4294967295, got 1e+300"],
      [
        { evaluation: { ...(base.evaluation as SpecObject), n: 1e9 } },
        '"n": 1000000000',
        "evaluation.n: must be an integer ≥ 1 ≤ 100000, got 1000000000",
      ],
    ];
    for (const [over, needle, message] of cases) {
      const file = writeSpec(dir, miniatureSpec(over));
      const text = readFileSync(file, "utf8");
      const line = text.split("\n").findIndex((l) => l.includes(needle)) + 1;
      assert.ok(line > 0, needle);
      assert.throws(
        () => readExperimentSpec(file),
        (e: unknown) => e instanceof FileFormatError && e.message === `${file}:${line}: ${message}`,
        message,
      );
      assert.equal(readFileSync(file, "utf8"), text);
      assert.deepEqual(readdirSync(dir), ["spec.json"]);
    }
  });

  it("every integer flag of every step has a maximum; a seed or size over it is refused naming the limit", () => {
    const unbounded = STEPS.flatMap((step) =>
      Object.entries(step.flags)
        .filter(([, spec]) => spec.type === "int" && spec.max === undefined)
        .map(([name]) => `${step.name} --${name}`),
    );
    assert.deepEqual(unbounded, []);
    const flag = (step: string, name: string) => STEPS.find((s) => s.name === step)!.flags[name];
    assert.throws(
      () => checkFlagValue("seed", flag("train-grpo", "seed"), "1e300"),
      (e: Error) => e.message === '--seed must be an integer in [0, 4294967295], got "1e300"',
    );
    assert.throws(
      () => checkFlagValue("limit", flag("eval", "limit"), "1000000000"),
      (e: Error) => e.message === '--limit must be an integer in [1, 100000], got "1000000000"',
    );
  });
});
