/**
 * `agent-lab show RUN [--n N] [--seed S] [--workspace DIR]`
 * Reads a run folder (a path, or a name under runsDir): how episodes ended, searches per episode,
 * and N random failures with model-written text set apart from harness-inserted text.
 */
import { existsSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { loadConfig } from "../core/config";
import { UserError } from "../core/errors";
import { readRun } from "../core/runs/run-files";
import { renderShow, type TraceStyle } from "../core/runs/trace-text";
import { tokenizerForRun } from "../core/runs/run-tokenizer";
import { intFlag, parse } from "./args";

const HELP = `usage: agent-lab show RUN [--n N] [--seed S] [--workspace DIR]

  RUN              a run folder, or a run name under the config's runsDir
  --n N            failures to print (default 3)
  --seed S         which failures (default 0)
  --workspace DIR  folder holding agent-lab.json (default .)
Colours when stdout is a terminal or FORCE_COLOR is set (NO_COLOR turns them off);
otherwise harness-inserted text is fenced in ⟦…⟧.`;

/** ANSI when writing to a terminal or asked to by FORCE_COLOR; NO_COLOR (or FORCE_COLOR=0) wins. */
export function traceStyle(env: NodeJS.ProcessEnv, isTTY: boolean): TraceStyle {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return "plain";
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR === "0" || env.FORCE_COLOR === "false" ? "plain" : "ansi";
  return isTTY ? "ansi" : "plain";
}

export async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parse(
    "show",
    argv,
    { n: { type: "string" }, seed: { type: "string" }, workspace: { type: "string", default: "." }, help: { type: "boolean", short: "h" } },
    true,
  );
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (positionals.length !== 1) throw new UserError("give exactly one run (a folder, or a name under runs/)");
  const runDir = resolveRunDir(positionals[0], values.workspace!);
  const files = readRun(runDir);
  const { tokenizer, problem } = await tokenizerForRun(files.manifest?.tokenizer);
  console.log(
    renderShow(files, {
      name: basename(runDir),
      n: intFlag("n", values.n, 0) ?? 3,
      seed: intFlag("seed", values.seed) ?? 0,
      style: traceStyle(process.env, Boolean(process.stdout.isTTY)),
      tokenizer,
      tokenizerProblem: problem,
    }),
  );
}

function resolveRunDir(run: string, workspace: string): string {
  if (existsSync(run)) return run;
  const runsDir = loadConfig(workspace).runsDir;
  const named = join(isAbsolute(runsDir) ? runsDir : join(workspace, runsDir), run);
  if (existsSync(named)) return named;
  throw new UserError(`no run folder "${run}" (looked at ${run} and ${named})`);
}
