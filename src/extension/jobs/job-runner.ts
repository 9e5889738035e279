/**
 * The job runner: the shell's API for running any `agent-lab` step as a child process, and the
 * VS Code side of jobs — notification progress with cancel, an output channel per job, re-attach
 * after a reload, and a notification when a job ends. Other features (prompt loop, panels) start
 * jobs through `JobRunner.start`.
 */
import { readdirSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { LabWorkspace } from "../workspace/lab-workspace";
import type { ApiKeyStore } from "../secrets/api-key";
import { cancelJob, launchJob } from "./job-launcher";
import { resumeCommand } from "./job-resume";
import { readProgress, type Progress } from "../../core/base/runs/progress";
import { RUN_FILES } from "../../core/base/runs/run-folder";
import { watchRunFiles, type FolderWatch } from "../webview/folder-watch";
import { describeJob, jobProgress, lastLine, readFrom, redact } from "./job-progress";
import { isFinal, transition, type JobStatus } from "./job-state";
import { listJobRecords, pruneFinishedJobs, statusFromDisk, type JobFinishAction, type JobRecord } from "./job-store";

export interface JobRequest {
  title: string;
  /** CLI arguments after `agent-lab`. */
  command: string[];
  /** The run folder the job writes (absolute), for progress, "Open" and "Compare with previous". */
  runDir?: string;
  /** Bills Tinker: the runner hands the job the API key (asking for it if missing). */
  spendsMoney?: boolean;
  estimateUsd?: number;
  /** Show a cancellable progress notification (default true). */
  showProgress?: boolean;
  /** Reveal the job's output channel at start (default false: it opens by itself only when a job fails). */
  revealOutput?: boolean;
  /** The action its "finished" notification offers instead of Open / Compare with previous. */
  finish?: JobFinishAction;
  /** A runs folder the job fills with runs of its own (a pipeline's stages). */
  runsRoot?: string;
}

export interface Job {
  record: JobRecord;
  status: JobStatus;
  /** The run folder's progress.json, once this job wrote one. */
  progress?: Progress;
  /** The log's last non-blank line: shown as a detail, never parsed. */
  lastLine?: string;
  /** The workspace folder the job started in (its record lives in JOBS_DIR there). */
  root: string;
  /** Settles when the job reaches a final state. */
  finished: Promise<JobStatus>;
}

interface LiveJob extends Job {
  resolveFinished: (s: JobStatus) => void;
  channel?: vscode.OutputChannel;
  logOffset: number;
  /** Follows the run folder's progress.json while the job runs (a stage of a few steps is over in a second). */
  progressWatch?: FolderWatch;
}

function runningRunsUnder(runsDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(runsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.startsWith("."))
      .map((d) => d.name);
  } catch {
    return []; // not created yet
  }
  return names.map((n) => path.resolve(runsDir, n)).filter((dir) => readProgress(dir)?.status === "running");
}

/** The stopped-job notification's button that reruns the job resumed. */
export const RESUME_ACTION = "Resume";

/** How many finished jobs keep their record and log. */
const KEEP_FINISHED = 30;
const POLL_MS = 1500;

