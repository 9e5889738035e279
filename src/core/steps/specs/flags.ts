/**
 * Flags of a step, declared once: type, unit, allowed range, default (a literal, or the config
 * setting it falls back to), help. The CLI parses and validates argv with `parseFlags`; the
 * extension builds argv with `toArgv` (which runs the same validator, so it cannot build a command
 * the CLI would refuse); `--help` and the README's tables are rendered from the same objects.
 *
 * This module is pure (no file system): the extension bundles it.
 */
import { parseArgs } from "node:util";
import type { AgentLabConfig } from "../../base/config";
import { quoteValue, UserError } from "../../base/errors";

export type FlagType = "int" | "number" | "string" | "boolean" | "list";

export interface FlagSpec {
  type: FlagType;
  help: string;
  /** Placeholder in help: NAME, FILE, USD… (default: the flag's name upper-cased). */
  arg?: string;
  /** Unit named in range errors and help: "USD", "tokens", "seconds"… */
  unit?: string;
  /** Inclusive bounds for int/number flags. */
  min?: number;
  max?: number;
  /** min is exclusive (e.g. a learning rate must be > 0). */
  minExclusive?: boolean;
  /** The only values allowed (string flags). */
  choices?: readonly string[];
  /** String flags: the form a value must have, and how help and errors say it. */
  pattern?: { regex: RegExp; describe: string };
  /** String flags: at most this many characters. */
  maxLength?: number;
  /** Literal default. */
  default?: string | number | boolean;
  /** The config setting this flag overrides, and falls back to when absent. */
  config?: ConfigKey;
  short?: string;
  /** Old names still accepted (e.g. --checkpoint for --model-path). */
  alias?: string;
  required?: boolean;
}

/** Settings a flag may stand for: the scalar ones. */
export type ConfigKey = {
  [K in keyof AgentLabConfig]: AgentLabConfig[K] extends string | number ? K : never;
}[keyof AgentLabConfig];

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

type BaseValue<S extends FlagSpec> = S["type"] extends "int" | "number"
  ? number
  : S["type"] extends "boolean"
    ? boolean
    : S["type"] extends "list"
      ? string[]
      : string;

/** Flags with a default (literal or config) are always set; booleans and lists always are too. */
type Always<S extends FlagSpec> = S extends
  { default: unknown } | { config: string } | { required: true } | { type: "boolean" | "list" }
  ? true
  : false;

export type FlagValues<F extends FlagSpecs> = {
  -readonly [K in keyof F]: Always<F[K]> extends true ? BaseValue<F[K]> : BaseValue<F[K]> | undefined;
};

/** What a range check allows, in words: "an integer ≥ 1", "a number in [0, 2]". */
export function describeRange(spec: FlagSpec): string {
  if (spec.choices) return `one of ${spec.choices.join(", ")}`;
  if (spec.type === "string" || spec.type === "list") {
    const parts = [
      spec.pattern?.describe,
      spec.maxLength !== undefined ? `at most ${spec.maxLength} characters` : undefined,
    ].filter(Boolean);
    return parts.length ? parts.join(", ") : "text";
  }
  const what = spec.type === "int" ? "an integer" : "a number";
  const unit = spec.unit ? ` (${spec.unit})` : "";
  const lo = spec.min;
  const hi = spec.max;
  if (lo !== undefined && hi !== undefined) return `${what} in ${spec.minExclusive ? "(" : "["}${lo}, ${hi}]${unit}`;
  if (lo !== undefined) return `${what} ${spec.minExclusive ? ">" : "≥"} ${lo}${unit}`;
  if (hi !== undefined) return `${what} ≤ ${hi}${unit}`;
  return `${what}${unit}`;
}

/** Whether a flag's range or form can be stated (and so appears in help and the README). */
export function hasRange(spec: FlagSpec): boolean {
  return (
    spec.type === "int" ||
    spec.type === "number" ||
    spec.choices !== undefined ||
    spec.pattern !== undefined ||
    spec.maxLength !== undefined
  );
}

