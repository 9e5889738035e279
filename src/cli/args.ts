/** Small helpers shared by the CLI commands: typed flag parsing with clear errors. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UserError } from "../core/errors";

export type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parses argv for one command; unknown flags and missing values become one-line user errors. */
export function parse<T extends Options>(command: string, argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (e) {
    throw new UserError(`agent-lab ${command}: ${(e as Error).message}`);
  }
}

/** A flag that must be an integer (optionally ≥ min). */
export function intFlag(name: string, value: string | undefined, min = Number.MIN_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UserError(`--${name} must be an integer${min > Number.MIN_SAFE_INTEGER ? ` ≥ ${min}` : ""}, got "${value}"`);
  return n;
}

/** A flag that must be a finite number. */
export function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UserError(`--${name} must be a number, got "${value}"`);
  return n;
}