export class JobRunner implements vscode.Disposable {
  private readonly jobs = new Map<string, LiveJob>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private timer: NodeJS.Timeout | undefined;
  private secret: string | undefined;
  private readonly notified = new Set<string>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly workspace: LabWorkspace,
    private readonly keys: ApiKeyStore,
  ) {}

  list(): Job[] {
    return [...this.jobs.values()].sort((a, b) => b.record.started.localeCompare(a.record.started));
  }

  running(): Job[] {
    return this.list().filter((j) => !isFinal(j.status.state));
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /**
   * Run folders some live job is writing (the Runs view shows them as running): each job's own
   * folder, and under a pipeline's runs folder the runs whose progress.json says running.
   */
  liveRunDirs(): Set<string> {
    const live = new Set<string>();
    for (const j of this.running()) {
      if (j.record.run_dir) live.add(path.resolve(j.record.run_dir));
      if (j.record.runs_root) for (const dir of runningRunsUnder(j.record.runs_root)) live.add(dir);
    }
    return live;
  }

  /** Starts a job; undefined when the user declined (e.g. no API key). */
  async start(req: JobRequest): Promise<Job | undefined> {
    // Jobs read the workspace's settings and files and run a process: only in a trusted workspace.
    if (vscode.workspace.isTrusted === false) {
      const pick = await vscode.window.showWarningMessage(
        "Agent Lab runs its steps as processes, so it needs a trusted workspace. Views keep working meanwhile.",
        "Manage Workspace Trust",
      );
      if (pick) await vscode.commands.executeCommand("workbench.trust.manage");
      return undefined;
    }
    const folder = this.workspace.requireFolder();
    const env: Record<string, string> = { ...this.workspace.jobEnv() };
    if (req.spendsMoney) {
      // Only jobs that bill Tinker get the key; free steps never see it.
      const key = await this.keys.require();
      if (!key) return undefined;
      env.TINKER_API_KEY = key;
      this.secret = key;
    }
    const launched = launchJob(
      {
        title: req.title,
        command: req.command,
        cwd: folder,
        runDir: req.runDir,
        spendsMoney: req.spendsMoney,
        estimateUsd: req.estimateUsd,
        finish: req.finish,
        runsRoot: req.runsRoot,
        env,
      },
      { cliPath: this.context.asAbsolutePath(path.join("dist", "cli.js")), root: folder },
    );
    const job = this.track(
      launched.record,
      folder,
      transition({ state: "starting", cancelRequested: false }, { type: "spawned", pid: launched.record.pid }),
    );
    void launched.exited.then((exit) =>
      this.finish(job, transition(job.status, { type: "exited", code: exit.code, signal: exit.signal })),
    );
    this.openChannel(job, req.revealOutput ?? false);
    if (req.showProgress ?? true) this.showProgress(job);
    pruneFinishedJobs(folder, KEEP_FINISHED);
    return job;
  }

  /** Finds jobs a previous window started: running ones are followed again, finished ones listed. */
  reattach(): void {
    const root = this.workspace.folder;
    if (!root) return; // no folder: nothing to re-attach to
    for (const record of listJobRecords(root).records) {
      if (this.jobs.has(record.id)) continue;
      const status = statusFromDisk(root, record);
      const job = this.track(record, root, status);
      if (isFinal(status.state)) job.resolveFinished(status);
    }
    this.schedulePoll();
    this.changed.fire();
  }

  /** Asks a job to stop cleanly; what it wrote is kept (the CLI closes its run as "interrupted"). */
  cancel(job: Job): void {
    const live = this.jobs.get(job.record.id);
    if (!live || isFinal(live.status.state)) return;
    live.status = transition(live.status, { type: "cancel-requested" });
    live.record = { ...live.record, cancel_requested: true };
    cancelJob(live.root, job.record);
    this.changed.fire();
  }

  /**
   * Reruns a stopped job: its command with the step's resume flag where the step has one (every
   * other argument kept), the same run folder and finish action. A paid job asks first.
   */
  async resume(job: Job): Promise<Job | undefined> {
    const r = job.record;
    if (r.spends_money) {
      const estimate =
        r.estimate_usd !== undefined ? ` (the whole run was estimated at $${r.estimate_usd.toFixed(2)})` : "";
      const text = `Agent Lab: resuming ${r.title} bills your Tinker account for the rest of the run${estimate}.`;
      if ((await vscode.window.showWarningMessage(text, { modal: true }, RESUME_ACTION)) !== RESUME_ACTION)
        return undefined;
    }
    return this.start({
      title: r.title,
      command: resumeCommand(r.command),
      runDir: r.run_dir,
      spendsMoney: r.spends_money,
      estimateUsd: r.estimate_usd,
      finish: r.finish,
      runsRoot: r.runs_root,
    });
  }

  /** The job's output channel, filled from its log file (the key redacted, should it ever appear). */
  showLog(job: Job): void {
    const live = this.jobs.get(job.record.id);
    if (live) this.openChannel(live, true);
  }

  private track(record: JobRecord, root: string, status: JobStatus): LiveJob {
    let resolveFinished: (s: JobStatus) => void = () => {};
    const finished = new Promise<JobStatus>((r) => (resolveFinished = r));
    const job: LiveJob = { record, status, root, finished, resolveFinished, logOffset: 0 };
    this.readProgress(job);
    if (!isFinal(status.state) && record.run_dir) {
      job.progressWatch = watchRunFiles(record.run_dir, [RUN_FILES.progress], () => {
        if (isFinal(job.status.state)) return;
        this.readProgress(job);
        this.changed.fire();
      });
    }
    this.jobs.set(record.id, job);
    this.schedulePoll();
    this.changed.fire();
    return job;
  }

  private readProgress(job: Job): void {
    job.progress = jobProgress(job.record.run_dir, job.record.started);
    job.lastLine = lastLine(job.record.log);
  }

  /** The job's one line: its progress (describeProgress), or how long it has run. */
  describe(job: Job): string {
    return describeJob(job.progress, Date.now() - Date.parse(job.record.started));
  }

  private openChannel(job: LiveJob, reveal: boolean): void {
    job.channel ??= vscode.window.createOutputChannel(`Agent Lab: ${job.record.title}`);
    this.pumpLog(job);
    if (reveal) job.channel.show(true);
  }

  private pumpLog(job: LiveJob): void {
    if (!job.channel) return;
    for (;;) {
      const chunk = readFrom(job.record.log, job.logOffset);
      if (!chunk.text) break;
      job.logOffset = chunk.offset;
      job.channel.append(redact(chunk.text, [this.secret]));
    }
  }

  private schedulePoll(): void {
    if (this.timer || this.running().length === 0) return;
    this.timer = setInterval(() => this.poll(), POLL_MS);
  }

  private poll(): void {
    for (const job of this.jobs.values()) {
      if (isFinal(job.status.state)) continue;
      this.readProgress(job);
      this.pumpLog(job);
      // Jobs re-attached after a reload are not our children: their end shows up on disk.
      const onDisk = statusFromDisk(job.root, { ...job.record, cancel_requested: job.status.cancelRequested });
      if (isFinal(onDisk.state)) this.finish(job, onDisk);
    }
    if (this.running().length === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    this.changed.fire();
  }

  private finish(job: LiveJob, status: JobStatus): void {
    if (isFinal(job.status.state)) return;
    job.status = status;
    job.progressWatch?.dispose();
    this.readProgress(job);
    this.pumpLog(job);
    job.resolveFinished(status);
    this.changed.fire();
    void this.announce(job);
  }

  /**
   * Whether this window shows the job's progress in a notification (which VS Code moves into the
   * status bar while hidden): the Jobs status bar item does not repeat that job's line.
   */
  hasProgressNotification(job: Job): boolean {
    return this.notified.has(job.record.id);
  }

  private showProgress(job: LiveJob): void {
    this.notified.add(job.record.id);
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Agent Lab: ${job.record.title}`, cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => this.cancel(job));
        let lastFraction = 0;
        const sub = this.onDidChange(() => {
          const p = job.progress;
          const fraction = p && p.planned > 0 ? Math.min(1, p.done / p.planned) : undefined;
          const increment = fraction !== undefined ? Math.max(0, (fraction - lastFraction) * 100) : undefined;
          if (fraction !== undefined) lastFraction = Math.max(lastFraction, fraction);
          // Steps that write no progress (prepare, index) show their log's last line beside the time.
          const detail = !job.progress && job.lastLine ? ` — ${redact(job.lastLine, [this.secret]).slice(0, 120)}` : "";
          progress.report({ message: this.describe(job) + detail, increment });
        });
        return job.finished.finally(() => {
          sub.dispose();
          this.notified.delete(job.record.id);
        });
      },
    );
  }

  private async announce(job: LiveJob): Promise<void> {
    const { state, reason } = job.status;
    const title = job.record.title;
    if (state === "done") {
      const finish = job.record.finish;
      const actions = finish ? [finish.title] : job.record.run_dir ? ["Open", "Compare with previous"] : ["Show Log"];
      const pick = await vscode.window.showInformationMessage(
        `Agent Lab: ${title} finished. ${this.describe(job)}`,
        ...actions,
      );
      if (finish && pick === finish.title) await vscode.commands.executeCommand(finish.command, job.record.run_dir);
      if (pick === "Open") await vscode.commands.executeCommand("agentLab.openResult", job.record.run_dir);
      if (pick === "Compare with previous")
        await vscode.commands.executeCommand("agentLab.compareWithPrevious", job.record.run_dir);
      if (pick === "Show Log") this.showLog(job);
    } else if (state === "cancelled") {
      // A job that wrote progress kept its work: Resume finishes it (the same command, resumed).
      const kept = job.progress
        ? ` ${job.progress.done} ${job.progress.unit}s done are kept; ${RESUME_ACTION} finishes the run.`
        : "";
      const actions = job.progress ? [RESUME_ACTION, "Show Log"] : ["Show Log"];
      const pick = await vscode.window.showInformationMessage(`Agent Lab: ${title} stopped.${kept}`, ...actions);
      if (pick === RESUME_ACTION) await this.resume(job);
      if (pick === "Show Log") this.showLog(job);
    } else if (state === "failed") {
      // The only time the output panel opens by itself: the log says why.
      this.openChannel(job, true);
      const last = job.lastLine ? `: ${redact(job.lastLine, [this.secret]).slice(0, 200)}` : "";
      const pick = await vscode.window.showErrorMessage(
        `Agent Lab: ${title} failed (${reason ?? "error"})${last}`,
        "Show Log",
      );
      if (pick === "Show Log") this.showLog(job);
    }
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    for (const job of this.jobs.values()) {
      job.channel?.dispose();
      job.progressWatch?.dispose();
    }
    this.changed.dispose();
    // Jobs keep running: they are detached and will be re-attached by the next window.
  }
}