/** The one validator: a value for `--name` as typed, or a one-line refusal naming the flag and what it allows. */
export function checkFlagValue(
  name: string,
  spec: FlagSpec,
  raw: string | number | boolean,
): string | number | boolean {
  const refuse = (): never => {
    throw new UserError(`--${name} must be ${describeRange(spec)}, got ${quoteValue(String(raw))}`);
  };
  switch (spec.type) {
    case "int":
    case "number": {
      const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
      if (!Number.isFinite(n)) refuse();
      if (spec.type === "int" && !Number.isSafeInteger(n)) refuse();
      if (spec.min !== undefined && (spec.minExclusive ? n <= spec.min : n < spec.min)) refuse();
      if (spec.max !== undefined && n > spec.max) refuse();
      return n;
    }
    case "boolean":
      if (typeof raw !== "boolean") refuse();
      return raw;
    default: {
      const s = String(raw);
      if (spec.choices && !spec.choices.includes(s)) refuse();
      if (spec.pattern && !spec.pattern.regex.test(s)) refuse();
      if (spec.maxLength !== undefined && s.length > spec.maxLength) refuse();
      if (spec.required && s === "") throw new UserError(`--${name} must not be empty`);
      return s;
    }
  }
}

export interface ParsedFlags<F extends FlagSpecs> {
  values: FlagValues<F>;
  /** Config overrides given on the command line (flags with a `config` key that were set). */
  overrides: Partial<Record<ConfigKey, string | number>>;
  /** Flags the user actually gave (not defaults). */
  given: Set<keyof F & string>;
  positionals: string[];
}

export interface ParseOptions {
  /** The command, for messages: "agent-lab eval" (the caller prefixes its own name to the error). */
  command: string;
  allowPositionals?: boolean;
}

/**
 * Parses argv against the specs. Config-backed flags stay unset here unless given (their default
 * needs the workspace's config): `withConfigDefaults` fills them once the config is loaded.
 */
export function parseFlags<F extends FlagSpecs>(
  specs: F,
  argv: readonly string[],
  options: ParseOptions,
): ParsedFlags<F> {
  const nodeOptions: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const type = spec.type === "boolean" ? "boolean" : "string";
    nodeOptions[name] = {
      type,
      ...(spec.type === "list" ? { multiple: true } : {}),
      ...(spec.short ? { short: spec.short } : {}),
    };
    if (spec.alias) nodeOptions[spec.alias] = { type, ...(spec.type === "list" ? { multiple: true } : {}) };
  }
  const negatives = new NegativePositionals(options.allowPositionals ?? false);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: negatives.hide(joinDashValues(argv, nodeOptions)),
      options: nodeOptions,
      allowPositionals: options.allowPositionals ?? false,
      strict: true,
    });
  } catch (e) {
    throw new UserError(describeParseError(e as Error & { code?: string }, options.command));
  }
  const raw = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const values: Record<string, unknown> = {};
  const overrides: Partial<Record<ConfigKey, string | number>> = {};
  const given = new Set<string>();
  for (const [name, spec] of Object.entries(specs)) {
    const value = raw[name] ?? (spec.alias ? raw[spec.alias] : undefined);
    if (value === undefined) {
      if (spec.required)
        throw new UserError(
          `--${name} is required: ${spec.help}${spec.choices ? ` (one of ${spec.choices.join(", ")})` : ""}`,
        );
      values[name] = spec.type === "boolean" ? (spec.default ?? false) : spec.type === "list" ? [] : spec.default;
      continue;
    }
    given.add(name);
    if (Array.isArray(value)) {
      values[name] = value.map((v) => checkFlagValue(name, spec, v));
      continue;
    }
    const checked = checkFlagValue(name, spec, value);
    values[name] = checked;
    if (spec.config) overrides[spec.config] = checked as string | number;
  }
  return {
    values: values as FlagValues<F>,
    overrides,
    given: given as Set<keyof F & string>,
    positionals: negatives.restore(parsed.positionals),
  };
}

/**
 * `agent-lab ckpt ttl NAME -3` as the positional "-3": node takes any word that starts with a dash
 * for a flag, which would hide the range error the user needs. A negative number is no flag of ours
 * (flags are words), so it is passed through parseArgs under a stand-in and restored afterwards.
 */
class NegativePositionals {
  private readonly hidden = new Map<string, string>();
  constructor(private readonly allowed: boolean) {}

  hide(args: string[]): string[] {
    if (!this.allowed) return args;
    const end = args.indexOf("--");
    return args.map((arg, i) => {
      if ((end !== -1 && i > end) || !/^-(\d+\.?\d*|\.\d+)$/.test(arg)) return arg;
      const stand = `\u0000negative-${i}`;
      this.hidden.set(stand, arg);
      return stand;
    });
  }

