/**
 * A sweep in a spec: the grid expanded in a stable order with arms named from their values, a list
 * of overrides, and every bad sweep field refused with one line naming it (the exact messages).
 * Specs without a sweep read as before.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileFormatError } from "../../../../../src/core/base/errors";
import { readExperimentSpec } from "../../../../../src/core/steps/experiments/spec";
import {
  gridPoints,
  SWEEP_MAX_ARMS,
  sweepArmName,
  sweepValueText,
} from "../../../../../src/core/steps/experiments/sweep-spec";
import { miniatureSpec, writeSpec } from "./fixtures";
import { miniatureSweep, SWEEP_ARMS } from "./sweep-fixtures";

describe("experiments: sweep specs", () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "agent-lab-sweep-spec-"))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("writes values short and folder-safe: integers as they are, small numbers in exponent form, a point as p", () => {
    assert.deepEqual([4, 100, 1e-5, 4e-5, 0.002, 1.5e-5, 0.5, 1, 0.05, 2e6].map(sweepValueText), [
      "4",
      "100",
      "1e-5",
      "4e-5",
      "2e-3",
      "1p5e-5",
      "0p5",
      "1",
      "0p05",
      "2e6",
    ]);
    assert.equal(
      sweepArmName("grpo", ["grpo.lr", "grpo.group"], { "grpo.lr": 1e-4, "grpo.group": 8 }),
      "grpo_lr1e-4_g8",
    );
    assert.equal(
      sweepArmName("a", ["sft.lr", "data.offset"], { "sft.lr": 0.01, "data.offset": 400 }),
      "a_sftlr0p01_off400",
    );
  });

  it("expands a grid with the last parameter fastest, each arm the template with its values, in the template's place", () => {
    assert.deepEqual(gridPoints({ a: [1, 2, 3], b: [4, 8] }), [
      { a: 1, b: 4 },
      { a: 1, b: 8 },
      { a: 2, b: 4 },
      { a: 2, b: 8 },
      { a: 3, b: 4 },
      { a: 3, b: 8 },
    ]);
    const { spec } = readExperimentSpec(writeSpec(dir, miniatureSweep()));
    assert.deepEqual(
      spec.arms.map((a) => a.name),
      SWEEP_ARMS,
    );
    assert.deepEqual(
      spec.arms.map((a) => [a.grpo!.lr, a.grpo!.group, a.grpo!.steps, a.data]),
      [
        [0.002, 2, 2, { kind: "env-train", env: "hotpotqa", offset: 16 }],
        [0.002, 3, 2, { kind: "env-train", env: "hotpotqa", offset: 16 }],
        [0.004, 2, 2, { kind: "env-train", env: "hotpotqa", offset: 16 }],
        [0.004, 3, 2, { kind: "env-train", env: "hotpotqa", offset: 16 }],
      ],
    );
    assert.deepEqual(spec.sweep, {
      arm: "w",
      baseline: "w_lr2e-3_g2",
      max_concurrent_arms: 2,
      params: ["grpo.lr", "grpo.group"],
      points: SWEEP_ARMS.map((name, i) => ({
        name,
        values: { "grpo.lr": [0.002, 0.002, 0.004, 0.004][i], "grpo.group": [2, 3, 2, 3][i] },
      })),
    });
    // The same spec reads to the same arms every time (names are the record's keys).
    assert.deepEqual(readExperimentSpec(writeSpec(dir, miniatureSweep())).spec, spec);
  });

  it("reads a list of overrides beside other arms: names from the values, or given; the other arms kept in place", () => {
    const world = (miniatureSpec().arms as Record<string, unknown>[])[1];
    const s = miniatureSweep(
      {
        grid: undefined,
        arms: [{ "grpo.lr": 0.001 }, { name: "hot", "grpo.temperature": 1.5, "grpo.lr": 0.003 }],
        baseline: undefined,
        max_concurrent_arms: undefined,
      },
      {
        arms: [
          { ...world, name: "ref" },
          { ...world, name: "w" },
        ],
      },
    );
    (s.criterion as Record<string, unknown>).treatment = "hot";
    (s.criterion as Record<string, unknown>).reference = "ref";
    const { spec } = readExperimentSpec(writeSpec(dir, s));
    assert.deepEqual(
      spec.arms.map((a) => [a.name, a.grpo!.lr, a.grpo!.temperature]),
      [
        ["ref", 0.002, 1],
        ["w_lr1e-3", 0.001, 1],
        ["hot", 0.003, 1.5],
      ],
    );
    assert.equal(spec.sweep!.baseline, "base");
    assert.equal(spec.sweep!.max_concurrent_arms, 1);
    assert.deepEqual(spec.sweep!.params, ["grpo.lr", "grpo.temperature"]);
  });

  it("refuses every bad sweep field with one line naming it", () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { grid: { "grpo.learning_rate": [1e-5] } },
        "sweep.grid.grpo.learning_rate: unknown parameter (a sweep varies grpo.lr, grpo.group, grpo.steps, grpo.questions, grpo.temperature, grpo.seed, sft.lr, sft.epochs, sft.batch, data.offset)",
      ],
      [{ grid: { "grpo.lr": [] } }, "sweep.grid.grpo.lr: must list at least one value, e.g. [0.001, 0.004]"],
      [{ grid: { "grpo.lr": 0.1 } }, "sweep.grid.grpo.lr: must list at least one value, e.g. [0.001, 0.004]"],
      [{ grid: { "grpo.lr": [0.001, "fast"] } }, 'sweep.grid.grpo.lr[1]: must be a number > 0 ≤ 1, got "fast"'],
      [{ grid: { "grpo.group": [2, 2.5] } }, "sweep.grid.grpo.group[1]: must be an integer ≥ 2 ≤ 256, got 2.5"],
      [{ grid: { "grpo.lr": [0.001, 0.001] } }, "sweep.grid.grpo.lr: lists 0.001 twice"],
      [{ grid: {} }, 'sweep.grid: must give at least one parameter, e.g. {"grpo.lr": [0.001, 0.004]}'],
      [
        {
          grid: {
            "grpo.lr": [0.001, 0.002, 0.003, 0.004],
            "grpo.group": [2, 4, 8],
            "grpo.seed": [0, 1, 2],
          },
        },
        `sweep.grid: 4 × 3 × 3 = 36 arms, over the ${SWEEP_MAX_ARMS} one sweep may run: drop values or split the sweep`,
      ],
      [{ grid: { "sft.lr": [0.01] } }, 'sweep.grid.sft.lr: arm "w" has no "sft" recipe to vary'],
      [{ arm: "nope" }, 'sweep.arm: "nope" is not an arm (arms: w)'],
      [{ arm: undefined }, "sweep.arm: must name the arm the sweep varies (arms: w)"],
      [
        { arms: [{ "grpo.lr": 0.001 }] },
        'sweep: gives either "grid" (values per parameter, every combination) or "arms" (a list of overrides)',
      ],
      [{ grid: undefined, arms: [] }, 'sweep.arms: must list at least one arm\'s overrides, e.g. [{"grpo.lr": 0.001}]'],
      [
        { grid: undefined, arms: [{ name: "x" }] },
        'sweep.arms[0]: must give at least one parameter, e.g. {"grpo.lr": 0.001}',
      ],
      [
        { grid: undefined, arms: [{ name: "a b", "grpo.lr": 0.001 }] },
        "sweep.arms[0].name: must be letters, digits, '_' or '-' (it names the arm's run folder), at most 31 characters",
      ],
      [
        { grid: undefined, arms: [{ "grpo.lr": 0.001 }, { "grpo.lr": 0.001 }] },
        'sweep.arms: two arms would be named "w_lr1e-3": give each a "name"',
      ],
      [
        { baseline: "worst" },
        'sweep.baseline: must be "base" or an arm (arms: w_lr2e-3_g2, w_lr2e-3_g3, w_lr4e-3_g2, w_lr4e-3_g3), got "worst"',
      ],
      [{ max_concurrent_arms: 0 }, "sweep.max_concurrent_arms: must be an integer ≥ 1 ≤ 16, got 0"],
      [{ max_concurrent_arms: "2" }, 'sweep.max_concurrent_arms: must be an integer ≥ 1 ≤ 16, got "2"'],
      [{ surprise: true }, "sweep.surprise: unknown field (allowed: arm, grid, arms, baseline, max_concurrent_arms)"],
      [{ grid: { "data.offset": [0, 10] } }, "sweep.grid.data.offset: must be an integer ≥ 0 ≤ 10000000, got -1"],
    ];
    // The last case: a negative offset (its first value replaced below).
    (cases[cases.length - 1][0].grid as Record<string, number[]>)["data.offset"][0] = -1;
    cases[cases.length - 1][1] = "sweep.grid.data.offset[0]: must be an integer ≥ 0 ≤ 10000000, got -1";
    for (const [sweep, problem] of cases) {
      const file = writeSpec(dir, miniatureSweep(sweep));
      assert.throws(
        () => readExperimentSpec(file),
        (e: Error) => {
          assert.ok(e instanceof FileFormatError, e.message);
          assert.equal(e.message.replace(/^.*?:\d+: /, ""), problem);
          assert.ok(e.message.startsWith(`${file}:`));
          return true;
        },
        JSON.stringify(sweep),
      );
    }
  });

  it("refuses a name made from values that is too long, and a sweep of one arm alone", () => {
    const long = miniatureSweep(
      {},
      {
        arms: [
          {
            name: "a_rather_long_template_name",
            data: { kind: "env-train", env: "hotpotqa", offset: 16 },
            grpo: { steps: 2, questions: 2, group: 2, lr: 0.002, temperature: 1, seed: 0 },
          },
        ],
      },
    );
    (long.sweep as Record<string, unknown>).arm = "a_rather_long_template_name";
    delete (long.sweep as Record<string, unknown>).baseline;
    assert.throws(
      () => readExperimentSpec(writeSpec(dir, long)),
      (e: Error) =>
        e.message.endsWith(
          `sweep.grid: the arm name "a_rather_long_template_name_lr2e-3_g2" made from its values is over 31 characters: shorten arm "a_rather_long_template_name"'s name`,
        ),
    );
    const one = miniatureSweep({ grid: { "grpo.lr": [0.002] }, baseline: undefined });
    assert.throws(
      () => readExperimentSpec(writeSpec(dir, one)),
      (e: Error) =>
        e.message.endsWith('sweep: expands to a single arm: give at least two values, or another arm in "arms"'),
    );
  });

  it("a spec without a sweep reads as before: no sweep, its arms as written", () => {
    const { spec } = readExperimentSpec(writeSpec(dir, miniatureSpec()));
    assert.equal(spec.sweep, undefined);
    assert.deepEqual(
      spec.arms.map((a) => a.name),
      ["generated", "world"],
    );
  });
});
