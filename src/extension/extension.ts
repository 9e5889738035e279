/**
 * Extension entry point: only wires features together, and stays cheap (no tokenizer, no index,
 * no model: the recipe runs as CLI jobs, never in this host). Views read run folders; commands
 * start jobs; jobs started by an earlier window are re-attached.
 */
import * as vscode from "vscode";
import { CheckpointsProvider } from "./checkpoints/checkpoints-provider";
import { EXPERIMENTS_VIEW, ExperimentsProvider } from "./experiments/experiments-provider";
import { CheckpointsSidebar } from "./checkpoints/checkpoints-sidebar";
import { PROBE_VIEW_COMMAND } from "./webview/protocol";
import { registerCommands, type Lab } from "./register-commands";
import { JobRunner } from "./jobs/job-runner";
import { JobsProvider, JobsStatusBar } from "./jobs/jobs-provider";
import { LabWorkspace } from "./workspace/lab-workspace";
import { registerEpisodeCodeLens, registerPanelSerializers, warmTraceTokenizer } from "./panels";
import { TokenizerWarmer } from "./trace/tokenizer-warm";
import { CookbookRuns } from "./runs/cookbook-runs";
import { RunsProvider } from "./runs/runs-provider";
import { ApiKeyStore } from "./secrets/api-key";
import { SETTINGS_SECTION } from "./settings/settings-overrides";
import { spendReport } from "./workspace/spend";
import { updateContextKeys } from "./workspace/context-keys";
import { watchWorkspace } from "./watchers";
import { trackPipelineResults } from "./commands/pipeline-commands";
import { keepCompareCaches, keepCompareCachesSoon } from "./compare/keep-compare-caches";

let lab: Lab | undefined;

/** What the extension exports: its parts and views (for integration tests and other extensions) and how long activate() took. */
export type AgentLabApi = Lab & {
  jobsView: JobsProvider;
  statusBar: JobsStatusBar;
  activationMs: number;
  /** What the window does a while after it opens, now (integration tests): see keep-compare-caches.ts. */
  keepCompareCaches: (minBytes?: number) => Promise<string[]>;
};

export function activate(context: vscode.ExtensionContext): AgentLabApi {
  const started = performance.now();
  const workspace = new LabWorkspace();
  const keys = new ApiKeyStore(context.secrets);
  const jobs = new JobRunner(context, workspace, keys);
  const cookbook = new CookbookRuns(workspace, context.workspaceState);
  const tokenizerWarmer = new TokenizerWarmer(() => jobs.running().length > 0, jobs.onDidChange, warmTraceTokenizer);
  const runs = new RunsProvider(
    workspace,
    () => jobs.liveRunDirs(),
    cookbook,
    (tokenizer) => tokenizerWarmer.want(tokenizer),
  );
  const checkpoints = new CheckpointsProvider(workspace, cookbook);
  const experiments = new ExperimentsProvider(workspace);
  const checkpointsSidebar = new CheckpointsSidebar(context, workspace);
  const theLab: Lab = { context, workspace, keys, jobs, runs, checkpoints, experiments, checkpointsSidebar, cookbook };
  lab = theLab;

  let todayUsd = 0;
  const statusBar = new JobsStatusBar(jobs, () => todayUsd);
  const jobsView = new JobsProvider(jobs);
  const updateSpend = () => {
    try {
      todayUsd = spendReport(workspace.runsDir()).todayUsd;
    } catch {
      todayUsd = 0; // no folder or unreadable settings: the commands say why
    }
    statusBar.update();
  };

  context.subscriptions.push(
    tokenizerWarmer,
    jobs,
    runs,
    checkpoints,
    statusBar,
    // Several runs selected: Compare With… compares those (view-commands.ts).
    vscode.window.createTreeView("agentLab.runs", { treeDataProvider: runs, canSelectMany: true }),
    experiments,
    vscode.window.registerTreeDataProvider(EXPERIMENTS_VIEW, experiments),
    // Several checkpoints selected: Compare Selected compares them (checkpoint-compare-commands.ts).
    vscode.window.createTreeView("agentLab.checkpoints", { treeDataProvider: checkpoints, canSelectMany: true }),
    checkpointsSidebar,
    vscode.window.registerWebviewViewProvider(CheckpointsSidebar.viewId, checkpointsSidebar, {
      webviewOptions: { retainContextWhenHidden: true },
    }),
    vscode.commands.registerCommand(PROBE_VIEW_COMMAND, (selectors: string[], click?: string) =>
      checkpointsSidebar.probe(selectors, 5000, typeof click === "string" ? click : undefined),
    ),
    jobsView,
    vscode.window.registerTreeDataProvider("agentLab.jobs", jobsView),
    ...registerCommands(lab),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) {
        runs.refresh();
        checkpoints.refresh();
        checkpointsSidebar.refresh();
        void updateContextKeys(workspace);
      }
    }),
    // Finished jobs change run status (running → done) even when no file event arrives.
    jobs.onDidChange(() => {
      runs.refreshSoon(1000);
      experiments.refreshSoon(1000);
    }),
  );
  // Panels restore themselves after a reload; episodes.jsonl lines get an "Open trace" code lens.
  registerPanelSerializers(context);
  registerEpisodeCodeLens(context);
  setTimeout(
    () =>
      void import("./language-client/load-client").then(
        (m) => m.startPromptLanguageClient(context, workspace),
        (e: unknown) => console.error("Agent Lab: prompt language client failed to load", e),
      ),
    0,
  );
  // The rest waits for the first idle moment so activation itself stays a few milliseconds.
  setTimeout(() => {
    // File watchers read the settings (runsDir, dataDir): after activation too.
    context.subscriptions.push(
      ...watchWorkspace(
        workspace,
        {
          runs: () => {
            runs.refreshSoon();
            updateSpend();
            // A new eval scores a checkpoint: its row's val metric and the sidebar change.
            checkpoints.refresh();
            checkpointsSidebar.refresh();
          },
          checkpoints: () => {
            checkpoints.refresh();
            checkpointsSidebar.refresh();
          },
          experiments: () => experiments.refreshSoon(),
          jobs: () => jobs.reattach(),
          data: () => void updateContextKeys(workspace),
        },
        jobs.onDidChange,
      ),
      trackPipelineResults(theLab),
      keepCompareCachesSoon(workspace),
    );
    jobs.reattach();
    updateSpend();
    void updateContextKeys(workspace);
  }, 0);
  return {
    ...lab,
    jobsView,
    statusBar,
    activationMs: performance.now() - started,
    keepCompareCaches: (minBytes) => keepCompareCaches(workspace, minBytes),
  };
}

export function deactivate(): void {
  lab = undefined; // jobs keep running; the next window re-attaches them
}
