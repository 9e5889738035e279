/**
 * Keeps the Checkpoints rows' lifecycle state (expiry, public) fresh: asks `agent-lab ckpt status
 * --json` and `ckpt --remote --json` (the account's checkpoints no registered name points at) when
 * the view first shows and after every lifecycle action, and warns once per checkpoint when one the
 * workspace registered expires within EXPIRY_WARNING_DAYS.
 */
import * as vscode from "vscode";
import { EXPIRY_WARNING_DAYS, timeLeft } from "../../core/base/checkpoints/remote-state";
import { runCkptCli, type CliHost } from "./checkpoint-cli";
import {
  expiringSoon,
  lifecycleNote,
  parseCheckpointStatus,
  parseOutsideCheckpoints,
  type CheckpointStatus,
  type OutsideCheckpoints,
} from "./checkpoint-lifecycle";

export class CheckpointLifecycleSource implements vscode.Disposable {
  private statuses = new Map<string, CheckpointStatus>();
  private outsideList: OutsideCheckpoints | undefined;
  private outsideAsked = false;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private running: Promise<void> | undefined;
  /** One more read after the running one: a change made while it ran (Set TTL…) may come after what it read. */
  private queued: Promise<void> | undefined;
  /** Names a refresh has been asked for: a row new since (a checkpoint just registered) asks once more. */
  private readonly attempted = new Set<string>();
  private readonly warned = new Set<string>();

  constructor(private readonly host: CliHost) {}

  status(name: string): CheckpointStatus | undefined {
    return this.statuses.get(name);
  }

  /** The service's checkpoints not in this folder (undefined until read, or when the read failed). */
  outside(): OutsideCheckpoints | undefined {
    if (!this.outsideAsked) {
      this.outsideAsked = true;
      void (this.running ?? Promise.resolve()).then(() => this.refresh());
    }
    return this.outsideList;
  }

  note(name: string): string | undefined {
    if (!this.attempted.has(name)) {
      this.attempted.add(name);
      // A refresh already under way may have read the registry before this name was in it.
      void (this.running ?? Promise.resolve()).then(() => this.refresh());
    }
    return lifecycleNote(this.statuses.get(name));
  }

  /**
   * Re-reads every registered checkpoint's record. A call while a read runs gets one more read after it
   * (calls in the meantime share that one), so what it resolves to is never older than the call.
   */
  refresh(): Promise<void> {
    // An untrusted workspace runs no process of ours (its settings could point anywhere).
    if (!vscode.workspace.isTrusted || !this.host.workspace.folder) return Promise.resolve();
    if (this.running)
      return (this.queued ??= this.running
        .catch(() => undefined)
        .then(() => {
          this.queued = undefined;
          return this.refresh();
        }));
    this.running = (async () => {
      try {
        const out = await runCkptCli(this.host, ["status", "--json"]);
        if (out.code !== 0) console.error(`Agent Lab: agent-lab ckpt status failed: ${out.stderr.trim()}`);
        else this.statuses = parseCheckpointStatus(out.stdout);
        // One after the other: each may serve the workspace's local backend folder for its duration.
        const remote = await runCkptCli(this.host, ["--remote", "--json"]);
        if (remote.code !== 0) console.error(`Agent Lab: agent-lab ckpt --remote failed: ${remote.stderr.trim()}`);
        this.outsideList = remote.code === 0 ? parseOutsideCheckpoints(remote.stdout) : undefined;
        this.changed.fire();
        if (out.code === 0) this.warnExpiring();
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private warnExpiring(): void {
    for (const soon of expiringSoon(this.statuses.values())) {
      const key = `${soon.path} ${soon.expires}`;
      if (this.warned.has(key)) continue;
      this.warned.add(key);
      void vscode.window
        .showWarningMessage(
          `Agent Lab: checkpoint ${soon.name} (${soon.path}) expires ${timeLeft(soon.expires)}, within ${EXPIRY_WARNING_DAYS} days.`,
          "Set TTL…",
        )
        .then((pick) => {
          if (pick) void vscode.commands.executeCommand("agentLab.setCheckpointTtl", soon.name);
        });
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
