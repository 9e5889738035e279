/**
 * The Chat with Model panel: one playground process per panel (playground-process.ts), its replies
 * passed to the webview as they come, the webview's requests passed back after their op is checked.
 * The webview sees what the process answers (trace views, costs, run folders), never the API key.
 * A saved episode refreshes the Runs view and can be opened in the trace viewer.
 */
import * as vscode from "vscode";
import type { PlaygroundReply, PlaygroundRequest } from "../../core/views/playground/protocol";
import { Panel } from "../webview/panel-base";
import type { PanelState, WebviewMessage } from "../webview/protocol";
import type { PlaygroundProcess, PlaygroundProcessOptions } from "./playground-process";

export type PlaygroundState = Extract<PanelState, { kind: "playground" }>;

/** Starts the panel's process; undefined when the user declined (no API key). */
export type StartPlayground = (
  state: PlaygroundState,
  handlers: Pick<PlaygroundProcessOptions, "onReply" | "onExit">,
) => Promise<PlaygroundProcess | undefined>;

const REQUEST_OPS: ReadonlySet<PlaygroundRequest["op"]> = new Set(["items", "start", "turn", "cancel", "save"]);

export function playgroundTitle(state: PlaygroundState): string {
  return `Chat · ${state.label} · ${state.env}`;
}

export class PlaygroundPanel extends Panel {
  private process: PlaygroundProcess | undefined;
  /** Replies the page needs again after a reload of its HTML: the model's description, the episode shown. */
  private readyReply: PlaygroundReply | undefined;
  private episodeReply: PlaygroundReply | undefined;
  private savedRunDir: string | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    readonly playground: PlaygroundState,
    start: StartPlayground,
    private readonly onSaved: (runDir: string) => void,
    private readonly openRun: (runDir: string) => Promise<void>,
  ) {
    super(panel, context, playground, playgroundTitle(playground));
    void start(playground, {
      onReply: (reply) => this.receiveReply(reply),
      onExit: (code, stderr) => {
        if (this.isDisposed) return;
        const why = stderr.split("\n").filter(Boolean).pop();
        this.receiveReply({
          type: "error",
          op: "process",
          message: `the model's process ended${code ? ` (exit ${code})` : ""}${why ? `: ${why}` : ""}; close and reopen the panel`,
        });
      },
    }).then(
      (p) => {
        if (this.isDisposed) p?.dispose();
        else if (!p)
          this.receiveReply({ type: "error", op: "process", message: "no Tinker API key: nothing was started" });
        else this.process = p;
      },
      (e: unknown) => this.receiveReply({ type: "error", op: "process", message: (e as Error).message }),
    );
  }

  private receiveReply(reply: PlaygroundReply): void {
    if (reply.type === "ready") this.readyReply = reply;
    if (reply.type === "episode" || reply.type === "cancelled") this.episodeReply = reply;
    if (reply.type === "saved") {
      this.savedRunDir = reply.runDir;
      this.onSaved(reply.runDir);
    }
    this.post({ type: "playground/reply", reply });
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") {
      if (this.readyReply) this.post({ type: "playground/reply", reply: this.readyReply });
      if (this.episodeReply) this.post({ type: "playground/reply", reply: this.episodeReply });
    } else if (m.type === "playground/request") {
      if (!REQUEST_OPS.has(m.request.op)) throw new Error(`unknown playground request ${JSON.stringify(m.request.op)}`);
      if (!this.process) throw new Error("the model is still starting: try again in a moment");
      this.process.send(m.request);
    } else if (m.type === "playground/openSaved") {
      if (this.savedRunDir) await this.openRun(this.savedRunDir);
    }
  }

  protected override onDispose(): void {
    this.process?.dispose();
  }
}
