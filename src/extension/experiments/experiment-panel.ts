/**
 * The experiment panel: the record of one `agent-lab experiment run` (hypothesis, the arms' reward
 * curves side by side, scores and paired comparisons, the recovery interval against the criterion's
 * thresholds, the verdict and the validation checklist). Every number links to its run: clicking it
 * opens that eval run's traces, or an arm's training dashboard. Follows the record while it changes,
 * and while the experiment runs (before its record exists) shows its progress: phase i/n, the
 * phase's own step n/N, spend of budget and one ETA, from the same progress.json the Jobs view reads.
 */
import * as vscode from "vscode";
import { resolve, sep } from "node:path";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { experimentProgressView, experimentView, type ExperimentView } from "../../core/views/experiments/view-model";
import { EXPERIMENT_FILES } from "../../core/steps/experiments/record";
import { VALIDATION_FILE } from "../../core/steps/experiments/validation-file";
import { RUN_FILES } from "../../core/base/runs/run-folder";
import { Panel } from "../webview/panel-base";
import type { WebviewMessage } from "../webview/protocol";

const POLL_MS = 1500;

export class ExperimentPanel extends Panel {
  private view: ExperimentView | undefined;
  private readonly watcher: vscode.FileSystemWatcher;
  private poll: NodeJS.Timeout | undefined;

  constructor(
    panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    readonly recordDir: string,
    private readonly openRun: (runDir: string, kind: "eval" | "training") => Promise<void>,
  ) {
    super(panel, context, { kind: "experiment", recordDir }, `Experiment · ${recordDir.split(sep).pop()}`);
    this.watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(
        vscode.Uri.file(recordDir),
        `{${EXPERIMENT_FILES.record},${VALIDATION_FILE},${RUN_FILES.progress}}`,
      ),
    );
    const refresh = () => this.send();
    this.watcher.onDidChange(refresh);
    this.watcher.onDidCreate(refresh);
  }

  /** Reads the record folder again and posts what it holds. */
  refresh(): void {
    this.send();
  }

  private send(): void {
    if (this.isDisposed) return;
    clearTimeout(this.poll);
    const progress = experimentProgressView(this.recordDir);
    if (existsSync(join(this.recordDir, EXPERIMENT_FILES.record))) {
      try {
        this.view = experimentView(this.recordDir);
        this.post({ type: "experiment/view", view: this.view });
      } catch (e) {
        // A record being written or a damaged one: said in the panel; a running experiment is read again below.
        this.post({ type: "error", message: (e as Error).message });
      }
    }
    // Always: the webview drops its progress section once the state is done.
    this.post({ type: "experiment/progress", progress });
    // While it runs, progress.json changes several times a second and the record appears at the end:
    // read again on a timer too, so a file event the watcher misses never leaves the panel behind.
    if (progress.state === "running") this.poll = setTimeout(() => this.send(), POLL_MS);
  }

  protected async onMessage(m: WebviewMessage): Promise<void> {
    if (m.type === "ready") this.send();
    else if (m.type === "experiment/openRun") {
      // Only the folders the view named may be opened: the webview's word is not trusted for paths.
      const v = this.view;
      const known = v
        ? new Set(
            [...v.scores, ...v.deltas, ...(v.recovery ? [v.recovery] : [])]
              .flatMap((x) => x.runs)
              .concat(v.arms.flatMap((a) => [a.run, ...a.links.map((l) => l.run)])),
          )
        : new Set<string>();
      const run = resolve(m.run);
      if (!known.has(run)) throw new Error(`${m.run} is not a run of this experiment`);
      const link = v!.arms.flatMap((a) => a.links).find((l) => l.run === run);
      await this.openRun(run, link?.kind ?? (v!.arms.some((a) => a.run === run) ? "training" : "eval"));
    }
  }

  protected override onDispose(): void {
    clearTimeout(this.poll);
    this.watcher.dispose();
  }
}