  restore(positionals: string[]): string[] {
    return positionals.map((p) => this.hidden.get(p) ?? p);
  }
}

/** node's refusal in our words: it names the flag; ours also says where the flags are listed. */
function describeParseError(e: Error & { code?: string }, command: string): string {
  const quoted = /'([^']+)'/.exec(e.message)?.[1];
  if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted)
    return `unknown flag ${quoted} (${command} --help lists the flags)`;
  if (e.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && quoted)
    return `unexpected argument ${JSON.stringify(quoted)}: ${command} takes only flags (--help lists them)`;
  return e.message.replace(/\s*\n\s*/g, " ");
}

/**
 * `--budget -5` as `--budget=-5`: node refuses a value that starts with a dash as ambiguous, which
 * would hide the range error the user needs. Only when the next word is not itself a known option.
 */
function joinDashValues(
  argv: readonly string[],
  options: Record<string, { type: "string" | "boolean"; short?: string }>,
): string[] {
  const byShort = new Map(
    Object.entries(options)
      .filter(([, o]) => o.short)
      .map(([n, o]) => [o.short!, n]),
  );
  const optionOf = (arg: string): string | undefined =>
    arg.startsWith("--") ? arg.slice(2) : arg.length === 2 && arg.startsWith("-") ? byShort.get(arg[1]) : undefined;
  const isKnownOption = (arg: string): boolean => {
    const name = optionOf(arg.split("=")[0]);
    return name !== undefined && name in options;
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const name = optionOf(arg);
    const next = argv[i + 1];
    if (
      name !== undefined &&
      options[name]?.type === "string" &&
      next !== undefined &&
      next.startsWith("-") &&
      next !== "--" &&
      !isKnownOption(next)
    ) {
      out.push(`--${name}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** Fills config-backed flags that were not given from the effective config. */
export function withConfigDefaults<F extends FlagSpecs>(
  specs: F,
  values: FlagValues<F>,
  config: AgentLabConfig,
): FlagValues<F> {
  const out: Record<string, unknown> = { ...values };
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.config && out[name] === undefined) out[name] = config[spec.config];
  }
  return out as FlagValues<F>;
}

/**
 * argv for a step from typed values (undefined and false are left out; lists repeat the flag).
 * Every value goes through the CLI's validator first, so a bad value fails here, in the extension,
 * with the message the CLI would print.
 */
export function toArgv<F extends FlagSpecs>(
  step: string,
  specs: F,
  values: Partial<FlagValues<F>>,
  positionals: readonly string[] = [],
): string[] {
  const argv = [step];
  for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
    const spec = specs[name];
    if (!spec) throw new Error(`agent-lab ${step} has no flag --${name}`);
    if (value === undefined || value === false) continue;
    if (Array.isArray(value)) {
      for (const v of value) argv.push(`--${name}`, String(checkFlagValue(name, spec, String(v))));
    } else if (spec.type === "boolean") {
      argv.push(`--${name}`);
    } else {
      argv.push(`--${name}`, String(checkFlagValue(name, spec, value as string | number)));
    }
  }
  if (positionals.length) argv.push("--", ...positionals);
  return argv;
}

/** "(default 3)", "(default: config topK)", "(required)", or "". */
export function describeDefault(spec: FlagSpec): string {
  if (spec.required) return "(required)";
  if (spec.config) return `(default: config ${spec.config})`;
  if (spec.default === undefined || spec.default === false) return "";
  return `(default ${spec.default})`;
}

/** One help line per flag, aligned: "  --top-k K            paragraphs per search (default: config topK)". */
export function flagHelpLines(specs: FlagSpecs): string[] {
  const left = Object.entries(specs).map(([name, spec]) => {
    const arg = spec.type === "boolean" ? "" : ` ${spec.arg ?? name.toUpperCase().replace(/-/g, "_")}`;
    return `--${name}${spec.short ? `, -${spec.short}` : ""}${spec.alias ? `, --${spec.alias}` : ""}${arg}`;
  });
  const width = Math.max(...left.map((l) => l.length)) + 2;
  return Object.values(specs).map((spec, i) => {
    const range = hasRange(spec) ? `; ${describeRange(spec)}` : "";
    return `  ${left[i].padEnd(width)}${[spec.help + range, describeDefault(spec)].filter(Boolean).join(" ")}`;
  });
}
