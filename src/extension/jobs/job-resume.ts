/**
 * What "Resume" reruns for a stopped job: the same command, every argument kept, plus the step's
 * resume flag where its spec (src/core/steps/catalog/catalog.ts) declares one — steps without it
 * (pipeline, experiment, gen-tasks) continue on a plain rerun. vscode-free, tested in plain Node.
 */
import { findStep } from "../../core/steps/catalog/catalog";
import { RESUME_FLAG_NAME } from "../../core/steps/specs/common-flags";
import { toArgv, type FlagSpecs, type FlagValues } from "../../core/steps/specs/flags";

export function resumeCommand(command: readonly string[]): string[] {
  const spec = command[0] ? findStep(command[0]) : undefined;
  if (!spec || !(RESUME_FLAG_NAME in spec.flags)) return [...command];
  const flag = toArgv(spec.name, spec.flags, { [RESUME_FLAG_NAME]: true } as unknown as Partial<
    FlagValues<FlagSpecs>
  >).slice(1);
  const end = command.indexOf("--");
  const flags = end < 0 ? command : command.slice(0, end);
  if (flag.every((a) => flags.includes(a))) return [...command];
  return end < 0 ? [...command, ...flag] : [...command.slice(0, end), ...flag, ...command.slice(end)];
}
