/**
 * When the trace viewer's tokenizer loads in the background, so that the first trace of a window
 * skips the load: a moment after the Runs tree first lists a run with episodes (the tree draws
 * first), and only while this window runs no job. The load runs in the trace worker
 * (trace-off-thread.ts), not on the extension host's thread, but takes a CPU core for a second or
 * two that a job's process would want, so it waits for the jobs to end. A trace opened meanwhile
 * loads it itself.
 */
import type * as vscode from "vscode";

const DELAY_MS = 300;

export class TokenizerWarmer implements vscode.Disposable {
  private wanted: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly sub: vscode.Disposable;

  constructor(
    /** Whether a job of this window is running. */
    private readonly busy: () => boolean,
    jobsChanged: vscode.Event<void>,
    private readonly load: (tokenizer: string) => void,
    private readonly delayMs = DELAY_MS,
  ) {
    this.sub = jobsChanged(() => this.schedule());
  }

  /** The Runs tree listed a run with episodes whose manifest names `tokenizer`. */
  want(tokenizer: string): void {
    this.wanted = tokenizer;
    this.schedule();
  }

  private schedule(): void {
    if (this.wanted === undefined || this.timer || this.busy()) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const name = this.wanted;
      if (name === undefined || this.busy()) return; // a job started meanwhile: its end schedules again
      this.wanted = undefined;
      this.load(name);
    }, this.delayMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.sub.dispose();
  }
}
