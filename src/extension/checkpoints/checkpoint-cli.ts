/**
 * Runs a short `agent-lab` command (a checkpoint's lifecycle verb) from the extension and returns
 * its output: the same CLI the jobs run, with the workspace's settings and, when one is stored,
 * the Tinker key (a checkpoint on Tinker needs it; it is passed in the environment only).
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import type * as vscode from "vscode";
import type { ApiKeyStore } from "../secrets/api-key";
import type { LabWorkspace } from "../workspace/lab-workspace";

export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliHost {
  context: vscode.ExtensionContext;
  workspace: LabWorkspace;
  keys: ApiKeyStore;
}

/** `agent-lab ckpt ARGS --workspace <folder> --local-port <port>`. */
export function runCkptCli(host: CliHost, args: readonly string[]): Promise<CliOutput> {
  return runLabCli(host, "ckpt", args);
}

/** `agent-lab COMMAND ARGS --workspace <folder> --local-port <port>` (a command with both flags). */
export async function runLabCli(host: CliHost, command: string, args: readonly string[]): Promise<CliOutput> {
  const folder = host.workspace.requireFolder();
  const key = await host.keys.get();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...host.workspace.jobEnv(),
    ELECTRON_RUN_AS_NODE: "1",
    NO_COLOR: "1",
    ...(key ? { TINKER_API_KEY: key } : {}),
  };
  const cli = host.context.asAbsolutePath(path.join("dist", "cli.js"));
  const argv = [
    cli,
    command,
    ...args,
    "--workspace",
    folder,
    "--local-port",
    String(host.workspace.localBackendPort()),
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: folder, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The CLI's one-line refusal without its "agent-lab <command>: " prefix (the last line of stderr). */
export function cliMessage(out: CliOutput): string {
  const lines = out.stderr.trim().split("\n").filter(Boolean);
  return (lines.at(-1) ?? `agent-lab exited with code ${out.code}`).replace(/^agent-lab [a-z-]+: /, "");
}
