/**
 * The step specs as data: every flag of every step survives toArgv → parseFlags, shows in --help
 * and in the README's table, and its edge values are accepted; unknown flags are refused by name.
 */
import assert from "node:assert/strict";
import { STEPS } from "../../../../../src/core/steps/catalog/catalog";
import {
  checkFlagValue,
  describeRange,
  parseFlags,
  toArgv,
  type FlagSpec,
  type FlagSpecs,
  type FlagValues,
} from "../../../../../src/core/steps/specs/flags";
import { stepHelp, stepMarkdown, type StepSpec } from "../../../../../src/core/steps/specs/spec";
import { UserError } from "../../../../../src/core/base/errors";

/** Values of the flags whose strings must have a form (a flag spec's `pattern`) that NAME-value lacks. */
const PATTERNED: Record<string, string> = { "search-url": "http://127.0.0.1:8766" };

/** A valid value for a flag that is not its default (so round trips are not vacuous). */
function sampleValue(name: string, f: FlagSpec): string | number | boolean | string[] {
  switch (f.type) {
    case "boolean":
      return true;
    case "list":
      return ["a.b", "c"];
    case "int":
    case "number": {
      const lo = f.min ?? 0;
      const hi = f.max ?? lo + 1000;
      const mid =
        f.type === "int"
          ? Math.floor((lo + hi) / 2) + (f.minExclusive && Math.floor((lo + hi) / 2) === lo ? 1 : 0)
          : (lo + hi) / 2;
      return mid;
    }
    default: {
      if (f.choices) return f.choices[f.choices.length - 1];
      if (!f.pattern || f.pattern.regex.test(`${name}-value`)) return `${name}-value`;
      const value = PATTERNED[name];
      assert.ok(value !== undefined && f.pattern.regex.test(value), `PATTERNED needs a valid --${name}`);
      return value;
    }
  }
}

/** Required flags, given so that a case is about the flag under test. */
function requiredArgv(flags: FlagSpecs): string[] {
  return Object.entries(flags)
    .filter(([, f]) => f.required)
    .flatMap(([n, f]) => [`--${n}`, String(sampleValue(n, f))]);
}

const numericFlags = (step: StepSpec) =>
  Object.entries(step.flags).filter(([, f]) => f.type === "int" || f.type === "number");

describe("step specs", () => {
  it("every step has a unique name, a summary and at least one flag", () => {
    const names = STEPS.map((s) => s.name);
    assert.equal(new Set(names).size, names.length);
    for (const s of STEPS) assert.ok(s.summary.length > 10 && Object.keys(s.flags).length > 0, s.name);
  });

  for (const step of STEPS) {
    describe(`agent-lab ${step.name}`, () => {
      it("toArgv round-trips every flag through parseFlags", () => {
        // A generic step's values are not typed per flag; the spec's own types are checked where steps are used.
        const values = Object.fromEntries(
          Object.entries(step.flags).map(([name, f]) => [name, sampleValue(name, f)]),
        ) as unknown as Partial<FlagValues<FlagSpecs>>;
        const positionals = step.positionals ? ["p1", "--looks-like-a-flag"] : [];
        const argv = toArgv(step.name, step.flags, values, positionals);
        assert.equal(argv[0], step.name);
        const parsed = parseFlags(step.flags, argv.slice(1), {
          command: `agent-lab ${step.name}`,
          allowPositionals: step.positionals !== undefined,
        });
        assert.deepEqual(parsed.values, values);
        assert.deepEqual(parsed.positionals, positionals);
        assert.deepEqual([...parsed.given].sort(), Object.keys(step.flags).sort());
      });

      it("--help and the README table name every flag, with its range", () => {
        const help = stepHelp(step);
        const table = stepMarkdown(step);
        assert.ok(help.startsWith(`usage: agent-lab ${step.name}`), help);
        for (const [name, f] of Object.entries(step.flags)) {
          assert.match(help, new RegExp(`^  --${name}\\b`, "m"), `help lacks --${name}`);
          assert.ok(table.includes(`| \`--${name}\``), `README table lacks --${name}`);
          if (f.type === "int" || f.type === "number")
            assert.ok(help.includes(describeRange(f)), `help lacks the range of --${name}`);
        }
      });

      it("refuses an unknown flag, naming it", () => {
        assert.throws(
          () =>
            parseFlags(step.flags, ["--no-such-flag", "1"], {
              command: `agent-lab ${step.name}`,
              allowPositionals: step.positionals !== undefined,
            }),
          (e: unknown) =>
            e instanceof UserError &&
            e.message === `unknown flag --no-such-flag (agent-lab ${step.name} --help lists the flags)`,
        );
      });

      for (const [name, f] of numericFlags(step)) {
        it(`--${name} accepts its edge values`, () => {
          const edges: number[] = [];
          if (f.min !== undefined) edges.push(f.minExclusive ? f.min + (f.type === "int" ? 1 : 1e-9) : f.min);
          if (f.max !== undefined) edges.push(f.max);
          if (f.min === undefined && f.max === undefined) edges.push(0);
          for (const edge of edges) {
            const parsed = parseFlags(step.flags, [...requiredArgv(step.flags), `--${name}=${edge}`], {
              command: step.name,
              allowPositionals: true,
            });
            assert.equal((parsed.values as Record<string, unknown>)[name], edge, `--${name}=${edge}`);
          }
        });
      }
    });
  }

  it("the range words are the ones the recipe's flags need", () => {
    // Literal expectations, so the table-driven tests cannot pass on a wrong describeRange.
    const flags = Object.fromEntries(
      STEPS.flatMap((s) => Object.entries(s.flags).map(([n, f]) => [`${s.name} --${n}`, f])),
    );
    assert.equal(describeRange(flags["eval --temperature"]), "a number in [0, 2]");
    assert.equal(describeRange(flags["train-sft --budget"]), "a number ≥ 0 (USD)");
    assert.equal(describeRange(flags["train-sft --lr"]), "a number in (0, 1]");
    assert.equal(describeRange(flags["eval --limit"]), "an integer in [1, 100000]");
    assert.equal(describeRange(flags["ablate --resamples"]), "an integer in [100, 1000000]");
    assert.throws(
      () => checkFlagValue("lr", flags["train-sft --lr"], "0"),
      /^UserError: --lr must be a number in \(0, 1\], got "0"$/,
    );
    assert.throws(
      () => checkFlagValue("epochs", flags["train-sft --epochs"], "1.5"),
      /^UserError: --epochs must be an integer in \[1, 1000\], got "1\.5"$/,
    );
  });

  it("takes a negative number as a positional where positionals are allowed (the value's own check then refuses it)", () => {
    const ckpt = STEPS.find((s) => s.name === "ckpt")!;
    const parsed = parseFlags(ckpt.flags, ["ttl", "sft-e1", "-3", "--json", "-0.5"], {
      command: "agent-lab ckpt",
      allowPositionals: true,
    });
    assert.deepEqual(parsed.positionals, ["ttl", "sft-e1", "-3", "-0.5"]);
    assert.equal(parsed.values.json, true);
    assert.throws(
      () => parseFlags(ckpt.flags, ["ttl", "sft-e1", "-x"], { command: "agent-lab ckpt", allowPositionals: true }),
      (e: unknown) => e instanceof UserError && e.message === "unknown flag -x (agent-lab ckpt --help lists the flags)",
    );
  });
});
