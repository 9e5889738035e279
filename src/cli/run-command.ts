/**
 * Dispatch of `agent-lab <command> …` and the one place errors become what the user reads: a
 * user's mistake or the environment's (bad flag, bad file, unreachable service) is one line naming
 * what to fix; anything else is a bug of ours, said so in one line (its stack only with
 * AGENT_LAB_DEBUG=1). Kept apart from main.ts so tests can run a command in-process.
 */
import { UserError } from "../core/base/errors";
import { STEPS } from "../core/steps/catalog/catalog";
import {
  TinkerApiError,
  TinkerConnectionError,
  TinkerFutureExpiredError,
  TinkerRequestFailedError,
} from "../core/base/tinker/errors";

/** A command's run: it throws what it refuses; a command whose outcome is a verdict (validate) returns its exit code. */
type Loader = () => Promise<{ run(argv: string[]): Promise<number | void> }>;

/** Lazily loaded so `agent-lab score` does not pay for loading the tokenizer or the index. */
export const LOADERS: Readonly<Record<string, Loader>> = {
  config: () => import("./config-command"),
  prepare: () => import("./prepare"),
  index: () => import("./index-command"),
  search: () => import("./search"),
  score: () => import("./score"),
  pipeline: () => import("./pipeline"),
  demo: () => import("./demo"),
  eval: () => import("./eval"),
  show: () => import("./show"),
  spend: () => import("./spend"),
  "sft-data": () => import("./sft-data"),
  ablate: () => import("./ablate"),
  "serve-local": () => import("./serve-local"),
  "serve-search": () => import("./serve-search"),
  "train-sft": () => import("./train-sft"),
  "train-grpo": () => import("./train-grpo"),
  ckpt: () => import("./ckpt"),
  grade: () => import("./grade"),
  "gen-tasks": () => import("./gen-tasks"),
  "export-chat": () => import("./export-chat"),
  experiment: () => import("./experiment"),
  playground: () => import("./playground"),
};

export const DEBUG_ENV = "AGENT_LAB_DEBUG";
export const BUG_NOTE = "this is a bug in Agent Lab: please report it with the command you ran";

export function usage(): string {
  const width = Math.max(...STEPS.map((s) => s.name.length));
  const lines = STEPS.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`);
  return `usage: agent-lab <command> [options]\n\ncommands:\n${lines.join("\n")}\n\nRun "agent-lab <command> --help" for a command's options.`;
}

/** A file-system or network refusal from Node (ENOENT, EACCES, ENOSPC, EADDRINUSE…): the environment's, not ours. */
function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  const err = e as NodeJS.ErrnoException;
  return (
    e instanceof Error && typeof err.code === "string" && /^E[A-Z]+$/.test(err.code) && typeof err.syscall === "string"
  );
}

/** How to go on after the service stopped answering mid-run: for a command that can resume, the flag that does. */
function resumeHint(command: string, e: unknown): string {
  if (!(e instanceof TinkerConnectionError) || !e.lost) return "";
  const step = STEPS.find((s) => s.name === command);
  return step && "resume" in step.flags ? "; what it wrote is kept: the same command plus --resume continues it" : "";
}

/** What to print for an error a command threw, and whether it is a bug of ours. */
export function describeFailure(
  command: string,
  e: unknown,
  env: NodeJS.ProcessEnv = process.env,
): { text: string; bug: boolean } {
  const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ");
  const who = command ? `agent-lab ${command}` : "agent-lab";
  // The service's own answer (e.g. "no checkpoint at tinker://…") is a message for the user, not a crash.
  if (
    e instanceof UserError ||
    e instanceof TinkerApiError ||
    e instanceof TinkerRequestFailedError ||
    e instanceof TinkerFutureExpiredError
  ) {
    return { text: `${who}: ${oneLine(e.message)}${resumeHint(command, e)}`, bug: false };
  }
  if (isSystemError(e))
    return { text: `${who}: ${oneLine(e.message)} (check the path, its permissions and free disk space)`, bug: false };
  const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const stack = env[DEBUG_ENV] === "1" && e instanceof Error && e.stack ? `\n${e.stack}` : "";
  return {
    text: `${who}: internal error: ${oneLine(message)}\n${BUG_NOTE}${stack ? "" : ` (${DEBUG_ENV}=1 shows the stack)`}${stack}`,
    bug: true,
  };
}

/** Runs one command line; returns the exit code (0 ok, 1 refused or failed, 2 unknown command). */
export async function runCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return name ? 0 : 1;
  }
  const load = Object.hasOwn(LOADERS, name) ? LOADERS[name] : undefined;
  if (!load) {
    console.error(`agent-lab: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return (await (await load()).run(rest)) ?? 0;
  } catch (e) {
    console.error(describeFailure(name, e, env).text);
    return 1;
  }
}
