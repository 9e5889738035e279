/**
 * Starts a CLI job as a detached process that outlives the extension host, and stops it.
 *
 * The process tree is: wrapper (`node -e WRAPPER`) → `node dist/cli.js <command…>`. The wrapper
 * passes SIGTERM/SIGINT on to the CLI (which stops cleanly and keeps what it wrote) and, when the
 * CLI exits, writes `<id>.exit.json` — so the outcome is known even if no window was open to see
 * it. stdout/stderr go straight to the log file, not through a pipe into this host, so a window
 * reload cannot stall or kill the job. The Tinker key reaches the CLI only through the environment.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import {
  exitPath,
  jobProcessAlive,
  jobsDir,
  logPath,
  newJobId,
  writeJobRecord,
  type JobFinishAction,
  type JobRecord,
} from "./job-store";

/** Runs the CLI, forwards stop signals, records how it ended. Plain JS: it runs as `node -e`, so its atomic exit-file write cannot import util/atomic-write. */
export const WRAPPER_SOURCE = `
const { spawn } = require("child_process");
const fs = require("fs");
const [exitFile, ...cliArgs] = process.argv.slice(1);
const record = (code, signal) => {
  const tmp = exitFile + ".tmp";
  fs.writeFileSync(tmp, JSON.stringify({ code, signal, ended: new Date().toISOString() }) + "\\n");
  fs.renameSync(tmp, exitFile);
};
const child = spawn(process.execPath, cliArgs, { stdio: "inherit", env: process.env });
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => { try { child.kill(sig); } catch {} });
child.on("error", (e) => { console.error("agent-lab job: " + e.message); record(127, null); process.exit(127); });
child.on("exit", (code, signal) => { record(code, signal); process.exit(code === null ? 1 : code); });
`;

export interface JobSpec {
  title: string;
  /** CLI arguments after `agent-lab`. */
  command: string[];
  /** Working directory: the workspace folder. */
  cwd: string;
  runDir?: string;
  spendsMoney?: boolean;
  estimateUsd?: number;
  finish?: JobFinishAction;
  runsRoot?: string;
  /** Extra environment: settings layer, TINKER_API_KEY. Never written anywhere. */
  env?: Record<string, string>;
}

export interface LaunchOptions {
  /** Path of dist/cli.js inside the installed extension. */
  cliPath: string;
  /** The workspace folder: job records live in its JOBS_DIR. */
  root: string;
  /** Node binary; in the desktop extension host this is Electron, run as Node (see env below). */
  nodePath?: string;
  baseEnv?: NodeJS.ProcessEnv;
}

export interface LaunchedJob {
  record: JobRecord;
  /** Resolves with the wrapper's exit while this host is alive to see it. */
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** Writes the record, starts the wrapper detached, returns once it has a pid. */
export function launchJob(spec: JobSpec, options: LaunchOptions): LaunchedJob {
  mkdirSync(jobsDir(options.root), { recursive: true });
  const id = newJobId(spec.command[0] ?? "job");
  const log = logPath(options.root, id);
  const fd = openSync(log, "a");
  const env: NodeJS.ProcessEnv = {
    ...(options.baseEnv ?? process.env),
    ...spec.env,
    // Lets the Electron binary of desktop VS Code act as plain Node; plain Node ignores it.
    ELECTRON_RUN_AS_NODE: "1",
    // Plain text in the log: no ANSI colours for the output channel.
    NO_COLOR: "1",
  };
  let child;
  try {
    child = spawn(
      options.nodePath ?? process.execPath,
      ["-e", WRAPPER_SOURCE, exitPath(options.root, id), options.cliPath, ...spec.command],
      {
        cwd: spec.cwd,
        env,
        detached: true,
        stdio: ["ignore", fd, fd],
        windowsHide: true,
      },
    );
  } finally {
    closeSync(fd);
  }
  if (child.pid === undefined) {
    throw new Error(
      `could not start ${spec.title}: no process id (is ${options.nodePath ?? process.execPath} runnable?)`,
    );
  }
  const record: JobRecord = {
    format: 1,
    id,
    title: spec.title,
    command: spec.command,
    pid: child.pid,
    started: new Date().toISOString(),
    log,
    ...(spec.runDir ? { run_dir: spec.runDir } : {}),
    ...(spec.spendsMoney ? { spends_money: true } : {}),
    ...(spec.estimateUsd !== undefined ? { estimate_usd: spec.estimateUsd } : {}),
    ...(spec.finish ? { finish: spec.finish } : {}),
    ...(spec.runsRoot ? { runs_root: spec.runsRoot } : {}),
  };
  writeJobRecord(options.root, record);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
    child.on("error", () => resolve({ code: 127, signal: null }));
  });
  child.unref(); // the job must not keep the extension host alive, nor die with it
  return { record, exited };
}

/** Asks a job to stop cleanly (SIGTERM to the wrapper, passed on to the CLI). */
export function cancelJob(root: string, record: JobRecord, signal: NodeJS.Signals = "SIGTERM"): boolean {
  writeJobRecord(root, { ...record, cancel_requested: true });
  if (!jobProcessAlive(record.id, record.pid)) return false; // ended, or the pid now belongs to someone else
  try {
    process.kill(record.pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}
