/**
 * The `agent-lab playground` process behind one Chat with Model panel: it holds the model, the
 * environment and (for Tinker) the API key, which it gets in its environment as every job does and
 * which never leaves it. Requests go to its stdin as JSON lines; its reply lines come back parsed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { parseReplyLine, type PlaygroundReply, type PlaygroundRequest } from "../../core/views/playground/protocol";

export interface PlaygroundProcessOptions {
  cliPath: string;
  cwd: string;
  /** The command's flags after `playground` (env, backend, model path, workspace). */
  args: string[];
  /** The settings layer and, for a Tinker model only, TINKER_API_KEY. */
  env: Record<string, string>;
  onReply: (reply: PlaygroundReply) => void;
  /** The process ended (its last stderr lines: why, when it failed). */
  onExit: (code: number | null, stderr: string) => void;
}

export class PlaygroundProcess {
  private readonly child: ChildProcess;
  private stderr = "";
  private exited = false;

  constructor(o: PlaygroundProcessOptions) {
    this.child = spawn(process.execPath, [o.cliPath, "playground", ...o.args], {
      cwd: o.cwd,
      env: { ...process.env, ...o.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      const reply = parseReplyLine(line);
      if (reply) o.onReply(reply);
    });
    this.child.stderr!.on("data", (chunk: Buffer) => {
      // Only the tail matters: the one-line refusal a failed start ends with.
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-4000);
    });
    this.child.on("exit", (code) => {
      this.exited = true;
      o.onExit(code, this.stderr.trim());
    });
    this.child.on("error", (e) => {
      this.exited = true;
      o.onExit(null, e.message);
    });
  }

  send(request: PlaygroundRequest): void {
    if (this.exited) throw new Error("the playground process has ended: open the panel again");
    this.child.stdin!.write(JSON.stringify(request) + "\n");
  }

  /** Asks the process to end (stdin closed), and ends it if it does not within a few seconds. */
  dispose(): void {
    if (this.exited) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => {
      if (!this.exited) this.child.kill();
    }, 5000);
    timer.unref();
  }
}
