/**
 * Table-driven over every step and every numeric flag: the values a user can mistype are refused
 * by the CLI with the one-line message `--flag must be …, got "…"` and exit code 1, no stack, and
 * nothing written in the workspace. Run in-process through the CLI's dispatch (the same code
 * main.ts runs); a few cases also go through the real binary for the exit code and stderr.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOADERS, runCommand } from "../../../src/cli/run-command";
import { STEPS } from "../../../src/core/steps/catalog/catalog";
import { describeRange, type FlagSpec } from "../../../src/core/steps/specs/flags";
import { folderSnapshot } from "../../helpers/folder-snapshot";
import { capturedOutput } from "../core/base/data/helpers";
import { runCli } from "./cli-process";

/** Values a user can mistype, and whether this flag must refuse each. */
function badValues(f: FlagSpec): string[] {
  const out = ["NaN", "Infinity", "1e400", "abc", ""];
  if ((f.min ?? -Infinity) > -1) out.push("-1");
  if ((f.min ?? -Infinity) > -5) out.push("-5");
  if (f.max !== undefined) out.push(String(f.type === "int" ? f.max + 1 : f.max * 2 + 1));
  if (f.type === "int") out.push("2.5");
  return out;
}

/** argv for a value: a negative number typed as its own word (`--budget -5`), as users do. */
const flagArgv = (name: string, raw: string) => (raw.startsWith("-") ? [`--${name}`, raw] : [`--${name}=${raw}`]);

describe("CLI flag validation, every step", function () {
  let ws: string;
  before(() => {
    ws = mkdtempSync(join(tmpdir(), "agent-lab-step-flags-"));
    mkdirSync(join(ws, "data"));
    writeFileSync(join(ws, "agent-lab.json"), JSON.stringify({ budgetUsd: 5 }));
    writeFileSync(
      join(ws, "data", "val.jsonl"),
      JSON.stringify({ id: "q1", question: "Who?", answers: ["x"], type: "bridge", level: "easy" }) + "\n",
    );
  });
  after(() => rmSync(ws, { recursive: true, force: true }));

  it("main lists every step and can load each one", () => {
    assert.deepEqual(Object.keys(LOADERS).sort(), STEPS.map((s) => s.name).sort());
  });

  for (const step of STEPS) {
    const numeric = Object.entries(step.flags).filter(([, f]) => f.type === "int" || f.type === "number");
    if (numeric.length === 0) continue;
    it(`agent-lab ${step.name}: ${numeric.map(([n]) => `--${n}`).join(", ")} refuse bad values in one line, writing nothing`, async () => {
      // Where the step would write: the workspace, or the folder its --dir names (inside the workspace).
      const where = [
        ...("workspace" in step.flags ? ["--workspace", ws] : []),
        ...("dir" in step.flags ? ["--dir", join(ws, "made-by-step")] : []),
      ];
      const required = Object.entries(step.flags)
        .filter(([, f]) => f.required)
        .flatMap(([n]) => [`--${n}`, "x"]);
      const before = folderSnapshot(ws);
      for (const [name, f] of numeric) {
        for (const raw of badValues(f)) {
          const argv = [step.name, ...where, ...required, ...flagArgv(name, raw)];
          let code = -1;
          const { out, err } = await capturedOutput(async () => void (code = await runCommand(argv, {})));
          const expected = `agent-lab ${step.name}: --${name} must be ${describeRange(f)}, got ${JSON.stringify(raw)}`;
          assert.equal(err, expected, argv.join(" "));
          assert.equal(code, 1, argv.join(" "));
          assert.equal(out, "", argv.join(" "));
        }
      }
      assert.deepEqual(folderSnapshot(ws), before, "nothing written in the workspace");
    });
  }

  it("the real binary: exit 1, the one line on stderr, no stack, for a negative --budget and --temperature", async () => {
    const before = folderSnapshot(ws);
    const cases: [string[], string][] = [
      [
        ["train-sft", "--data", "x", "--budget", "-5", "--workspace", ws],
        'agent-lab train-sft: --budget must be a number ≥ 0 (USD), got "-5"',
      ],
      [
        ["eval", "--name", "t", "--temperature=-1", "--workspace", ws],
        'agent-lab eval: --temperature must be a number in [0, 2], got "-1"',
      ],
      [
        ["eval", "--name", "t", "--top-k", "1e400", "--workspace", ws],
        'agent-lab eval: --top-k must be an integer in [1, 100], got "1e400"',
      ],
      [
        ["eval", "--name", "t", "--frobnicate", "--workspace", ws],
        "agent-lab eval: unknown flag --frobnicate (agent-lab eval --help lists the flags)",
      ],
    ];
    for (const [argv, line] of cases) {
      const r = await runCli(argv);
      assert.equal(r.code, 1, argv.join(" "));
      assert.equal(r.stderr, `${line}\n`, argv.join(" "));
      assert.equal(r.stdout, "");
    }
    assert.deepEqual(folderSnapshot(ws), before);
  });

  it("a value the old CLI clamped is refused: train-sft --budget -5 no longer disables the cap", async () => {
    // agent-lab.json sets budgetUsd 5; before, -5 became max(0, -5) = 0 = no cap.
    const { err } = await capturedOutput(
      async () => void (await runCommand(["train-sft", "--data", "x", "--budget", "-5", "--workspace", ws], {})),
    );
    assert.equal(err, 'agent-lab train-sft: --budget must be a number ≥ 0 (USD), got "-5"');
  });
});
