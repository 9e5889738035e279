/**
 * `agent-lab experiment run SPEC.json [--dir DIR] [--dry-run] [--yes] [--rehearse] [--train FILE --test FILE]` and
 * `agent-lab experiment validate DIR [--json]`: thin fronts over src/core/steps/experiments.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../core/envs/config";
import { UserError } from "../core/base/errors";
import { EXPERIMENT_FILES } from "../core/steps/experiments/record";
import { runExperiment } from "../core/steps/experiments/run-experiment";
import { sweepTextTable } from "../core/steps/experiments/sweep-table-text";
import { tableMarkdown } from "../core/base/util/table-text";
import { validateExperiment, type ValidationResult } from "../core/steps/experiments/validate";
import { writeValidationFile } from "../core/steps/experiments/validation-file";
import { EXPERIMENT_STEP, EXPERIMENT_SUBCOMMANDS } from "../core/steps/catalog/catalog";
import { parseFlags } from "../core/steps/specs/flags";
import { stepHelp, type StepSpec } from "../core/steps/specs/spec";
import { interruptible } from "./interruptible";
import { startLocalBackend } from "./local-backend";

const USAGE =
  "usage: agent-lab experiment run SPEC.json [--dir DIR] [--dry-run] [--yes] [--rehearse] [--train FILE --test FILE]\n       agent-lab experiment validate DIR [--json]";

/** Exit code 1 when `validate` finds a failed check (the record is then not to be trusted). */
export async function run(argv: string[]): Promise<number | void> {
  if (argv.includes("--help") || argv.includes("-h"))
    return void console.log(stepHelp(EXPERIMENT_STEP as unknown as StepSpec));
  // Flags first (a bad value is refused before anything else is read), then the subcommand.
  const { values: v, positionals } = parseFlags(EXPERIMENT_STEP.flags, argv, {
    command: "agent-lab experiment",
    allowPositionals: true,
  });
  const [sub, ...rest] = positionals;
  if (!sub) return void console.log(USAGE);
  if (!(EXPERIMENT_SUBCOMMANDS as readonly string[]).includes(sub))
    throw new UserError(`unknown subcommand "${sub}": ${USAGE.replace("\n       ", " | ")}`);
  if (rest.length !== 1)
    throw new UserError(
      sub === "run" ? `give one spec file: ${USAGE.split("\n")[0]}` : `give one folder: ${USAGE.split("\n")[1].trim()}`,
    );
  if (sub === "validate") {
    const dir = recordFolder(rest[0]);
    const result = validateExperiment(dir);
    // Kept beside the record: the Experiments view and the panel show these checks.
    writeValidationFile(dir, result);
    if (v.json) console.log(JSON.stringify(result, null, 2));
    else printValidation(result);
    return result.failed.length ? 1 : 0;
  }
  await interruptible(async (signal) => {
    const r = await runExperiment({
      startLocalBackend,
      specFile: rest[0],
      dir: v.dir,
      dryRun: v["dry-run"],
      yes: v.yes,
      localPort: v["local-port"],
      rehearse: v.rehearse,
      trainFiles: v.train,
      testFiles: v.test,
      signal,
      log: (l) => console.log(l),
    });
    if (!r.record) return;
    const rec = r.record;
    console.log("");
    const width = Math.max(12, ...Object.keys(rec.scores).map((a) => a.length));
    for (const [arm, s] of Object.entries(rec.scores))
      console.log(
        `${arm.padEnd(width)} ${rec.metric} ${s.mean.toFixed(4)} [${s.ci.lo.toFixed(4)}, ${s.ci.hi.toFixed(4)}]  ${s.run}`,
      );
    for (const [arm, d] of Object.entries(rec.numbers.minus_base))
      console.log(`${arm} − base: ${signed(d.point)} [${signed(d.ci.lo)}, ${signed(d.ci.hi)}] (paired)`);
    const rc = rec.numbers.recovery;
    console.log(
      `recovery: ${rc ? `${rc.point.toFixed(3)} [${rc.ci.lo.toFixed(3)}, ${rc.ci.hi.toFixed(3)}]` : "undefined (the reference did not move from base)"}`,
    );
    console.log(
      `verdict: ${rec.verdict.verdict.toUpperCase()} — ${[...rec.verdict.supported, ...rec.verdict.refuted].map((c) => c.text).join("; ")}`,
    );
    if (rec.sweep) console.log(`\n${tableMarkdown(sweepTextTable(rec.sweep, rec.metric, `sweep ${rec.name}`))}`);
    if (rec.validation) printValidation(rec.validation);
    console.log(`record: ${join(r.dir, rec.record_dir, EXPERIMENT_FILES.record)}`);
  });
}

/** The record folder itself, or a workspace holding exactly one experiment record under its runs folder. */
function recordFolder(dir: string): string {
  if (existsSync(join(dir, EXPERIMENT_FILES.record))) return dir;
  const specs = existsSync(join(dir, "agent-lab.json")) ? loadConfig(dir) : undefined;
  if (specs) {
    const runs = join(dir, specs.runsDir);
    const found = existsSync(runs)
      ? readdirSync(runs).filter((n) => existsSync(join(runs, n, EXPERIMENT_FILES.record)))
      : [];
    if (found.length === 1) return join(runs, found[0]);
    if (found.length > 1)
      throw new UserError(
        `${dir} holds ${found.length} experiments (${found.join(", ")}): give one record folder, e.g. ${join(runs, found[0])}`,
      );
  }
  throw new UserError(
    `${dir} holds no ${EXPERIMENT_FILES.record}: give the record folder (runs/<name>) of an experiment`,
  );
}

function printValidation(v: ValidationResult): void {
  console.log(
    `validation: ${v.passed.length} passed, ${v.failed.length} failed, ${v.unverifiable.length} unverifiable`,
  );
  for (const c of v.checks)
    console.log(
      `  ${c.status === "passed" ? "✓" : c.status === "failed" ? "✗" : "?"} ${c.check.padEnd(17)} ${c.status}: ${c.reason}`,
    );
}

const signed = (x: number) => (x >= 0 ? "+" : "") + x.toFixed(4);
